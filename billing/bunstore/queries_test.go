package bunstore

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/tenantkit/tenantkit/billing"
)

// TestInvoiceColumns holds invoiceColumns, the column list of the queries
// written out in full, to the one Bun builds from invoiceRow: a column
// added to the row but not to the list would read as its zero value.
func TestInvoiceColumns(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	built := db.NewSelect().Model((*invoiceRow)(nil)).String()
	want, _, _ := strings.Cut(strings.TrimPrefix(built, "SELECT "), ` FROM "invoices"`)
	if invoiceColumns != want {
		t.Errorf("invoiceColumns =\n%s\nBun selects\n%s", invoiceColumns, want)
	}
}

// TestToRowJSON holds the line items and metadata toRow stores to the
// bytes encoding/json writes, which it wrote until toRow encoded with
// goccy/go-json.
func TestToRowJSON(t *testing.T) {
	inv := billing.Invoice{
		LineItems: []billing.LineItem{{Description: "Consulting <hours> & \u2028 Zoë \"x\"", Quantity: 3, UnitAmount: 15000, TaxRateBps: 825, Amount: 45000}},
		Metadata:  map[string]string{"po": "a\xffb", "b": "<2>", "a": "1"},
	}
	r, err := toRow(inv)
	if err != nil {
		t.Fatal(err)
	}
	lines := []lineRow{lineRow(inv.LineItems[0])}
	for _, c := range []struct {
		name, got string
		v         any
	}{{"line_items", r.LineItems, lines}, {"metadata", r.Metadata, inv.Metadata}} {
		want, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if c.got != string(want) {
			t.Errorf("%s: stored %s, encoding/json writes %s", c.name, c.got, want)
		}
	}
}
