package bunstore

import (
	"fmt"
	"time"

	segjson "github.com/segmentio/encoding/json"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
)

// invoiceRow is a row of the invoices table; toRow and invoice convert
// it from and to a billing.Invoice.
type invoiceRow struct {
	bun.BaseModel `bun:"table:invoices"`
	TenantID      string  `bun:"tenant_id,pk"`
	ID            string  `bun:"id,pk"`
	Number        *string `bun:"number"` // NULL: an unnumbered draft
	Status        string  `bun:"status"`
	CustomerName  string  `bun:"customer_name"`
	CustomerEmail string  `bun:"customer_email"`
	// CustomerID is NULL for an inline customer; CustomerAddress is JSON,
	// NULL for none.
	CustomerID      *string    `bun:"customer_id"`
	CustomerAddress *string    `bun:"customer_address"`
	CustomerTaxID   string     `bun:"customer_tax_id"`
	CustomerLocale  string     `bun:"customer_locale"`
	Currency        string     `bun:"currency"`
	LineItems       string     `bun:"line_items"`
	Subtotal        int64      `bun:"subtotal"`
	Tax             int64      `bun:"tax"`
	Total           int64      `bun:"total"`
	AmountPaid      int64      `bun:"amount_paid"`
	AmountDue       int64      `bun:"amount_due"`
	Received        int64      `bun:"received"`
	Refunded        int64      `bun:"refunded"`
	DueDate         *string    `bun:"due_date"`
	Memo            string     `bun:"memo"`
	Metadata        string     `bun:"metadata"`
	CreatedAt       time.Time  `bun:"created_at"`
	FinalizedAt     *time.Time `bun:"finalized_at"`
	PaidAt          *time.Time `bun:"paid_at"`

	Overdue bool `bun:"overdue"`
	// UncollectibleReason is "" unless the invoice is uncollectible.
	UncollectibleReason string `bun:"uncollectible_reason"`
}

// lineRow is how a line item is kept in the line_items JSON column; its
// own type so that the API's JSON can change without touching stored rows.
type lineRow struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	UnitAmount  int64  `json:"unit_amount"`
	TaxRateBps  int    `json:"tax_rate_bps"`
	Amount      int64  `json:"amount"`
}

// toRow encodes the line items and metadata with
// github.com/segmentio/encoding/json, as the HTTP API encodes its answers:
// encoding/json's bytes, written faster.
func toRow(inv billing.Invoice) (invoiceRow, error) {
	lines := make([]lineRow, len(inv.LineItems))
	for i, l := range inv.LineItems {
		lines[i] = lineRow(l)
	}
	lineJSON, err := segjson.Marshal(lines)
	if err != nil {
		return invoiceRow{}, fmt.Errorf("billing: encode line items: %w", err)
	}
	meta := inv.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	metaJSON, err := segjson.Marshal(meta)
	if err != nil {
		return invoiceRow{}, fmt.Errorf("billing: encode metadata: %w", err)
	}
	addr, err := encodeAddress(inv.Customer.Address)
	if err != nil {
		return invoiceRow{}, err
	}
	row := invoiceRow{
		CustomerID: inv.CustomerID, CustomerAddress: addr,
		CustomerTaxID: inv.Customer.TaxID, CustomerLocale: inv.Customer.Locale,
		TenantID: inv.TenantID, ID: inv.ID, Status: string(inv.Status),
		CustomerName: inv.Customer.Name, CustomerEmail: inv.Customer.Email, Currency: inv.Currency,
		LineItems: string(lineJSON), Subtotal: inv.Subtotal, Tax: inv.Tax, Total: inv.Total,
		AmountPaid: inv.AmountPaid, AmountDue: inv.AmountDue, Received: inv.Received, Refunded: inv.Refunded,
		Memo: inv.Memo, Metadata: string(metaJSON), CreatedAt: inv.CreatedAt,
		FinalizedAt: inv.FinalizedAt, PaidAt: inv.PaidAt,
		Overdue: inv.Overdue, UncollectibleReason: string(inv.UncollectibleReason),
	}
	if inv.DueDate != "" {
		row.DueDate = &inv.DueDate
	}
	if inv.Number != "" {
		row.Number = &inv.Number
	}
	return row, nil
}

// invoice decodes the stored line items and metadata with
// github.com/segmentio/encoding/json, several times faster than
// encoding/json on every invoice a list, get or change reads
// (BenchmarkInvoiceRow).
func (r invoiceRow) invoice() (billing.Invoice, error) {
	var lines []lineRow
	if err := segjson.Unmarshal([]byte(r.LineItems), &lines); err != nil {
		return billing.Invoice{}, fmt.Errorf("billing: decode line items of %s: %w", r.ID, err)
	}
	meta := map[string]string{}
	if err := segjson.Unmarshal([]byte(r.Metadata), &meta); err != nil {
		return billing.Invoice{}, fmt.Errorf("billing: decode metadata of %s: %w", r.ID, err)
	}
	if meta == nil { // a stored "null"
		meta = map[string]string{}
	}
	addr, err := decodeAddress(r.CustomerAddress)
	if err != nil {
		return billing.Invoice{}, fmt.Errorf("billing: customer of %s: %w", r.ID, err)
	}
	inv := billing.Invoice{
		ID: r.ID, TenantID: r.TenantID, Status: billing.Status(r.Status),
		CustomerID: r.CustomerID,
		Customer: billing.Customer{Name: r.CustomerName, Email: r.CustomerEmail,
			Address: addr, TaxID: r.CustomerTaxID, Locale: r.CustomerLocale},
		Currency:  r.Currency,
		LineItems: make([]billing.LineItem, len(lines)), Subtotal: r.Subtotal, Tax: r.Tax, Total: r.Total,
		AmountPaid: r.AmountPaid, AmountDue: r.AmountDue, Received: r.Received, Refunded: r.Refunded,
		Memo: r.Memo, Metadata: meta, CreatedAt: r.CreatedAt.UTC(),
		FinalizedAt: utc(r.FinalizedAt), PaidAt: utc(r.PaidAt),
		Overdue: r.Overdue, UncollectibleReason: billing.UncollectibleReason(r.UncollectibleReason),
	}
	for i, l := range lines {
		inv.LineItems[i] = billing.LineItem(l)
	}
	if r.DueDate != nil {
		inv.DueDate = *r.DueDate
	}
	if r.Number != nil {
		inv.Number = *r.Number
	}
	return inv, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
