package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

var _ billing.DunningStore = (*Store)(nil)

// stepRow is a row of invoice_collection_steps.
type stepRow struct {
	bun.BaseModel `bun:"table:invoice_collection_steps"`
	TenantID      string    `bun:"tenant_id,pk"`
	InvoiceID     string    `bun:"invoice_id,pk"`
	Step          string    `bun:"step,pk"`
	Outcome       string    `bun:"outcome"`
	TakenAt       time.Time `bun:"taken_at"`
}

// DueForCollection implements billing.DunningStore: one scan of the open
// invoices by due date (a partial index), keeping those for which a due
// step has no row yet. It spans tenants: the scheduler works for all of
// them.
func (s *Store) DueForCollection(ctx context.Context, tenantID string, due []billing.DueStep, after billing.InvoiceKey, limit int) ([]billing.Invoice, error) {
	if len(due) == 0 {
		return nil, nil
	}
	limit = max(limit, 1)
	latest := due[0].DueBefore
	for _, d := range due[1:] {
		latest = max(latest, d.DueBefore)
	}
	conn := s.conn(ctx)
	rows := make([]invoiceRow, 0, limit)
	// A scheduler's query: its step subqueries follow the invoice's tenant.
	q := database.AcrossTenants(conn.NewSelect()).Model(&rows)
	if tenantID != "" {
		q = q.Where("tenant_id = ?", tenantID)
	} else {
		q = q.Where("tenant_id IN (SELECT id FROM tenants WHERE NOT test)")
	}
	// The partial index's predicate, as written in the migration.
	q = q.Where("status = 'open'").Where("NOT collection_done").
		Where("due_date IS NOT NULL").Where("due_date < ?", latest)
	if after != (billing.InvoiceKey{}) {
		q = q.Where("(tenant_id > ? OR (tenant_id = ? AND id > ?))", after.TenantID, after.TenantID, after.ID)
	}
	q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, d := range due {
			taken := conn.NewSelect().Model((*stepRow)(nil)).ColumnExpr("1").
				Where("step_row.tenant_id = invoice_row.tenant_id").
				Where("step_row.invoice_id = invoice_row.id").
				Where("step_row.step = ?", d.Step)
			q = q.WhereOr("due_date < ? AND NOT EXISTS (?)", d.DueBefore, taken)
		}
		return q
	})
	if err := q.OrderExpr("tenant_id, id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out := make([]billing.Invoice, len(rows))
	for i, r := range rows {
		inv, err := r.invoice()
		if err != nil {
			return nil, err
		}
		out[i] = inv
	}
	return out, nil
}

// EndCollection implements billing.DunningStore.
func (s *Store) EndCollection(ctx context.Context, tenantID, invoiceID string) error {
	res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model((*invoiceRow)(nil)), tenantID).
		Set("collection_done = TRUE").
		Where("id = ?", invoiceID).
		Exec(ctx)
	return affected(res, err)
}

// RecordStep implements billing.DunningStore. ON CONFLICT DO NOTHING,
// rather than a caught unique violation, keeps the caller's Postgres
// transaction usable, and makes a concurrent insert of the same step wait
// for the first transaction's end (Postgres blocks on the primary key;
// SQLite lets one writer in at a time).
func (s *Store) RecordStep(ctx context.Context, tenantID, invoiceID string, step billing.CollectionStep) (bool, error) {
	row := stepRow{TenantID: tenantID, InvoiceID: invoiceID, Step: step.Step,
		Outcome: string(step.Outcome), TakenAt: step.At.UTC()}
	res, err := s.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (tenant_id, invoice_id, step) DO NOTHING").
		Exec(ctx)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, database.Wrap(err)
	}
	return n == 1, nil
}

// Steps implements billing.DunningStore.
func (s *Store) Steps(ctx context.Context, tenantID, invoiceID string) ([]billing.CollectionStep, error) {
	var rows []stepRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).
		Where("invoice_id = ?", invoiceID).
		Scan(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]billing.CollectionStep, len(rows))
	for i, r := range rows {
		out[i] = billing.CollectionStep{Step: r.Step, Outcome: billing.StepOutcome(r.Outcome), At: r.TakenAt.UTC()}
	}
	return out, nil
}
