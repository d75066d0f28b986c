package bunstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// periodRow is a billing period's record; opening and prorations are
// JSON.
type periodRow struct {
	bun.BaseModel `bun:"table:contract_periods"`
	TenantID      string    `bun:"tenant_id,pk"`
	PeriodStart   time.Time `bun:"period_start,pk"`
	Opening       string    `bun:"opening"`
	Prorations    string    `bun:"prorations"`
}

// platformInvoiceRow is a platform invoice; lines are JSON.
type platformInvoiceRow struct {
	bun.BaseModel `bun:"table:platform_invoices"`
	ID            string     `bun:"id,pk"`
	TenantID      string     `bun:"tenant_id,pk"`
	Number        int64      `bun:"number"`
	PeriodStart   time.Time  `bun:"period_start"`
	PeriodEnd     time.Time  `bun:"period_end"`
	Currency      string     `bun:"currency"`
	Lines         string     `bun:"lines"`
	Subtotal      int64      `bun:"subtotal"`
	Total         int64      `bun:"total"`
	AmountPaid    int64      `bun:"amount_paid"`
	Status        string     `bun:"status"`
	DueDate       time.Time  `bun:"due_date"`
	Reference     string     `bun:"reference"`
	CreatedAt     time.Time  `bun:"created_at"`
	PaidAt        *time.Time `bun:"paid_at"`
	VoidedAt      *time.Time `bun:"voided_at"`
	OverdueAt     *time.Time `bun:"overdue_at"`
}

func (r platformInvoiceRow) invoice() (contract.Invoice, error) {
	inv := contract.Invoice{ID: r.ID, Number: r.Number, TenantID: r.TenantID,
		PeriodStart: r.PeriodStart.UTC(), PeriodEnd: r.PeriodEnd.UTC(), Currency: r.Currency,
		Subtotal: r.Subtotal, Total: r.Total, AmountPaid: r.AmountPaid, Status: contract.InvoiceStatus(r.Status),
		DueDate: r.DueDate.UTC(), Reference: r.Reference, CreatedAt: r.CreatedAt.UTC(), PaidAt: utc(r.PaidAt), VoidedAt: utc(r.VoidedAt)}
	if err := json.Unmarshal([]byte(r.Lines), &inv.Lines); err != nil {
		return contract.Invoice{}, fmt.Errorf("bunstore: platform invoice %s lines: %w", r.ID, err)
	}
	inv.AmountDue = 0
	if inv.Status == contract.InvoiceOpen {
		inv.AmountDue = max(inv.Total-inv.AmountPaid, 0)
	}
	return inv, nil
}

// platformNumbers is the platform-wide invoice counter, one row.
const platformNumbers = "platform"

// BilledThrough implements contract.BillingStore.
func (s *Store) BilledThrough(ctx context.Context, tenantID string) (time.Time, bool, error) {
	var row tenantRow
	err := s.conn(ctx).NewSelect().Model(&row).Column("billed_through").Where("id = ?", tenantID).Scan(ctx)
	if err != nil {
		return time.Time{}, false, translate(err)
	}
	if row.BilledThrough == nil {
		return time.Time{}, false, nil
	}
	return row.BilledThrough.UTC(), true, nil
}

// SetBilledThrough implements contract.BillingStore.
func (s *Store) SetBilledThrough(ctx context.Context, tenantID string, t time.Time) error {
	res, err := s.conn(ctx).NewUpdate().Model((*tenantRow)(nil)).Set("billed_through = ?", t.UTC()).Where("id = ?", tenantID).Exec(ctx)
	return affected(res, err, tenancy.ErrNotFound)
}

// Period implements contract.BillingStore.
func (s *Store) Period(ctx context.Context, tenantID string, start time.Time) (contract.Period, error) {
	var rows []periodRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).Where("period_start = ?", start.UTC()).Scan(ctx)
	if err != nil {
		return contract.Period{}, translate(err)
	}
	p := contract.Period{Start: start.UTC()}
	if len(rows) == 0 {
		return p, nil
	}
	var opening contract.Terms
	if err := json.Unmarshal([]byte(rows[0].Opening), &opening); err != nil {
		return contract.Period{}, fmt.Errorf("bunstore: period %s of %s: %w", start, tenantID, err)
	}
	opening.TenantID = tenantID
	p.Opening = &opening
	if err := json.Unmarshal([]byte(rows[0].Prorations), &p.Prorations); err != nil {
		return contract.Period{}, fmt.Errorf("bunstore: period %s of %s: %w", start, tenantID, err)
	}
	return p, nil
}

// SavePeriod implements contract.BillingStore with one upsert.
func (s *Store) SavePeriod(ctx context.Context, tenantID string, p contract.Period) error {
	opening, err := json.Marshal(p.Opening)
	if err != nil {
		return err
	}
	prorations, err := json.Marshal(p.Prorations)
	if err != nil {
		return err
	}
	row := periodRow{TenantID: tenantID, PeriodStart: p.Start.UTC(), Opening: string(opening), Prorations: string(prorations)}
	_, err = s.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (tenant_id, period_start) DO UPDATE").
		Set("opening = EXCLUDED.opening").Set("prorations = EXCLUDED.prorations").Exec(ctx)
	return translate(err)
}

// NextInvoiceNumber implements contract.BillingStore.
func (s *Store) NextInvoiceNumber(ctx context.Context) (int64, error) {
	n, err := database.NewSequence(s.db, "platform_invoice_numbers").Next(ctx, platformNumbers)
	return n, translate(err)
}

// CreateInvoice implements contract.BillingStore; the unique (tenant_id,
// period_start) decides between replicas.
func (s *Store) CreateInvoice(ctx context.Context, inv contract.Invoice) error {
	lines, err := json.Marshal(inv.Lines)
	if err != nil {
		return err
	}
	row := platformInvoiceRow{ID: inv.ID, TenantID: inv.TenantID, Number: inv.Number,
		PeriodStart: inv.PeriodStart.UTC(), PeriodEnd: inv.PeriodEnd.UTC(), Currency: inv.Currency, Lines: string(lines),
		Subtotal: inv.Subtotal, Total: inv.Total, AmountPaid: inv.AmountPaid, Status: string(inv.Status),
		DueDate: inv.DueDate.UTC(), Reference: inv.Reference, CreatedAt: inv.CreatedAt.UTC(), PaidAt: inv.PaidAt, VoidedAt: inv.VoidedAt}
	_, err = s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// Invoice implements contract.BillingStore.
func (s *Store) Invoice(ctx context.Context, tenantID, id string) (contract.Invoice, error) {
	var row platformInvoiceRow
	q := s.conn(ctx).NewSelect().Model(&row)
	if tenantID != "" {
		q = database.ForTenant(q, tenantID)
	} else {
		q = database.AcrossTenants(q)
	}
	err := q.Where("id = ?", id).Scan(ctx)
	if err != nil {
		return contract.Invoice{}, invoiceNotFound(err)
	}
	return row.invoice()
}

// InvoiceForUpdate implements contract.BillingStore.
func (s *Store) InvoiceForUpdate(ctx context.Context, id string) (contract.Invoice, error) {
	db := s.conn(ctx)
	var row platformInvoiceRow
	q := database.AcrossTenants(db.NewSelect().Model(&row)).Where("id = ?", id)
	if database.IsPostgres(db) {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return contract.Invoice{}, invoiceNotFound(err)
	}
	return row.invoice()
}

// invoiceNotFound translates err, a missing row being
// contract.ErrInvoiceNotFound.
func invoiceNotFound(err error) error {
	err = translate(err)
	if errors.Is(err, tenancy.ErrNotFound) {
		return contract.ErrInvoiceNotFound
	}
	return err
}

// UpdateInvoice implements contract.BillingStore.
func (s *Store) UpdateInvoice(ctx context.Context, inv contract.Invoice, from contract.InvoiceStatus) error {
	res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model((*platformInvoiceRow)(nil)), inv.TenantID).
		Set("status = ?", string(inv.Status)).Set("amount_paid = ?", inv.AmountPaid).Set("reference = ?", inv.Reference).
		Set("paid_at = ?", inv.PaidAt).Set("voided_at = ?", inv.VoidedAt).
		Where("id = ?", inv.ID).Where("status = ?", string(from)).Exec(ctx)
	return affected(res, err, tenancy.ErrConflict)
}

// Invoices implements contract.BillingStore.
func (s *Store) Invoices(ctx context.Context, f contract.InvoiceFilter) ([]contract.Invoice, bool, error) {
	var rows []platformInvoiceRow
	q := s.conn(ctx).NewSelect().Model(&rows)
	if f.TenantID != "" {
		q = database.ForTenant(q, f.TenantID)
	} else {
		q = database.AcrossTenants(q)
	}
	if f.Status != "" {
		q = q.Where("status = ?", string(f.Status))
	}
	if f.Period != "" {
		start, err := time.Parse("2006-01", f.Period)
		if err != nil {
			return nil, false, err
		}
		q = q.Where("period_start = ?", start.UTC())
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(f.Limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, f.Limit, platformInvoiceRow.invoice)
}

// TenantsToBill implements contract.BillingStore.
func (s *Store) TenantsToBill(ctx context.Context, before time.Time, after string, limit int) ([]string, error) {
	var ids []string
	err := s.conn(ctx).NewSelect().Model((*tenantRow)(nil)).Column("id").
		Where("NOT test").Where("(billed_through IS NULL OR billed_through < ?)", before.UTC()).
		Where("id > ?", after).OrderExpr("id").Limit(int64(limit)).Scan(ctx, &ids)
	return ids, translate(err)
}

// OverdueInvoices implements contract.BillingStore.
func (s *Store) OverdueInvoices(ctx context.Context, tenantID string, now time.Time, limit int) ([]contract.Invoice, error) {
	var rows []platformInvoiceRow
	q := s.conn(ctx).NewSelect().Model(&rows).
		Where("status = ?", string(contract.InvoiceOpen)).Where("due_date < ?", now.UTC()).Where("overdue_at IS NULL")
	if tenantID != "" {
		q = database.ForTenant(q, tenantID)
	} else {
		q = database.AcrossTenants(q).Where("tenant_id IN (SELECT id FROM tenants WHERE NOT test)")
	}
	if err := q.OrderExpr("due_date, id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out, _, err := database.Page(rows, len(rows), platformInvoiceRow.invoice)
	return out, err
}

// MarkOverdue implements contract.BillingStore.
func (s *Store) MarkOverdue(ctx context.Context, tenantID, id string, at time.Time) (bool, error) {
	res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model((*platformInvoiceRow)(nil)), tenantID).
		Set("overdue_at = ?", at.UTC()).Where("id = ?", id).
		Where("status = ?", string(contract.InvoiceOpen)).Where("overdue_at IS NULL").Exec(ctx)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PastDue implements contract.BillingStore.
func (s *Store) PastDue(ctx context.Context, tenantID string, before time.Time) (bool, error) {
	ok, err := database.ForTenant(s.conn(ctx).NewSelect().Model((*platformInvoiceRow)(nil)), tenantID).
		Where("status = ?", string(contract.InvoiceOpen)).Where("due_date < ?", before.UTC()).Exists(ctx)
	return ok, translate(err)
}

// TestClock implements contract.BillingStore.
func (s *Store) TestClock(ctx context.Context, tenantID string) (bool, time.Time, error) {
	var row tenantRow
	err := s.conn(ctx).NewSelect().Model(&row).Column("test", "test_clock").Where("id = ?", tenantID).Scan(ctx)
	if err != nil {
		return false, time.Time{}, translate(err)
	}
	if !row.Test || row.TestClock == nil {
		return false, time.Time{}, nil
	}
	return true, row.TestClock.UTC(), nil
}

// SetTestClock implements contract.BillingStore.
func (s *Store) SetTestClock(ctx context.Context, tenantID string, t time.Time) error {
	res, err := s.conn(ctx).NewUpdate().Model((*tenantRow)(nil)).Set("test_clock = ?", t.UTC()).
		Where("id = ?", tenantID).Where("test").Exec(ctx)
	return affected(res, err, tenancy.ErrNotFound)
}
