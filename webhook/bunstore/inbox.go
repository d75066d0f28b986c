package bunstore

import (
	"context"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook"
)

var _ webhook.Inbox = (*Store)(nil)

// Events implements webhook.Inbox.
func (s *Store) Events(ctx context.Context, f webhook.EventFilter) ([]webhook.Record, bool, error) {
	limit := max(f.Limit, 1)
	rows := make([]eventRow, 0, limit+1)
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewSelect().Model(&rows).Where("outcome = ?", a.Add(string(f.Outcome)))
	if f.Before != "" {
		q = q.Where("id < ?", a.Add(f.Before))
	}
	if err := database.Scan(ctx, s.db, q.OrderExpr("id DESC").Limit(int64(limit)+1), a, &rows); err != nil {
		return nil, false, database.Wrap(err)
	}
	return database.Page(rows, limit, func(r eventRow) (webhook.Record, error) { return r.record(), nil })
}

// Settle implements webhook.Inbox: one conditional UPDATE, which on
// Postgres waits for a concurrent settlement's transaction and then finds
// the outcome changed.
func (s *Store) Settle(ctx context.Context, r webhook.Record, from webhook.Outcome) error {
	row := toRow(r)
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewUpdate().Model((*eventRow)(nil)).
		Set("outcome = ?", a.Add(row.Outcome)).Set("reason = ?", a.Add(row.Reason)).
		Set("tenant_id = ?", a.Add(row.TenantID)).Set("invoice_id = ?", a.Add(row.InvoiceID)).
		Set("processed_at = ?", a.Add(row.ProcessedAt)).
		Where("id = ?", a.Add(r.ID)).Where("outcome = ?", a.Add(string(from)))
	res, err := database.Exec(ctx, s.db, q, a)
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
