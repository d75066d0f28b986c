package billing_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/tenantkit/tenantkit/billing"
)

// invalidCreates are inputs Create must refuse, with the field it must name.
// tagged says whether the validate tags alone catch it too.
func invalidCreates() []struct {
	name   string
	change func(in *billing.CreateInvoiceInput)
	field  string
	tagged bool
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
		tagged bool
	}{
		{"CustomerNameMissing", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "" }, "customer.name", true},
		{"CustomerNameBlank", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "   " }, "customer.name", false},
		{"CustomerNameTooLong", func(in *billing.CreateInvoiceInput) { in.Customer.Name = strings.Repeat("é", 201) }, "customer.name", true},
		{"CustomerNameNUL", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "Ada\x00" }, "customer.name", false},
		{"CustomerNameBadUTF8", func(in *billing.CreateInvoiceInput) { in.Customer.Name = "Ada\xff" }, "customer.name", false},
		{"EmailMissing", func(in *billing.CreateInvoiceInput) { in.Customer.Email = "" }, "customer.email", true},
		{"EmailInvalid", func(in *billing.CreateInvoiceInput) { in.Customer.Email = "not-an-email" }, "customer.email", true},
		{"EmailWithName", func(in *billing.CreateInvoiceInput) { in.Customer.Email = "Ada <ada@example.com>" }, "customer.email", true},
		{"EmailTooLong", func(in *billing.CreateInvoiceInput) { in.Customer.Email = strings.Repeat("a", 250) + "@example.com" }, "customer.email", true},
		{"CurrencyMissing", func(in *billing.CreateInvoiceInput) { in.Currency = "" }, "currency", true},
		{"CurrencyUnknown", func(in *billing.CreateInvoiceInput) { in.Currency = "ABC" }, "currency", false},
		{"CurrencyLowerCase", func(in *billing.CreateInvoiceInput) { in.Currency = "usd" }, "currency", false},
		{"CurrencyTesting", func(in *billing.CreateInvoiceInput) { in.Currency = "XTS" }, "currency", false},
		{"CurrencyRetired", func(in *billing.CreateInvoiceInput) { in.Currency = "HRK" }, "currency", false},
		{"LineItemsMissing", func(in *billing.CreateInvoiceInput) { in.LineItems = nil }, "line_items", true},
		{"LineItemsEmpty", func(in *billing.CreateInvoiceInput) { in.LineItems = []billing.LineItemInput{} }, "line_items", true},
		{"QuantityZero", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Quantity = 0 }, "line_items[0].quantity", true},
		{"QuantityTooLarge", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Quantity = billing.MaxQuantity + 1 }, "line_items[0].quantity", true},
		{"UnitAmountNegative", func(in *billing.CreateInvoiceInput) { in.LineItems[0].UnitAmount = -1 }, "line_items[0].unit_amount", true},
		{"UnitAmountTooLarge", func(in *billing.CreateInvoiceInput) { in.LineItems[0].UnitAmount = billing.MaxUnitAmount + 1 }, "line_items[0].unit_amount", true},
		{"TaxRateTooLarge", func(in *billing.CreateInvoiceInput) { in.LineItems[0].TaxRateBps = 10001 }, "line_items[0].tax_rate_bps", true},
		{"DescriptionMissing", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Description = "" }, "line_items[0].description", true},
		{"DescriptionTooLong", func(in *billing.CreateInvoiceInput) { in.LineItems[0].Description = strings.Repeat("x", 501) }, "line_items[0].description", true},
		{"LineOverflow", func(in *billing.CreateInvoiceInput) {
			in.LineItems[0].Quantity, in.LineItems[0].UnitAmount = billing.MaxQuantity, billing.MaxUnitAmount
		}, "line_items[0]", false},
		{"StatusPaid", func(in *billing.CreateInvoiceInput) { in.Status = "paid" }, "status", true},
		{"StatusUpperCase", func(in *billing.CreateInvoiceInput) { in.Status = "OPEN" }, "status", true},
		{"DueDateBadMonth", func(in *billing.CreateInvoiceInput) { in.DueDate = "2026-13-01" }, "due_date", true},
		{"DueDateBadDay", func(in *billing.CreateInvoiceInput) { in.DueDate = "2026-02-30" }, "due_date", true},
		{"DueDateShortYear", func(in *billing.CreateInvoiceInput) { in.DueDate = "26-01-01" }, "due_date", true},
		{"DueDateTimestamp", func(in *billing.CreateInvoiceInput) { in.DueDate = "2026-01-01T00:00:00Z" }, "due_date", true},
		{"MemoTooLong", func(in *billing.CreateInvoiceInput) { in.Memo = strings.Repeat("m", billing.MaxMemoLen+1) }, "memo", true},
		{"MemoNUL", func(in *billing.CreateInvoiceInput) { in.Memo = "a\x00b" }, "memo", false},
		{"MetadataTooManyKeys", func(in *billing.CreateInvoiceInput) { in.Metadata = meta(billing.MaxMetadataKeys+1, 3, 1) }, "metadata", true},
		{"MetadataEmptyKey", func(in *billing.CreateInvoiceInput) { in.Metadata = map[string]string{"": "x"} }, "metadata", true},
		{"MetadataKeyTooLong", func(in *billing.CreateInvoiceInput) { in.Metadata = meta(1, billing.MaxMetadataKeyLen+1, 1) }, "metadata", true},
		{"MetadataValueTooLong", func(in *billing.CreateInvoiceInput) { in.Metadata = meta(1, 3, billing.MaxMetadataValueLen+1) }, "metadata", true},
		{"MetadataValueNUL", func(in *billing.CreateInvoiceInput) { in.Metadata = map[string]string{"k": "\x00"} }, "metadata", false},
	}
}

func TestCreateInvalid(t *testing.T) {
	for _, tt := range invalidCreates() {
		t.Run(tt.name, func(t *testing.T) {
			svc, store, ent := newMemService(t)
			in := validInput()
			tt.change(&in)
			_, err := svc.Create(context.Background(), tenantA, in)
			fields := fieldErrors(t, err)
			if _, ok := fields[tt.field]; !ok || len(fields) != 1 {
				t.Errorf("got field errors %v, want exactly one on %q", fields, tt.field)
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
	got := fieldErrors(t, err)
	for _, f := range []string{"customer.name", "customer.email", "currency", "line_items[0].description",
		"line_items[1].tax_rate_bps", "status", "due_date"} {
		if _, ok := got[f]; !ok {
			t.Errorf("no error on %q in %v", f, got)
		}
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

// newValidator configures go-playground/validator as the HTTP edge does:
// fields named by their JSON names.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	return v
}

// TestValidateTags checks that CreateInvoiceInput's validate tags parse,
// accept what Create accepts, and name the same fields as Create for what
// they refuse.
func TestValidateTags(t *testing.T) {
	v := newValidator()
	if err := v.Struct(validInput()); err != nil {
		t.Fatalf("valid input refused by the tags: %v", err)
	}
	for _, tt := range invalidCreates() {
		if !tt.tagged {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			in := validInput()
			tt.change(&in)
			err := v.Struct(in)
			var verrs validator.ValidationErrors
			if !errors.As(err, &verrs) {
				t.Fatalf("tags accepted input Create refuses on %q (err %v)", tt.field, err)
			}
			var paths []string
			for _, fe := range verrs {
				_, path, _ := strings.Cut(fe.Namespace(), ".")
				if i := strings.Index(path, "metadata["); i == 0 {
					path = "metadata"
				}
				paths = append(paths, path)
				if path == tt.field {
					return
				}
			}
			t.Errorf("tags refused %v, want %q", paths, tt.field)
		})
	}
}
