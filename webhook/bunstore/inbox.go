package bunstore

import (
	"context"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook"
)

var _ webhook.Inbox = (*Store)(nil)

// settledColumns are the columns a settlement writes.
var settledColumns = []string{"outcome", "reason", "tenant_id", "invoice_id", "processed_at"}

// Events implements webhook.Inbox.
func (s *Store) Events(ctx context.Context, f webhook.EventFilter) ([]webhook.Record, bool, error) {
	limit := max(f.Limit, 1)
	rows := make([]eventRow, 0, limit+1)
	q := database.AcrossTenants(s.conn(ctx).NewSelect()).Model(&rows).Where("outcome = ?", string(f.Outcome))
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, database.Wrap(err)
	}
	return database.Page(rows, limit, func(r eventRow) (webhook.Record, error) { return r.record(), nil })
}

// Settle implements webhook.Inbox: one conditional UPDATE, which on
// Postgres waits for a concurrent settlement's transaction and then finds
// the outcome changed.
func (s *Store) Settle(ctx context.Context, r webhook.Record, from webhook.Outcome) error {
	row := toRow(r)
	res, err := database.AcrossTenants(s.conn(ctx).NewUpdate()).Model(&row).
		Column(settledColumns...).
		Where("id = ?", r.ID).
		Where("outcome = ?", string(from)).
		Exec(ctx)
	if err != nil {
		return database.Wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return database.Wrap(err)
	}
	if n == 1 {
		return nil
	}
	if _, err := s.Event(ctx, r.ID); err != nil {
		return err
	}
	return webhook.ErrConflict
}
