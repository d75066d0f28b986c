package billing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
)

// invalidCreates are inputs Create must refuse, with the field it must
// name and the code of the rule broken.
func invalidCreates() []struct {
	name   string
	change func(in *billing.CreateInvoiceInput)
	field  string
	code   string
} {
	meta := func(n, keyLen, valueLen int) map[string]string {
		m := map[string]string{}
		for i := range n {
			k := fmt.Sprintf("%0*d", keyLen, i)
			m[k] = strings.Repeat("v", valueLen)
		}
		return m
	}
	return []struct {
		name   string
		change func(in *billing.CreateInvoiceInput)
		field  string
		code   string
	}{
		{"CustomerNameMissing", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "" }, "customer.name", field.Required},
		{"CustomerNameBlank", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "   " }, "customer.name", field.Required},
		{"CustomerNameTooLong", func(in *billing.CreateInvoiceInput) { in.Customer.Name = strings.Repeat("é", 201) }, "customer.name", field.TooLong},
		{"CustomerNameNUL", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "Ada\x00" }, "customer.name", field.NulByte},
		{"CustomerNameBadUTF8", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "Ada\xff" }, "customer.name", field.InvalidUTF8},
		{"EmailMissing", func(in *billing.CreateInvoiceInput) { in.Customer.Email = "" }, "customer.email", field.Required},
		{"EmailInvalid", func(in *billing.CreateInvoiceInput) { in.Customer.Email = "not-an-email" }, "customer.email", field.Invalid},
		{"EmailWithName", func(in *billing.CreateInvoiceInput) { in.Customer.Email = "Ada <ada@example.com>" }, "customer.email", field.Invalid},
		{"EmailTooLong", func(in *billing.CreateInvoiceInput) { in.Customer.Email = strings.Repeat("a", 250) + "@example.com" }, "customer.email", field.TooLong},
		{"CurrencyMissing", func(in *billing.CreateInvoiceInput) { in.Currency = "" }, "currency", field.Required},
		{"CurrencyUnknown", func(in *billing.CreateInvoiceInput) { in.Currency = "ABC" }, "currency", field.Invalid},
		{"CurrencyLowerCase", func(in *billing.CreateInvoiceInput) { in.Currency = "usd" }, "currency", field.Invalid},
		{"CurrencyTesting", func(in *billing.CreateInvoiceInput) { in.Currency = "XTS" }, "currency", field.Invalid},
		{"CurrencyRetired", func(in *billing.CreateInvoiceInput) { in.Currency = "HRK" }, "currency", field.Invalid},
		{"LineItemsMissing", func(in *billing.CreateInvoiceInput) { in.LineItems = nil }, "line_items", field.Required},
		{"LineItemsEmpty", func(in *billing.CreateInvoiceInput) { in.LineItems = []billing.LineItemInput{} }, "line_items", field.Required},
		{"QuantityZero", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Quantity = 0 }, "line_items[0].quantity", field.OutOfRange},
		{"QuantityTooLarge", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Quantity = billing.MaxQuantity + 1 }, "line_items[0].quantity", field.OutOfRange},
		{"UnitAmountNegative", func(in *billing.CreateInvoiceInput) { in.LineItems[0].UnitAmount = -1 }, "line_items[0].unit_amount", field.OutOfRange},
		{"UnitAmountTooLarge", func(in *billing.CreateInvoiceInput) { in.LineItems[0].UnitAmount = billing.MaxUnitAmount + 1 }, "line_items[0].unit_amount", field.OutOfRange},
		{"TaxRateTooLarge", func(in *billing.CreateInvoiceInput) { in.LineItems[0].TaxRateBps = 10001 }, "line_items[0].tax_rate_bps", field.OutOfRange},
		{"DescriptionMissing", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Description = "" }, "line_items[0].description", field.Required},
		{"DescriptionTooLong", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Description = strings.Repeat("x", 501) }, "line_items[0].description", field.TooLong},
		{"LineOverflow", func(in *billing.CreateInvoiceInput) {
			in.LineItems[0].Quantity, in.LineItems[0].UnitAmount = billing.MaxQuantity, billing.MaxUnitAmount
		}, "line_items[0]", field.OutOfRange},
		{"StatusPaid", func(in *billing.CreateInvoiceInput) { in.Status = "paid" }, "status", field.Invalid},
		{"StatusUpperCase", func(in *billing.CreateInvoiceInput) { in.Status = "OPEN" }, "status", field.Invalid},
		{"DueDateBadMonth", func(in *billing.CreateInvoiceInput) { in.DueDate = "2026-13-01" }, "due_date", field.Invalid},
		{"DueDateBadDay", func(in *billing.CreateInvoiceInput) { in.DueDate = "2026-02-30" }, "due_date", field.Invalid},
		{"DueDateShortYear", func(in *billing.CreateInvoiceInput) { in.DueDate = "26-01-01" }, "due_date", field.Invalid},
		{"DueDateTimestamp", func(in *billing.CreateInvoiceInput) { in.DueDate = "2026-01-01T00:00:00Z" }, "due_date", field.Invalid},
		{"MemoTooLong", func(in *billing.CreateInvoiceInput) { in.Memo = strings.Repeat("m", billing.MaxMemoLen+1) }, "memo", field.TooLong},
		{"CustomerNameEscape", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "Ada\x1b[31m" }, "customer.name", field.ControlCharacter},
		{"MemoNUL", func(in *billing.CreateInvoiceInput) { in.Memo = "a\x00b" }, "memo", field.NulByte},
		{"MetadataTooManyKeys", func(in *billing.CreateInvoiceInput) { in.Metadata = meta(billing.MaxMetadataKeys+1, 3, 1) }, "metadata", field.TooMany},
		{"MetadataEmptyKey", func(in *billing.CreateInvoiceInput) { in.Metadata = map[string]string{"": "x"} }, "metadata", field.Required},
		{"MetadataKeyTooLong", func(in *billing.CreateInvoiceInput) { in.Metadata = meta(1, billing.MaxMetadataKeyLen+1, 1) }, "metadata", field.TooLong},
		{"MetadataValueTooLong", func(in *billing.CreateInvoiceInput) { in.Metadata = meta(1, 3, billing.MaxMetadataValueLen+1) }, "metadata", field.TooLong},
		{"MetadataValueNUL", func(in *billing.CreateInvoiceInput) { in.Metadata = map[string]string{"k": "\x00"} }, "metadata", field.NulByte},
	}
}

func TestCreateInvalid(t *testing.T) {
	for _, tt := range invalidCreates() {
		t.Run(tt.name, func(t *testing.T) {
			svc, store, ent := newMemService(t)
			in := validInput()
			tt.change(&in)
			_, err := svc.Create(context.Background(), tenantA, in)
			if got := codedErrors(t, err); len(got) != 1 || got[0].Field != tt.field || got[0].Code != tt.code {
				t.Errorf("got field errors %+v, want exactly one on %q with code %q", got, tt.field, tt.code)
			}
			if ent.used != 0 || len(store.invoices) != 0 {
				t.Errorf("a refused create used %d units and stored %d invoices", ent.used, len(store.invoices))
			}
		})
	}
}

func TestCreateInvalidReportsEveryField(t *testing.T) {
	svc, _, _ := newMemService(t)
	in := billing.CreateInvoiceInput{
		Currency:  "XXX",
		LineItems: []billing.LineItemInput{{Quantity: 1}, {Description: "ok", Quantity: 1, TaxRateBps: -5}},
		Status:    "sent",
		DueDate:   "tomorrow",
	}
	_, err := svc.Create(context.Background(), tenantA, in)
	var got []string
	for _, fe := range codedErrors(t, err) {
		got = append(got, fe.Field+" "+fe.Code)
	}
	// In the order of the input's fields, each with its rule.
	want := []string{"customer.name required", "customer.email required", "currency invalid",
		"line_items[0].description required", "line_items[1].tax_rate_bps out_of_range", "status invalid", "due_date invalid"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("field errors:\n got %q\nwant %q", got, want)
	}
}

func TestCreateAcceptsBounds(t *testing.T) {
	tests := []struct {
		name   string
		change func(in *billing.CreateInvoiceInput)
	}{
		{"LongestName", func(in *billing.CreateInvoiceInput) {
			in.Customer.Name = strings.Repeat("é", billing.MaxCustomerNameLen)
		}},
		{"LongestMemo", func(in *billing.CreateInvoiceInput) { in.Memo = strings.Repeat("✓", billing.MaxMemoLen) }},
		{"MemoWithLineBreaks", func(in *billing.CreateInvoiceInput) { in.Memo = "Thanks!\r\n\tNet 30" }},
		{"FullMetadata", func(in *billing.CreateInvoiceInput) {
			in.Metadata = map[string]string{}
			for i := range billing.MaxMetadataKeys {
				in.Metadata[fmt.Sprintf("%040d", i)] = strings.Repeat("v", billing.MaxMetadataValueLen)
			}
		}},
		{"MostLines", func(in *billing.CreateInvoiceInput) {
			for len(in.LineItems) < billing.MaxLineItems {
				in.LineItems = append(in.LineItems, in.LineItems[0])
			}
		}},
		{"LargestLine", func(in *billing.CreateInvoiceInput) {
			in.LineItems[0] = billing.LineItemInput{Description: "Big", Quantity: 1000, UnitAmount: billing.MaxUnitAmount}
		}},
		{"LeapDay", func(in *billing.CreateInvoiceInput) { in.DueDate = "2028-02-29" }},
		{"Draft", func(in *billing.CreateInvoiceInput) { in.Status = "draft" }},
		{"Open", func(in *billing.CreateInvoiceInput) { in.Status = "open" }},
		{"JPY", func(in *billing.CreateInvoiceInput) { in.Currency = "JPY" }},
		{"KWD", func(in *billing.CreateInvoiceInput) { in.Currency = "KWD" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			in := validInput()
			tt.change(&in)
			if _, err := svc.Create(context.Background(), tenantA, in); err != nil {
				t.Fatalf("Create: %v", err)
			}
		})
	}
}

// codedErrors returns the field errors of err in the order found, failing
// unless err is an *InvalidError that matches ErrInvalid.
func codedErrors(tb testing.TB, err error) []field.Error {
	tb.Helper()
	var ie *billing.InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, billing.ErrInvalid) {
		tb.Fatalf("got error %v, want an *InvalidError", err)
	}
	return ie.Errors()
}

// TestCreateMessages pins the sentences clients are shown for the rules
// of CreateInvoiceInput's tags.
func TestCreateMessages(t *testing.T) {
	tests := []struct {
		name        string
		change      func(in *billing.CreateInvoiceInput)
		field, code string
		message     string
	}{
		{"NameBlank", func(in *billing.CreateInvoiceInput) { in.Customer.Name = " \t" }, "customer.name", field.Required, "is required"},
		{"NameTooLong", func(in *billing.CreateInvoiceInput) { in.Customer.Name = strings.Repeat("é", 201) }, "customer.name", field.TooLong, "must have at most 200 characters"},
		{"NameEscape", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "Ada\x1b" }, "customer.name", field.ControlCharacter, "must not contain control characters other than tab and line breaks"},
		{"EmailWithName", func(in *billing.CreateInvoiceInput) { in.Customer.Email = "Ada <ada@example.com>" }, "customer.email", field.Invalid, "must be a valid email address"},
		{"CurrencyRetired", func(in *billing.CreateInvoiceInput) { in.Currency = "HRK" }, "currency", field.Invalid, "HRK is not an active ISO 4217 currency (ISO 4217 list one, published " + billing.CurrencyListPublished + ")"},
		{"LinesMissing", func(in *billing.CreateInvoiceInput) { in.LineItems = nil }, "line_items", field.Required, "is required"},
		{"LinesEmpty", func(in *billing.CreateInvoiceInput) { in.LineItems = []billing.LineItemInput{} }, "line_items", field.Required, "must have at least 1 item"},
		{"LinesTooMany", func(in *billing.CreateInvoiceInput) {
			in.LineItems = make([]billing.LineItemInput, billing.MaxLineItems+1)
		}, "line_items", field.TooMany, "must have at most 100 items"},
		{"DescriptionBlank", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Description = "  " }, "line_items[0].description", field.Required, "is required"},
		{"Quantity", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Quantity = 0 }, "line_items[0].quantity", field.OutOfRange, "must be between 1 and 1000000"},
		{"UnitAmount", func(in *billing.CreateInvoiceInput) { in.LineItems[0].UnitAmount = -1 }, "line_items[0].unit_amount", field.OutOfRange, "must be between 0 and 1000000000000"},
		{"TaxRate", func(in *billing.CreateInvoiceInput) { in.LineItems[0].TaxRateBps = 10001 }, "line_items[0].tax_rate_bps", field.OutOfRange, "must be between 0 and 10000"},
		{"LineOverflow", func(in *billing.CreateInvoiceInput) {
			in.LineItems[0].Quantity, in.LineItems[0].UnitAmount = billing.MaxQuantity, billing.MaxUnitAmount
		}, "line_items[0]", field.OutOfRange, "quantity × unit_amount must be at most 1000000000000000"},
		{"Status", func(in *billing.CreateInvoiceInput) { in.Status = "paid" }, "status", field.Invalid, "must be one of: draft, open"},
		{"DueDate", func(in *billing.CreateInvoiceInput) { in.DueDate = "2026-02-30" }, "due_date", field.Invalid, "must be a date in the layout YYYY-MM-DD"},
		{"MemoBell", func(in *billing.CreateInvoiceInput) { in.Memo = "a\ab" }, "memo", field.ControlCharacter, "must not contain control characters other than tab and line breaks"},
		{"MetadataKeys", func(in *billing.CreateInvoiceInput) {
			in.Metadata = map[string]string{}
			for i := range billing.MaxMetadataKeys + 1 {
				in.Metadata[fmt.Sprint(i)] = ""
			}
		}, "metadata", field.TooMany, "must have at most 50 keys"},
		{"MetadataEmptyKey", func(in *billing.CreateInvoiceInput) { in.Metadata = map[string]string{"": "x"} }, "metadata", field.Required, `key "": is required`},
		{"MetadataLongKey", func(in *billing.CreateInvoiceInput) { in.Metadata = map[string]string{strings.Repeat("k", 41): "x"} }, "metadata", field.TooLong,
			`key "` + strings.Repeat("k", 40) + `…": must have at most 40 characters`},
		{"MetadataLongValue", func(in *billing.CreateInvoiceInput) { in.Metadata = map[string]string{"po": strings.Repeat("v", 501)} }, "metadata", field.TooLong,
			`value of "po": must have at most 500 characters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			in := validInput()
			tt.change(&in)
			_, err := svc.Create(context.Background(), tenantA, in)
			want := field.Error{Field: tt.field, Code: tt.code, Message: tt.message}
			if got := codedErrors(t, err); len(got) != 1 || got[0] != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}
