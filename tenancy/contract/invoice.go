package contract

import (
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// InvoiceStatus is where a platform invoice stands:
//
//	open → paid | void | uncollectible
type InvoiceStatus string

// The statuses of a platform invoice.
const (
	InvoiceOpen          InvoiceStatus = "open"
	InvoicePaid          InvoiceStatus = "paid"
	InvoiceVoid          InvoiceStatus = "void"
	InvoiceUncollectible InvoiceStatus = "uncollectible"
)

// Valid reports whether s is one of the statuses.
func (s InvoiceStatus) Valid() bool {
	switch s {
	case InvoiceOpen, InvoicePaid, InvoiceVoid, InvoiceUncollectible:
		return true
	}
	return false
}

// DefaultPaymentTerms is how long after its period's end a platform
// invoice is due when the plan names no payment terms.
const DefaultPaymentTerms = 14 * 24 * time.Hour

// Invoice is the platform's invoice to a tenant for one billing period
// ("pin_…"), generated at the period's end, in arrears, from the same
// computation as the preview: the preview taken in the period's last
// second equals it line for line. Amounts are minor units of Currency.
type Invoice struct {
	ID string `json:"id"`
	// Number is platform-wide and gapless: 1, 2, 3, … in the order the
	// invoices were generated.
	Number   int64  `json:"number"`
	TenantID string `json:"tenant_id"`
	// PeriodStart and PeriodEnd bound the period invoiced, end exclusive.
	PeriodStart time.Time     `json:"period_start"`
	PeriodEnd   time.Time     `json:"period_end"`
	Currency    string        `json:"currency"`
	Lines       []PreviewLine `json:"lines"`
	Subtotal    int64         `json:"subtotal"`
	Total       int64         `json:"total"`
	AmountPaid  int64         `json:"amount_paid"`
	// AmountDue is Total - AmountPaid while open, 0 otherwise.
	AmountDue int64         `json:"amount_due"`
	Status    InvoiceStatus `json:"status"`
	// DueDate is the period's end plus the payment terms.
	DueDate time.Time `json:"due_date"`
	// Reference is what an operator gave marking it paid, or the
	// provider's payment id.
	Reference string     `json:"reference,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	PaidAt    *time.Time `json:"paid_at"`
	VoidedAt  *time.Time `json:"voided_at,omitempty"`
}

// settle sets AmountDue from the status, the total and what was paid.
func (inv *Invoice) settle() {
	inv.AmountDue = 0
	if inv.Status == InvoiceOpen {
		inv.AmountDue = max(inv.Total-inv.AmountPaid, 0)
	}
}

// Errors of platform invoices.
var (
	// ErrInvoiceNotFound: no platform invoice with that id, or another
	// tenant's.
	ErrInvoiceNotFound error = &kindError{msg: "platform invoice not found", kind: tenancy.ErrNotFound}
)

// InvoiceStatusError refuses a change of a platform invoice that its
// status does not allow (voiding a paid one).
type InvoiceStatusError struct {
	InvoiceID string
	Status    InvoiceStatus
	Action    string
}

func (e *InvoiceStatusError) Error() string {
	return fmt.Sprintf("platform invoice %s is %s, cannot %s", e.InvoiceID, e.Status, e.Action)
}

// Detail is the sentence for the client, which knows the id.
func (e *InvoiceStatusError) Detail() string {
	return fmt.Sprintf("platform invoice is %s, cannot %s", e.Status, e.Action)
}

// Is makes the error a tenancy.ErrConflict.
func (e *InvoiceStatusError) Is(target error) bool { return target == tenancy.ErrConflict }
