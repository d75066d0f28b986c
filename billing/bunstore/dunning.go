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
	Step    string    `bun:"step"`
	Outcome string    `bun:"outcome"`
	TakenAt time.Time `bun:"taken_at"`
}

// DueForCollection implements billing.DunningStore: one scan of the open
// invoices by due date (a partial index), keeping those for which a due
// step has no row yet. Like InvoiceTenant it is not confined by
// database.ForTenant: the scheduler works for every tenant.
func (s *Store) DueForCollection(ctx context.Context, due []billing.DueStep, after billing.InvoiceKey, limit int) ([]billing.Invoice, error) {
	if len(due) == 0 {
		return nil, nil
	}
	limit = max(limit, 1)
	a := database.NewArgs(s.db)
	latest := due[0].DueBefore
	for _, d := range due[1:] {
		latest = max(latest, d.DueBefore)
	}
	rows := make([]invoiceRow, 0, limit)
	q := s.conn(ctx).NewSelect().Model(&rows).
		// Literals, not bound values: they are what lets Postgres use the
		// partial index whatever plan it caches.
		Where("status = 'open'").Where("NOT collection_done").
		Where("due_date IS NOT NULL").Where("due_date < ?", a.Add(latest))
	if after != (billing.InvoiceKey{}) {
		q = q.Where("(tenant_id > ? OR (tenant_id = ? AND id > ?))", a.AddAll(after.TenantID, after.TenantID, after.ID)...)
	}
	q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, d := range due {
			q = q.WhereOr(`due_date < ? AND NOT EXISTS (SELECT 1 FROM invoice_collection_steps AS s
				WHERE s.tenant_id = invoice_row.tenant_id AND s.invoice_id = invoice_row.id AND s.step = ?)`,
				a.AddAll(d.DueBefore, d.Step)...)
		}
		return q
	})
	q = q.OrderExpr("tenant_id, id").Limit(int64(limit))
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
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
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewUpdate().Model((*invoiceRow)(nil)), a.Add(tenantID)).
		Set("collection_done = TRUE").Where("id = ?", a.Add(invoiceID))
	res, err := database.Exec(ctx, s.db, q, a)
	return affected(res, err)
}

// RecordStep implements billing.DunningStore. ON CONFLICT DO NOTHING,
// rather than a caught unique violation, keeps the caller's Postgres
// transaction usable, and makes a concurrent insert of the same step wait
// for the first transaction's end (Postgres blocks on the primary key;
// SQLite lets one writer in at a time).
func (s *Store) RecordStep(ctx context.Context, tenantID, invoiceID string, step billing.CollectionStep) (bool, error) {
	res, err := s.stmts.insertStep.Exec(ctx, tenantID, invoiceID, step.Step, string(step.Outcome), step.At.UTC())
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, database.Wrap(err)
	}
	return n == 1, nil
}

// insertStep is RecordStep's statement.
const insertStep = `INSERT INTO invoice_collection_steps (tenant_id, invoice_id, step, outcome, taken_at)
		 VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, invoice_id, step) DO NOTHING`

// Steps implements billing.DunningStore.
func (s *Store) Steps(ctx context.Context, tenantID, invoiceID string) ([]billing.CollectionStep, error) {
	var rows []stepRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().TableExpr("invoice_collection_steps").
		Column("step", "outcome", "taken_at"), a.Add(tenantID)).
		Where("invoice_id = ?", a.Add(invoiceID))
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return nil, translate(err)
	}
	out := make([]billing.CollectionStep, len(rows))
	for i, r := range rows {
		out[i] = billing.CollectionStep{Step: r.Step, Outcome: billing.StepOutcome(r.Outcome), At: r.TakenAt.UTC()}
	}
	return out, nil
}
