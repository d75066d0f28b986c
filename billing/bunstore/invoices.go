package bunstore

import (
	"context"
	"maps"
	"slices"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

// paymentColumns are the columns a payment, a refund or a change of
// status writes (UpdateInvoice).
var paymentColumns = []string{"status", "amount_paid", "amount_due", "received", "refunded",
	"finalized_at", "paid_at", "overdue", "uncollectible_reason"}

// savedColumns are the columns a draft's edit or its finalization writes
// (SaveInvoice): all but the keys, currency, created_at and the dunning
// state.
var savedColumns = []string{"number", "status", "customer_name", "customer_email",
	"customer_address", "customer_tax_id", "customer_locale", "line_items",
	"subtotal", "tax", "total", "amount_paid", "amount_due", "received", "refunded",
	"due_date", "memo", "metadata", "finalized_at", "paid_at"}

// CreateInvoice implements billing.Store. The row's foreign key to tenants
// makes an invoice for an unknown tenant fail, which translate makes
// ErrNotFound.
func (s *Store) CreateInvoice(ctx context.Context, inv billing.Invoice) error {
	r, err := toRow(inv)
	if err != nil {
		return err
	}
	// Returning("NULL"): nothing to read back (Bun would ask for the
	// columns it wrote as DEFAULT).
	_, err = s.conn(ctx).NewInsert().Model(&r).Returning("NULL").Exec(ctx)
	return translate(err)
}

// Invoice implements billing.Store.
func (s *Store) Invoice(ctx context.Context, tenantID, id string) (billing.Invoice, error) {
	return s.get(ctx, tenantID, id, false)
}

// InvoiceForUpdate implements billing.Store. SQLite has no FOR UPDATE: its
// transactions hold the database's write lock from their start
// (database.Open), which serialises them just the same.
func (s *Store) InvoiceForUpdate(ctx context.Context, tenantID, id string) (billing.Invoice, error) {
	return s.get(ctx, tenantID, id, true)
}

func (s *Store) get(ctx context.Context, tenantID, id string, lock bool) (billing.Invoice, error) {
	var row invoiceRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), tenantID).Where("id = ?", id)
	if lock && database.IsPostgres(s.db) {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return billing.Invoice{}, translate(err)
	}
	return row.invoice()
}

// UpdateInvoice implements billing.Store.
func (s *Store) UpdateInvoice(ctx context.Context, inv billing.Invoice) error {
	r := invoiceRow{
		Status: string(inv.Status), AmountPaid: inv.AmountPaid, AmountDue: inv.AmountDue,
		Received: inv.Received, Refunded: inv.Refunded, FinalizedAt: inv.FinalizedAt, PaidAt: inv.PaidAt,
		Overdue: inv.Overdue, UncollectibleReason: string(inv.UncollectibleReason),
	}
	res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model(&r), inv.TenantID).
		Column(paymentColumns...).
		Where("id = ?", inv.ID).
		Exec(ctx)
	return affected(res, err)
}

// ListInvoices implements billing.Store. The filters are equalities on columns
// that follow tenant_id in an index, and the order is the index's id.
func (s *Store) ListInvoices(ctx context.Context, tenantID string, f billing.ListFilter) ([]billing.Invoice, bool, error) {
	limit := f.Limit
	if limit < 1 {
		limit = billing.DefaultListLimit
	}
	rows := make([]invoiceRow, 0, limit+1)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID)
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.CustomerEmail != "" {
		q = q.Where("customer_email = ?", f.CustomerEmail)
	}
	if f.CustomerID != "" {
		q = q.Where("customer_id = ?", f.CustomerID)
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, invoiceRow.invoice)
}

// InvoiceTenant implements billing.Store. It spans tenants: its caller (a
// payment provider's webhook) does not know the tenant yet.
func (s *Store) InvoiceTenant(ctx context.Context, id string) (string, error) {
	var tenantID string
	err := database.AcrossTenants(s.conn(ctx).NewSelect()).Model((*invoiceRow)(nil)).
		Column("tenant_id").
		Where("id = ?", id).
		Limit(1).
		Scan(ctx, &tenantID)
	if err != nil {
		return "", translate(err)
	}
	return tenantID, nil
}

// UpdateInvoiceByID implements billing.Store: SELECT … FOR UPDATE by id
// across tenants (on SQLite the transaction's write lock serialises it
// instead), then UpdateInvoice, on the caller's transaction or, without
// one, on a transaction of its own.
func (s *Store) UpdateInvoiceByID(ctx context.Context, id string, change func(*billing.Invoice) error) (billing.Invoice, error) {
	var out billing.Invoice
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		var row invoiceRow
		q := database.AcrossTenants(s.conn(ctx).NewSelect()).Model(&row).Where("id = ?", id).Limit(1)
		if database.IsPostgres(s.db) {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return translate(err)
		}
		loaded, err := row.invoice()
		if err != nil {
			return err
		}
		inv := loaded
		inv.LineItems, inv.Metadata = slices.Clone(loaded.LineItems), maps.Clone(loaded.Metadata)
		if err := change(&inv); err != nil {
			return err
		}
		// The row as loaded with the fields UpdateInvoice writes taken from
		// change's copy: what the row holds once written, whatever else
		// change did to its copy.
		loaded.Status, loaded.AmountPaid, loaded.AmountDue = inv.Status, inv.AmountPaid, inv.AmountDue
		loaded.Received, loaded.Refunded = inv.Received, inv.Refunded
		loaded.FinalizedAt, loaded.PaidAt = inv.FinalizedAt, inv.PaidAt
		loaded.Overdue, loaded.UncollectibleReason = inv.Overdue, inv.UncollectibleReason
		if err := s.UpdateInvoice(ctx, loaded); err != nil {
			return err
		}
		out = loaded
		return nil
	})
	return out, err
}

// SaveInvoice implements billing.Store: one UPDATE of every column a draft's
// edit or its finalization may change.
func (s *Store) SaveInvoice(ctx context.Context, inv billing.Invoice) error {
	r, err := toRow(inv)
	if err != nil {
		return err
	}
	res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model(&r), inv.TenantID).
		Column(savedColumns...).
		Where("id = ?", inv.ID).
		Exec(ctx)
	return affected(res, err)
}

// DeleteInvoice implements billing.Store.
func (s *Store) DeleteInvoice(ctx context.Context, tenantID, id string) error {
	res, err := database.ForTenant(s.conn(ctx).NewDelete().Model((*invoiceRow)(nil)), tenantID).
		Where("id = ?", id).
		Exec(ctx)
	return affected(res, err)
}
