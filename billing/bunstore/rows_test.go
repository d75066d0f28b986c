package bunstore

import (
	"encoding/json"
	"testing"

	segjson "github.com/segmentio/encoding/json"

	"github.com/tenantkit/tenantkit/billing"
)

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
// with the library invoice uses and with encoding/json: why invoice uses
// it.
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
