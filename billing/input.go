package billing

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/field"
)

// Bounds of the fields of CreateInvoiceInput, as its validate tags state
// them (TestCreateAcceptsBounds holds the two equal). Lengths count
// characters (Unicode code points).
const (
	// MaxCustomerNameLen is the longest customer name.
	MaxCustomerNameLen = 200
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
// POST /api/v1/collections/invoices, decoded as is. Its validate tags are
// its rules (package field); Create checks them on the input normalised
// (normalize) and answers an *InvalidError naming each field by its JSON
// path. What no tag can say — that the amounts stay within MaxAmount — is
// checked after.
type CreateInvoiceInput struct {
	// CustomerID names one of the tenant's customers on record, not
	// archived; exactly one of CustomerID and Customer is sent.
	CustomerID string `json:"customer_id,omitempty" validate:"omitempty,id=cus"`
	// Customer is an inline customer (left out, the zero CustomerInput,
	// with CustomerID).
	Customer CustomerInput `json:"customer" validate:"omitempty"`
	// Currency is an upper-case ISO 4217 code in use today (LookupCurrency).
	Currency string `json:"currency" validate:"required,currency"`
	// LineItems holds 1..MaxLineItems lines.
	LineItems []LineItemInput `json:"line_items" validate:"required,min=1,max=100,dive"`
	// Status is "draft" or "open"; empty means "open". Creating an invoice
	// open finalizes it at once (finalized_at is set).
	Status string `json:"status,omitempty" validate:"omitempty,oneof=draft open"`
	// DueDate is a calendar date "YYYY-MM-DD" (DateLayout), or empty.
	DueDate string `json:"due_date,omitempty" validate:"omitempty,datetime=2006-01-02"`
	// Memo is free text for the customer, up to MaxMemoLen characters.
	Memo string `json:"memo,omitempty" validate:"max=2000,text"`
	// Metadata is the tenant's own data: at most MaxMetadataKeys entries,
	// keys of 1..MaxMetadataKeyLen characters, values of at most
	// MaxMetadataValueLen.
	Metadata map[string]string `json:"metadata,omitempty" validate:"max=50,dive,keys,required,max=40,text,endkeys,max=500,text"`
}

// CustomerInput is the customer of CreateInvoiceInput.
type CustomerInput struct {
	// Name is 1..MaxCustomerNameLen characters once trimmed.
	Name string `json:"name" validate:"required,max=200,text"`
	// Email is a plain address ("ada@example.com") of at most 254
	// characters (RFC 5321's path limit), stored trimmed and lower-case.
	Email string `json:"email" validate:"required,max=254,email"`
}

// normalize returns a copy of in as it is checked and stored: the
// customer's name and the lines' descriptions trimmed, the email trimmed
// and lower-cased.
func (in CreateInvoiceInput) normalize() CreateInvoiceInput {
	in.Customer.Name = strings.TrimSpace(in.Customer.Name)
	in.Customer.Email = strings.ToLower(strings.TrimSpace(in.Customer.Email))
	in.LineItems = slices.Clone(in.LineItems)
	for i := range in.LineItems {
		in.LineItems[i].Description = strings.TrimSpace(in.LineItems[i].Description)
	}
	return in
}

// draft checks in, normalised, and returns the invoice it describes with
// its lines and amounts computed: not yet numbered, stored or settled.
// Whatever is wrong is reported at once, as an *InvalidError.
func (in CreateInvoiceInput) draft() (Invoice, error) {
	in = in.normalize()
	fe := field.Errors{}
	if in.CustomerID == "" && in.Customer == (CustomerInput{}) {
		// No customer at all: reported as before customers on record, on
		// the inline customer's members.
		fe.Add("customer.name", field.Required, "is required")
		fe.Add("customer.email", field.Required, "is required")
	}
	fe.Merge(field.Check(in))
	if err := fe.Err(); err != nil {
		return Invoice{}, err
	}
	lines, subtotal, tax, total, err := computeTotals(in.LineItems)
	if err != nil {
		return Invoice{}, err
	}
	metadata := maps.Clone(in.Metadata)
	if metadata == nil {
		metadata = map[string]string{}
	}
	return Invoice{Status: StatusDraft, Customer: Customer{Name: in.Customer.Name, Email: in.Customer.Email, Locale: DefaultLocale}, Currency: in.Currency,
		LineItems: lines, Subtotal: subtotal, Tax: tax, Total: total,
		DueDate: in.DueDate, Memo: in.Memo, Metadata: metadata}, nil
}

// onlyOn keeps of err's field errors those on paths or below them
// ("line_items" keeps "line_items[2].quantity", "address" keeps
// "address.country"), for an input checked whole of which only those
// members count. Any other error is kept.
func onlyOn(paths []string, err error) error {
	var ie *InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	f := field.Errors{}
	for _, fe := range ie.Errors() {
		for _, p := range paths {
			if fe.Field == p || strings.HasPrefix(fe.Field, p+"[") || strings.HasPrefix(fe.Field, p+".") {
				f.Add(fe.Field, fe.Code, fe.Message)
			}
		}
	}
	return f.Err()
}
