package invoicepdf_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/invoicepdf"
)

// render draws one of the test invoices.
type render func(r *invoicepdf.Renderer) ([]byte, error)

func renderCollections(inv billing.Invoice) render {
	return func(r *invoicepdf.Renderer) ([]byte, error) { return r.Collections(inv, "Acme Corp", "") }
}

var kinds = []struct {
	name   string
	render render
}{
	{"collections", renderCollections(collectionsInvoice())},
	{"platform", func(r *invoicepdf.Renderer) ([]byte, error) {
		return r.Platform(platformInvoice(), "Acme Corp")
	}},
}

// TestDeterministic: the same invoice gives the same bytes, from one
// renderer or another, and the document is dated by the invoice, not by
// the clock.
func TestDeterministic(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			first, err := k.render(invoicepdf.New())
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				again, err := k.render(invoicepdf.New())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(first, again) {
					t.Fatalf("render %d differs from the first (%d and %d bytes)", i+2, len(first), len(again))
				}
			}
			if !bytes.HasPrefix(first, []byte("%PDF-")) {
				t.Fatalf("not a PDF: %q", first[:min(len(first), 16)])
			}
		})
	}
	pdf, _ := invoicepdf.New().Collections(collectionsInvoice(), "Acme Corp", "")
	for _, want := range []string{"/CreationDate (D:20260315093000)", "/ModDate (D:20260315093000)"} {
		if !bytes.Contains(pdf, []byte(want)) {
			t.Errorf("the PDF lacks %s: dated by the invoice's finalized_at", want)
		}
	}
}

// TestDraftRefused: a draft has no PDF, and the refusal is a conflict
// naming the draft status.
func TestDraftRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*billing.Invoice)
	}{
		{"draft", func(inv *billing.Invoice) { inv.Status, inv.Number, inv.FinalizedAt = billing.StatusDraft, "", nil }},
		{"never finalized", func(inv *billing.Invoice) { inv.FinalizedAt = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := collectionsInvoice()
			tc.edit(&inv)
			pdf, err := invoicepdf.New().Collections(inv, "Acme Corp", "")
			if !errors.Is(err, invoicepdf.ErrDraft) || !errors.Is(err, billing.ErrConflict) || pdf != nil {
				t.Fatalf("err = %v (%d bytes), want ErrDraft, a billing.ErrConflict", err, len(pdf))
			}
		})
	}
}

// TestText reads each document back with pdftotext: what it must show is
// there, amounts in their currency's minor units.
func TestText(t *testing.T) {
	jpy := collectionsInvoice()
	jpy.Currency = "JPY"
	kwd := collectionsInvoice()
	kwd.Currency = "KWD"
	onRecord := collectionsInvoice()
	onRecord.Customer.Address = &billing.Address{Line1: "Hauptstraße 5", Line2: "2. OG", City: "Berlin", PostalCode: "10115", Country: "DE"}
	onRecord.Customer.TaxID = "DE123456789"
	script := collectionsInvoice()
	script.Customer.Name = "Ольга Café"
	script.LineItems[0].Description = "Beratung für März – “inklusive” €"
	for _, tc := range []struct {
		name   string
		render render
		want   []string
	}{
		{"collections", kinds[0].render, []string{
			"INVOICE", "Acme Corp", "Jürgen Müller GmbH", "billing@mueller.test",
			"INV-000042", "inv_01JQ0000000000000000000001", "open", "2026-03-15", "2026-04-14",
			"Consulting, March", "12", "150.00", "1800.00", "Travel expenses", "420.50",
			"Subtotal", "2220.50 USD", "Tax", "180.00 USD", "Total", "2400.50 USD",
			"Amount paid", "1000.00 USD", "Amount due", "1400.50 USD", "Page 1 of 1"}},
		{"platform", kinds[1].render, []string{
			"tenantkit", "Acme Corp", "ten_acme", "pin_01JQ0000000000000000000002", "paid",
			"2026-04-01", "2026-04-15", "2026-03-01 to 2026-03-31",
			"Growth plan", "99.00", "Seats beyond 5", "12.00", "36.00", "Total", "135.00 EUR", "Amount due", "0.00 EUR"}},
		{"platform name", func(r *invoicepdf.Renderer) ([]byte, error) {
			return invoicepdf.New(invoicepdf.WithPlatformName("Example Cloud Ltd")).Platform(platformInvoice(), "Acme Corp")
		}, []string{"Example Cloud Ltd"}},
		{"customer on record", renderCollections(onRecord), []string{"Hauptstraße 5", "2. OG", "10115 Berlin", "DE", "Tax ID DE123456789"}},
		{"no minor unit", renderCollections(jpy), []string{"180000", "240050 JPY", "140050 JPY"}},
		{"three digits", renderCollections(kwd), []string{"180.000", "240.050 KWD", "140.050 KWD"}},
		// Windows-1252 is drawn; a character outside it becomes "?".
		{"scripts", renderCollections(script), []string{"????? Café", "Beratung für März – “inklusive” €"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pdf, err := tc.render(invoicepdf.New())
			if err != nil {
				t.Fatal(err)
			}
			txt := pdfText(t, pdf)
			for _, want := range tc.want {
				if !strings.Contains(txt, want) {
					t.Errorf("the text lacks %q:\n%s", want, txt)
				}
			}
		})
	}
}

// TestLongDescriptionWraps: a long description wraps within its column,
// every word of it drawn, the amounts on its first line.
func TestLongDescriptionWraps(t *testing.T) {
	inv := collectionsInvoice()
	words := make([]string, 70)
	for i := range words {
		words[i] = fmt.Sprintf("word%02d", i)
	}
	inv.LineItems[0].Description = strings.Join(words, " ")
	pdf, err := invoicepdf.New().Collections(inv, "Acme Corp", "")
	if err != nil {
		t.Fatal(err)
	}
	txt := pdfText(t, pdf)
	var first, last int = -1, -1
	for i, l := range strings.Split(txt, "\n") {
		if strings.Contains(l, "word00") {
			first = i
			if !strings.Contains(l, "1800.00") {
				t.Errorf("the amounts are not on the description's first line: %q", l)
			}
		}
		if strings.Contains(l, "word69") {
			last = i
		}
		if strings.Count(l, "word") > 20 {
			t.Errorf("a line of %d words did not wrap: %q", strings.Count(l, "word"), l)
		}
	}
	for _, w := range words {
		if !strings.Contains(txt, w) {
			t.Errorf("%s is missing", w)
		}
	}
	if first < 0 || last-first < 3 {
		t.Errorf("the description spans lines %d..%d, want several", first, last)
	}
}

// TestManyLinesPaginate: lines beyond a page continue on the next ones,
// under the table's header again, with every line's amount drawn and
// the totals after the last.
func TestManyLinesPaginate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lines     int
		newlines  bool
		wantPages int
	}{
		{"100 lines", 100, false, 3},
		{"one description of many lines", 1, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := collectionsInvoice()
			inv.LineItems = nil
			var sum int64
			for i := range tc.lines {
				desc := fmt.Sprintf("Item %03d", i+1)
				if tc.newlines {
					desc = strings.Repeat("row\n", 80) + "end of it"
				}
				amount := int64(100*(i+1) + 1)
				inv.LineItems = append(inv.LineItems, billing.LineItem{Description: desc, Quantity: 1, UnitAmount: amount, Amount: amount})
				sum += amount
			}
			inv.Subtotal, inv.Tax, inv.Total, inv.AmountPaid, inv.AmountDue = sum, 0, sum, 0, sum
			pdf, err := invoicepdf.New().Collections(inv, "Acme Corp", "")
			if err != nil {
				t.Fatal(err)
			}
			if got := pages(pdf); got < tc.wantPages {
				t.Fatalf("%d pages, want at least %d", got, tc.wantPages)
			}
			txt := pdfText(t, pdf)
			n := pages(pdf)
			for i, page := range strings.Split(txt, "\f") {
				lines := strings.Contains(page, "Item") || strings.Contains(page, "row")
				if lines && !strings.Contains(page, "Description") {
					t.Errorf("page %d has lines without the table's header", i+1)
				}
			}
			if want := fmt.Sprintf("Page %d of %d", n, n); !strings.Contains(txt, want) {
				t.Errorf("the text lacks %q", want)
			}
			for _, l := range inv.LineItems {
				amount, _ := billing.FormatAmount(l.Amount, "USD")
				if !strings.Contains(txt, amount) {
					t.Errorf("line amount %s is missing", amount)
				}
			}
			total, _ := billing.FormatAmount(sum, "USD")
			if i, j := strings.LastIndex(txt, "Item"), strings.Index(txt, "Amount due"); j < i {
				t.Errorf("the totals come before the last line")
			}
			if !strings.Contains(txt, "Amount due") || !strings.Contains(txt, total+" USD") {
				t.Errorf("the total %s USD is missing", total)
			}
		})
	}
}

// TestHostedLinkPrinted: the hosted page's URL is printed under the
// totals, and the document links to it; without one, neither.
func TestHostedLinkPrinted(t *testing.T) {
	const link = "https://billing.example.test/pay/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde"
	pdf, err := invoicepdf.New().Collections(collectionsInvoice(), "Acme Corp", link)
	if err != nil {
		t.Fatal(err)
	}
	if txt := pdfText(t, pdf); !strings.Contains(txt, "View and pay online: "+link) {
		t.Errorf("the PDF reads:\n%s", txt)
	}
	if !bytes.Contains(pdf, []byte("/URI ("+link+")")) {
		t.Error("the PDF has no link annotation to the hosted page")
	}
	plain, err := invoicepdf.New().Collections(collectionsInvoice(), "Acme Corp", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pdfText(t, plain), "pay online") {
		t.Error("a PDF without a hosted page offers one")
	}
}
