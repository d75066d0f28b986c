package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

var _ billing.PaymentStore = (*Store)(nil)

// paymentRow is a row of invoice_payments, an entry of an invoice's
// ledger.
type paymentRow struct {
	bun.BaseModel `bun:"table:invoice_payments"`
	TenantID      string    `bun:"tenant_id,pk"`
	ID            string    `bun:"id,pk"`
	InvoiceID     string    `bun:"invoice_id"`
	Kind          string    `bun:"kind"`
	Amount        int64     `bun:"amount"`
	Currency      string    `bun:"currency"`
	Source        string    `bun:"source"`
	Method        string    `bun:"method"`
	Reference     string    `bun:"reference"`
	EventID       string    `bun:"event_id"`
	ReceivedAt    time.Time `bun:"received_at"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r paymentRow) payment() (billing.Payment, error) {
	return billing.Payment{
		ID: r.ID, TenantID: r.TenantID, InvoiceID: r.InvoiceID, Kind: billing.PaymentKind(r.Kind),
		Amount: r.Amount, Currency: r.Currency, Source: billing.PaymentSource(r.Source),
		Method: r.Method, Reference: r.Reference, EventID: r.EventID,
		ReceivedAt: r.ReceivedAt.UTC(), CreatedAt: r.CreatedAt.UTC(),
	}, nil
}

// AddPayment implements billing.PaymentStore. The row's foreign key on
// (tenant_id, invoice_id) makes an entry for another tenant's invoice
// fail, which translate makes ErrNotFound.
func (s *Store) AddPayment(ctx context.Context, p billing.Payment) error {
	row := paymentRow{
		TenantID: p.TenantID, ID: p.ID, InvoiceID: p.InvoiceID, Kind: string(p.Kind), Amount: p.Amount,
		Currency: p.Currency, Source: string(p.Source), Method: p.Method, Reference: p.Reference,
		EventID: p.EventID, ReceivedAt: p.ReceivedAt, CreatedAt: p.CreatedAt,
	}
	_, err := s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// ListPayments implements billing.PaymentStore on the index
// (tenant_id, invoice_id, id), read backwards.
func (s *Store) ListPayments(ctx context.Context, tenantID, invoiceID string, f billing.PaymentFilter) ([]billing.Payment, bool, error) {
	limit := f.Limit
	if limit < 1 {
		limit = billing.DefaultListLimit
	}
	rows := make([]paymentRow, 0, limit+1)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).Where("invoice_id = ?", invoiceID)
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, paymentRow.payment)
}
