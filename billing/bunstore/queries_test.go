package bunstore

import (
	"database/sql"
	"encoding/json"
	"regexp"
	"testing"

	segjson "github.com/segmentio/encoding/json"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

// TestWrittenOutQueries holds the queries written out in full to the ones
// Bun builds from invoiceRow, as the store built them before, placeholders
// left in place (numbered ones compared as plain "?"): a column added to
// the row but not to invoiceColumns would read as its zero value. The
// store's database.Stmt of each runs it too, its placeholders numbered
// ($1, $2, …).
func TestWrittenOutQueries(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	st := New(db).stmts
	ph := bun.Safe("?")
	sel := func() *bun.SelectQuery { return db.NewSelect().Model((*invoiceRow)(nil)) }
	upd := func() *bun.UpdateQuery {
		return db.NewUpdate().Model((*invoiceRow)(nil)).Where("tenant_id = ?", ph)
	}
	set := func(q *bun.UpdateQuery, cols ...string) *bun.UpdateQuery {
		for _, c := range cols {
			q = q.Set(c+" = ?", ph)
		}
		return q.Where("id = ?", ph)
	}
	tests := []struct {
		name        string
		query, want string
		stmt        *database.Stmt
	}{
		{"selectInvoice", selectInvoice, sel().Where("tenant_id = ?", ph).Where("id = ?", ph).String(), st.selectInvoice},
		{"selectInvoiceForUpdate", selectInvoiceForUpdate, sel().Where("tenant_id = ?", ph).Where("id = ?", ph).For("UPDATE").String(),
			st.selectInvoiceForUpdate},
		{"selectInvoiceByID", selectInvoiceByID, sel().Where("id = ?", ph).Limit(1).String(), st.selectInvoiceByID},
		{"selectInvoiceByIDForUpdate", selectInvoiceByIDForUpdate, sel().Where("id = ?", ph).Limit(1).For("UPDATE").String(),
			st.selectInvoiceByIDForUpdate},
		{"updateInvoice", updateInvoice, set(upd(), "status", "amount_paid", "amount_due", "received", "refunded",
			"finalized_at", "paid_at", "overdue", "uncollectible_reason").String(), st.updateInvoice},
		{"saveInvoice", saveInvoice, set(upd(), "number", "status", "customer_name", "customer_email", "line_items",
			"subtotal", "tax", "total", "amount_paid", "amount_due", "received", "refunded", "due_date", "memo",
			"metadata", "finalized_at", "paid_at").String(), st.saveInvoice},
	}
	numbered := regexp.MustCompile(`[?$]\d+`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := numbered.ReplaceAllString(tt.query, "?"); got != tt.want {
				t.Errorf("written out:\n%s\nBun builds:\n%s", got, tt.want)
			}
			if got := numbered.ReplaceAllString(tt.stmt.String(), "?"); got != tt.want {
				t.Errorf("the store's Stmt runs:\n%s\nBun builds:\n%s", got, tt.want)
			}
		})
	}
}

// TestToRowJSON holds the line items and metadata toRow stores to the
// bytes encoding/json writes: toRow encodes with
// segmentio/encoding/json, which must write the same.
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

// BenchmarkInvoiceRow decodes a stored invoice's line items and metadata
// with the library invoice uses and with encoding/json: the figures
// invoice's doc quotes.
//
//	go test -run '^$' -bench InvoiceRow -benchmem ./billing/bunstore/
func BenchmarkInvoiceRow(b *testing.B) {
	lineItems := []byte(`[{"description":"Consulting hours","quantity":3,"unit_amount":15000,"tax_rate_bps":825,"amount":45000},` +
		`{"description":"Hosting (monthly)","quantity":1,"unit_amount":4999,"tax_rate_bps":825,"amount":4999},` +
		`{"description":"Onboarding workshop","quantity":1,"unit_amount":120000,"tax_rate_bps":0,"amount":120000}]`)
	metadata := []byte(`{"po":"PO-12345","ref":"Q4"}`)
	for _, lib := range []struct {
		name      string
		unmarshal func([]byte, any) error
	}{{"segmentio", segjson.Unmarshal}, {"encoding/json", json.Unmarshal}} {
		b.Run(lib.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var lines []lineRow
				meta := map[string]string{}
				if err := lib.unmarshal(lineItems, &lines); err != nil {
					b.Fatal(err)
				}
				if err := lib.unmarshal(metadata, &meta); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
