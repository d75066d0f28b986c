package billing

import (
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/internal/text"
)

// Bounds of the other fields of CreateInvoiceInput. Lengths count
// characters (Unicode code points), as the validate tags do.
const (
	// MaxCustomerNameLen is the longest customer name.
	MaxCustomerNameLen = 200
	// MaxEmailLen is the longest customer email (RFC 5321's path limit).
	MaxEmailLen = 254
	// MaxMemoLen is the longest memo.
	MaxMemoLen = 2000
	// MaxMetadataKeys is the most metadata entries an invoice may carry.
	MaxMetadataKeys = 50
	// MaxMetadataKeyLen is the longest metadata key (the shortest is 1).
	MaxMetadataKeyLen = 40
	// MaxMetadataValueLen is the longest metadata value.
	MaxMetadataValueLen = 500
	// DateLayout is the layout of DueDate: a calendar date, "YYYY-MM-DD".
	DateLayout = "2006-01-02"
)

// CreateInvoiceInput is what Create needs: the request body of
// POST /api/v1/collections/invoices, decoded as is. The validate tags let
// the HTTP edge refuse the obviously wrong early with the same field paths;
// Create validates everything again itself, so library callers get the
// same answers without the tags.
type CreateInvoiceInput struct {
	Customer CustomerInput `json:"customer"`
	// Currency is an upper-case ISO 4217 code in use today (LookupCurrency).
	Currency string `json:"currency" validate:"required"`
	// LineItems holds 1..MaxLineItems lines.
	LineItems []LineItemInput `json:"line_items" validate:"required,min=1,max=100,dive"`
	// Status is "draft" or "open"; empty means "open". Creating an invoice
	// open finalizes it at once (finalized_at is set).
	Status string `json:"status,omitempty" validate:"omitempty,oneof=draft open"`
	// DueDate is a calendar date "YYYY-MM-DD" (DateLayout), or empty.
	DueDate string `json:"due_date,omitempty" validate:"omitempty,datetime=2006-01-02"`
	// Memo is free text for the customer, up to MaxMemoLen characters.
	Memo string `json:"memo,omitempty" validate:"max=2000"`
	// Metadata is the tenant's own data: at most MaxMetadataKeys entries,
	// keys of 1..MaxMetadataKeyLen characters, values of at most
	// MaxMetadataValueLen.
	Metadata map[string]string `json:"metadata,omitempty" validate:"max=50,dive,keys,min=1,max=40,endkeys,max=500"`
}

// CustomerInput is the customer of CreateInvoiceInput.
type CustomerInput struct {
	// Name is 1..MaxCustomerNameLen characters.
	Name string `json:"name" validate:"required,max=200"`
	// Email is a plain address ("ada@example.com"), stored lower-case.
	Email string `json:"email" validate:"required,max=254,email"`
}

// invoiceDraft is a validated CreateInvoiceInput with its computed lines
// and sums, ready to be numbered and stored.
type invoiceDraft struct {
	customer             Customer
	currency             string
	lines                []LineItem
	subtotal, tax, total int64
	status               Status
	dueDate, memo        string
	metadata             map[string]string
}

// validateCreate checks every field of in and computes the invoice's
// amounts. Whatever is wrong is reported at once, as an *InvalidError.
func validateCreate(in CreateInvoiceInput) (invoiceDraft, error) {
	f := fieldErrors{}
	var d invoiceDraft

	name, msg := text.Clean(in.Customer.Name, 1, MaxCustomerNameLen)
	if msg != "" {
		f.add("customer.name", "%s", msg)
	}
	email, msg := normalizeEmail(in.Customer.Email)
	if msg != "" {
		f.add("customer.email", "%s", msg)
	}
	d.customer = Customer{Name: name, Email: email}

	if _, err := LookupCurrency(in.Currency); err != nil {
		f.merge(err)
	}
	d.currency = in.Currency
	d.lines, d.subtotal, d.tax, d.total = computeTotals(f, in.LineItems)

	switch Status(in.Status) {
	case "", StatusOpen:
		d.status = StatusOpen
	case StatusDraft:
		d.status = StatusDraft
	default:
		f.add("status", "must be one of: draft, open")
	}
	if in.DueDate != "" {
		if t, err := time.Parse(DateLayout, in.DueDate); err != nil || t.Format(DateLayout) != in.DueDate {
			f.add("due_date", "must be a date in the layout YYYY-MM-DD")
		}
	}
	d.dueDate = in.DueDate
	if msg := text.Check(in.Memo, 0, MaxMemoLen); msg != "" {
		f.add("memo", "%s", msg)
	}
	d.memo = in.Memo
	d.metadata = make(map[string]string, len(in.Metadata))
	if msg := checkMetadata(in.Metadata); msg != "" {
		f.add("metadata", "%s", msg)
	}
	for k, v := range in.Metadata {
		d.metadata[k] = v
	}
	if err := f.err(); err != nil {
		return invoiceDraft{}, err
	}
	return d, nil
}

// checkMetadata returns what is wrong with m, or "".
func checkMetadata(m map[string]string) string {
	if len(m) > MaxMetadataKeys {
		return fmt.Sprintf("must have at most %d keys", MaxMetadataKeys)
	}
	for k, v := range m {
		if msg := text.Check(k, 1, MaxMetadataKeyLen); msg != "" {
			return fmt.Sprintf("key %q: %s", text.Truncate(k, MaxMetadataKeyLen), msg)
		}
		if msg := text.Check(v, 0, MaxMetadataValueLen); msg != "" {
			return fmt.Sprintf("value of %q: %s", k, msg)
		}
	}
	return ""
}

// normalizeEmail trims and lower-cases an address and checks that it is a
// plain one (no display name, no angle brackets). It returns what is wrong,
// or "".
func normalizeEmail(s string) (string, string) {
	email := strings.ToLower(strings.TrimSpace(s))
	if msg := text.Check(email, 1, MaxEmailLen); msg != "" {
		return "", msg
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email {
		return "", "must be a valid email address"
	}
	return email, ""
}
