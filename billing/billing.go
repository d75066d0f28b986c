// Package billing is the tenant's receivables: invoices to its own
// customers, with exact money, gapless per-tenant numbers, a guarded
// lifecycle and the payments and refunds a payment provider reports.
//
// Money is integer minor units of an ISO 4217 currency (1999 USD is
// $19.99, 1999 JPY is ¥1999, 1999 KWD is 1.999 KD). The server computes
// every amount of an invoice from its lines: a line's amount is
// quantity × unit_amount, its tax is amount × tax_rate_bps / 10000
// rounded half away from zero, and the invoice sums them (ComputeTotals).
//
// Lifecycle (CanTransition):
//
//	draft → open → paid
//	open  → void | uncollectible
//	paid  → open   (only when a refund leaves something due again)
//
// Only a draft can be edited (Service.Update) or deleted (Service.Delete).
//
// An invoice gets its number (INV-000042) when it is finalized: created
// open, or a draft finalized later. Drafts are unnumbered, so that one can
// be edited and deleted without leaving a gap. The number comes from a
// per-tenant counter advanced in the same transaction as the write that
// opens the invoice: a rolled-back create or finalize gives its number
// back, so numbers are gapless and never shared. (Drafts created before
// this rule keep the number they were given; such a draft can be edited
// and finalized, but not deleted.)
//
// A tenant may keep its customers on record (CustomerRecord, "cus_…") and
// name one by customer_id on an invoice: a draft shows the customer's
// current details, and finalizing copies them onto the invoice, which keeps
// them. CustomerStore is their persistence.
//
// Service holds the rules of invoices and their lifecycle, Ledger those of
// the money: the payments and refunds applied to an invoice, each kept as
// an entry of the invoice's ledger in the same transaction as the running
// sums. Store and PaymentStore are the persistence they need, and package
// bunstore implements both on Postgres and SQLite. Nothing here knows
// about HTTP.
package billing

import "time"

// Status is where an invoice is in its lifecycle.
type Status string

// The invoice statuses.
const (
	// StatusDraft: being prepared; not yet owed, cannot take payments.
	StatusDraft Status = "draft"
	// StatusOpen: finalized and awaiting payment (amount_due > 0).
	StatusOpen Status = "open"
	// StatusPaid: nothing is due any more.
	StatusPaid Status = "paid"
	// StatusVoid: cancelled by the tenant; nothing is owed.
	StatusVoid Status = "void"
	// StatusUncollectible: written off by the tenant as a bad debt.
	StatusUncollectible Status = "uncollectible"
)

// Statuses lists every status in lifecycle order.
func Statuses() []Status {
	return []Status{StatusDraft, StatusOpen, StatusPaid, StatusVoid, StatusUncollectible}
}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusDraft, StatusOpen, StatusPaid, StatusVoid, StatusUncollectible:
		return true
	}
	return false
}

// Invoice is a tenant's bill to one of its customers. Every amount is in
// minor units of Currency and computed by the server.
type Invoice struct {
	// ID is "inv_" + a ULID; ids sort by creation time.
	ID string `json:"id"`
	// TenantID is the tenant that issued the invoice. It is implied by the
	// request and never serialised.
	TenantID string `json:"-"`
	// Number is the tenant's human-readable, gapless number: "INV-000042";
	// "" (omitted) on a draft, which is numbered when it is finalized.
	Number string `json:"number,omitempty"`
	Status Status `json:"status"`
	// CustomerID is the customer on record the invoice names ("cus_…"),
	// nil (null) for an inline customer. While the invoice is a draft its
	// Customer is the customer's current details; finalizing copies them.
	CustomerID *string  `json:"customer_id"`
	Customer   Customer `json:"customer"`
	// Currency is an upper-case ISO 4217 code ("USD").
	Currency  string     `json:"currency"`
	LineItems []LineItem `json:"line_items"`
	// Subtotal is the sum of the line amounts.
	Subtotal int64 `json:"subtotal"`
	// Tax is the sum of the per-line taxes, each rounded half away from zero.
	Tax int64 `json:"tax"`
	// Total is Subtotal + Tax.
	Total int64 `json:"total"`
	// AmountPaid is what the customer has paid, net of refunds:
	// max(0, Received − Refunded).
	AmountPaid int64 `json:"amount_paid"`
	// AmountDue is what remains to be paid: max(0, Total − AmountPaid),
	// and 0 on a void invoice.
	AmountDue int64 `json:"amount_due"`
	// DueDate is a calendar date "YYYY-MM-DD", or "" (omitted) when unset.
	DueDate string `json:"due_date,omitempty"`
	Memo    string `json:"memo"`
	// Metadata is the tenant's own bounded key/value data; never nil.
	Metadata    map[string]string `json:"metadata"`
	CreatedAt   time.Time         `json:"created_at"`
	FinalizedAt *time.Time        `json:"finalized_at"`
	PaidAt      *time.Time        `json:"paid_at"`

	// Overdue is true while the invoice is open and its due date has
	// passed: from 00:00 UTC on the day after DueDate (OverdueFrom). The
	// collection schedule sets it when the invoice becomes overdue (see
	// Dunning), and every change of the invoice recomputes it, so it turns
	// false once the invoice is paid, void or uncollectible.
	Overdue bool `json:"overdue"`
	// UncollectibleReason says who wrote an uncollectible invoice off:
	// ReasonManual (the tenant) or ReasonDunning (the dunning schedule).
	// "" (omitted) in every other status.
	UncollectibleReason UncollectibleReason `json:"uncollectible_reason,omitempty"`

	// Received is the gross sum of every payment applied. It is kept apart
	// from Refunded so that the outcome does not depend on the order in
	// which a provider's events arrive (see Service.ApplyRefund).
	Received int64 `json:"-"`
	// Refunded is the gross sum of every refund applied.
	Refunded int64 `json:"-"`
}

// Customer is who an invoice is addressed to: the details of its
// customer on record (CustomerRecord), or those sent inline.
type Customer struct {
	Name string `json:"name"`
	// Email is stored lower-case, which is also how ListFilter matches it.
	Email string `json:"email"`
	// Address, TaxID and Locale come from a customer on record; omitted
	// when empty (an inline customer has only its Locale, DefaultLocale).
	Address *Address `json:"address,omitempty"`
	TaxID   string   `json:"tax_id,omitempty"`
	Locale  string   `json:"locale,omitempty"`
}

// LineItem is one line of an invoice.
type LineItem struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	// UnitAmount is the price of one unit, in minor units.
	UnitAmount int64 `json:"unit_amount"`
	// TaxRateBps is the tax rate in basis points: 825 is 8.25 %.
	TaxRateBps int `json:"tax_rate_bps"`
	// Amount is Quantity × UnitAmount, before tax. The line's tax,
	// Amount × TaxRateBps / 10000 rounded half away from zero, is counted
	// in the invoice's Tax.
	Amount int64 `json:"amount"`
}
