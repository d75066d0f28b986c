package billing

import (
	"maps"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/field"
)

// Bounds of the other fields of CreateInvoiceInput. Lengths count
// characters (Unicode code points).
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
// POST /api/v1/collections/invoices, decoded as is. Create checks every
// field (validateCreate is the one place its rules live) and answers an
// *InvalidError naming each field by its JSON path.
type CreateInvoiceInput struct {
	Customer CustomerInput `json:"customer"`
	// Currency is an upper-case ISO 4217 code in use today (LookupCurrency).
	Currency string `json:"currency"`
	// LineItems holds 1..MaxLineItems lines.
	LineItems []LineItemInput `json:"line_items"`
	// Status is "draft" or "open"; empty means "open". Creating an invoice
	// open finalizes it at once (finalized_at is set).
	Status string `json:"status,omitempty"`
	// DueDate is a calendar date "YYYY-MM-DD" (DateLayout), or empty.
	DueDate string `json:"due_date,omitempty"`
	// Memo is free text for the customer, up to MaxMemoLen characters.
	Memo string `json:"memo,omitempty"`
	// Metadata is the tenant's own data: at most MaxMetadataKeys entries,
	// keys of 1..MaxMetadataKeyLen characters, values of at most
	// MaxMetadataValueLen.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// CustomerInput is the customer of CreateInvoiceInput.
type CustomerInput struct {
	// Name is 1..MaxCustomerNameLen characters once trimmed.
	Name string `json:"name"`
	// Email is a plain address ("ada@example.com") of at most MaxEmailLen
	// characters, stored lower-case.
	Email string `json:"email"`
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
	f := field.Errors{}
	var d invoiceDraft

	name := strings.TrimSpace(in.Customer.Name)
	f.Text("customer.name", name, true, MaxCustomerNameLen)
	email, code, msg := normalizeEmail(in.Customer.Email)
	if msg != "" {
		f.Add("customer.email", code, msg)
	}
	d.customer = Customer{Name: name, Email: email}

	checkCurrency(f, in.Currency)
	d.currency = in.Currency
	d.lines, d.subtotal, d.tax, d.total = computeTotals(f, in.LineItems)

	switch Status(in.Status) {
	case "", StatusOpen:
		d.status = StatusOpen
	case StatusDraft:
		d.status = StatusDraft
	default:
		f.OneOf("status", string(StatusDraft), string(StatusOpen))
	}
	if in.DueDate != "" {
		if t, err := time.Parse(DateLayout, in.DueDate); err != nil || t.Format(DateLayout) != in.DueDate {
			f.Add("due_date", field.Invalid, "must be a date in the layout YYYY-MM-DD")
		}
	}
	d.dueDate = in.DueDate
	f.Text("memo", in.Memo, false, MaxMemoLen)
	d.memo = in.Memo
	checkMetadata(f, in.Metadata)
	d.metadata = maps.Clone(in.Metadata)
	if d.metadata == nil {
		d.metadata = map[string]string{}
	}
	if err := f.Err(); err != nil {
		return invoiceDraft{}, err
	}
	return d, nil
}

// checkCurrency records in f what is wrong with the currency code s.
func checkCurrency(f field.Errors, s string) {
	if s == "" {
		f.Required("currency")
		return
	}
	if _, err := LookupCurrency(s); err != nil {
		f.Merge(err)
	}
}

// checkMetadata records in f, under "metadata", the first thing wrong with
// m: too many keys, or a key or value (in key order) that is not text of
// the right length.
func checkMetadata(f field.Errors, m map[string]string) {
	if len(m) > MaxMetadataKeys {
		f.Addf("metadata", field.TooMany, "must have at most %d keys", MaxMetadataKeys)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if code, msg := field.Text(k, true, MaxMetadataKeyLen); code != "" {
			f.Addf("metadata", code, "key %q: %s", field.Truncate(k, MaxMetadataKeyLen), msg)
			return
		}
		if code, msg := field.Text(m[k], false, MaxMetadataValueLen); code != "" {
			f.Addf("metadata", code, "value of %q: %s", k, msg)
			return
		}
	}
}

// normalizeEmail trims and lower-cases an address and checks that it is a
// plain one (no display name, no angle brackets). It returns the code and
// message of what is wrong, or "", "".
func normalizeEmail(s string) (email, code, msg string) {
	email = strings.ToLower(strings.TrimSpace(s))
	if code, msg := field.Text(email, true, MaxEmailLen); code != "" {
		return "", code, msg
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email {
		return "", field.Invalid, "must be a valid email address"
	}
	return email, "", ""
}
