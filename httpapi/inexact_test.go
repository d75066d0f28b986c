package httpapi

import (
	"reflect"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

// TestInexactKey: the first key that names a field only when case is
// ignored, with its path; exact keys, map keys and escaped exact keys pass.
func TestInexactKey(t *testing.T) {
	typ := reflect.TypeFor[*billing.CreateInvoiceInput]()
	for _, tt := range []struct {
		name, body, want string
	}{
		{"Exact", `{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":4900}]}`, ""},
		{"Top", `{"Customer":{"name":"Ada"}}`, "Customer"},
		{"InArray", `{"line_items":[{"description":"x"},{"QUANTITY":2}]}`, "line_items[1].QUANTITY"},
		{"MapKeys", ` { "metadata" : { "Any" : "v" , "x\"y" : "\u00e9" } , "memo" : "a\\b" } `, ""},
		{"EscapedExact", `{"customer":{"name":"A","em\u0061il":"x"},"due_date":null,"line_items":[]}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := inexactKey([]byte(tt.body), typ); got != tt.want {
				t.Fatalf("inexactKey(%s) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}
