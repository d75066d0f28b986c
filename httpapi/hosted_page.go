package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/display"
	"github.com/tenantkit/tenantkit/tenancy"
)

// pageCSS is the hosted page's only style, inline and allowed by its hash
// in the Content-Security-Policy: the page loads nothing and runs nothing.
const pageCSS = `body{font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f5f5f7;margin:0}
main{max-width:44rem;margin:2rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.5rem;margin:0 0 .25rem}.muted{color:#555}.status{display:inline-block;padding:.1rem .6rem;border-radius:1rem;background:#eef;font-size:.9rem}
table{width:100%;border-collapse:collapse;margin:1.5rem 0}th,td{padding:.4rem;text-align:left;border-bottom:1px solid #ddd}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}tfoot td{border:0}.due td{font-weight:700;font-size:1.1rem}
a.pay{display:inline-block;background:#0a58ca;color:#fff;padding:.7rem 1.6rem;border-radius:6px;text-decoration:none;font-weight:600}
footer{margin-top:2rem;white-space:pre-line;color:#555;font-size:.9rem}`

// pageCSP is the page's Content-Security-Policy: nothing but its own
// inline style and its empty data: icon (which spares the browser a
// /favicon.ico request), no scripts, no frames, no forms, no base.
var pageCSP = func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

// setPageHeaders sets what every answer of the hosted page carries: not
// indexed, no referrer (the URL is the credential), the strict CSP.
func setPageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

// writePage answers an HTML page.
func writePage(w http.ResponseWriter, status int, page []byte) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(page)
	return nil
}

// pageView is what the invoice page shows.
type pageView struct {
	Invoice    billing.Invoice
	TenantName string
	Settings   tenancy.Settings
	Locale     string
	// PDFURL is the page's link to the invoice's PDF; empty without a
	// renderer (Config.InvoicePDF).
	PDFURL string
}

// pageLine is a line of the page, formatted.
type pageLine struct {
	Description, Quantity, UnitAmount, Amount string
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title><link rel="icon" href="data:,">
<style>{{.CSS}}</style></head>
<body><main>
{{if .Message}}<h1>{{.Title}}</h1><p>{{.Message}}</p>{{else}}
<p class="muted">{{.TenantName}}</p>
<h1>Invoice <span id="number">{{.Number}}</span></h1>
<p><span class="status" id="status">{{.Status}}</span>{{if .DueDate}} · Due <span id="due-date">{{.DueDate}}</span>{{end}}</p>
<p class="muted">Billed to {{.Customer}}</p>
<table><thead><tr><th>Description</th><th class="n">Qty</th><th class="n">Unit price</th><th class="n">Amount</th></tr></thead>
<tbody>{{range .Lines}}<tr><td>{{.Description}}</td><td class="n">{{.Quantity}}</td><td class="n">{{.UnitAmount}}</td><td class="n">{{.Amount}}</td></tr>{{end}}</tbody>
<tfoot>
<tr><td colspan="3">Subtotal</td><td class="n" id="subtotal">{{.Subtotal}}</td></tr>
<tr><td colspan="3">Tax</td><td class="n" id="tax">{{.Tax}}</td></tr>
<tr><td colspan="3">Total</td><td class="n" id="total">{{.Total}}</td></tr>
<tr><td colspan="3">Amount paid</td><td class="n" id="amount-paid">{{.AmountPaid}}</td></tr>
<tr class="due"><td colspan="3">Amount due</td><td class="n" id="amount-due">{{.AmountDue}}</td></tr>
</tfoot></table>
{{if .PayURL}}<p><a class="pay" id="pay" href="{{.PayURL}}" rel="noopener noreferrer">Pay {{.AmountDue}}</a></p>{{end}}
{{if .PDFURL}}<p><a id="pdf" href="{{.PDFURL}}">Download the invoice (PDF)</a></p>{{end}}
{{if .Footer}}<footer id="footer">{{.Footer}}</footer>{{end}}
{{end}}
</main></body></html>
`))

// pageData is the template's data.
type pageData struct {
	Lang, Title, Message                          string
	CSS                                           template.CSS
	TenantName, Number, Status, DueDate, Customer string
	Lines                                         []pageLine
	Subtotal, Tax, Total, AmountPaid, AmountDue   string
	PayURL                                        template.URL
	PDFURL                                        string
	Footer                                        string
}

// render executes the template; it cannot fail on data of these types,
// short of a broken template, which the tests catch.
func render(d pageData) []byte {
	d.CSS = template.CSS(pageCSS)
	if d.Lang == "" {
		d.Lang = "en"
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, d); err != nil {
		return []byte("internal error")
	}
	return b.Bytes()
}

// messagePage is a page saying one thing (404, 429).
func messagePage(title, msg string) []byte { return render(pageData{Title: title, Message: msg}) }

// invoicePage is the invoice's page.
func invoicePage(v pageView) []byte {
	inv, loc := v.Invoice, v.Locale
	d := pageData{Lang: loc, Title: "Invoice " + inv.Number + " · " + v.TenantName, TenantName: v.TenantName,
		Number: inv.Number, Status: string(inv.Status), DueDate: display.Date(loc, inv.DueDate), Customer: inv.Customer.Name,
		Subtotal: display.Money(loc, inv.Subtotal, inv.Currency), Tax: display.Money(loc, inv.Tax, inv.Currency),
		Total: display.Money(loc, inv.Total, inv.Currency), AmountPaid: display.Money(loc, inv.AmountPaid, inv.Currency),
		AmountDue: display.Money(loc, inv.AmountDue, inv.Currency)}
	for _, l := range inv.LineItems {
		d.Lines = append(d.Lines, pageLine{Description: l.Description, Quantity: display.Count(loc, l.Quantity),
			UnitAmount: display.Money(loc, l.UnitAmount, inv.Currency), Amount: display.Money(loc, l.Amount, inv.Currency)})
	}
	if v.Settings.InvoiceFooter != nil {
		d.Footer = *v.Settings.InvoiceFooter
	}
	d.PDFURL = v.PDFURL
	if t := v.Settings.PaymentLinkTemplate; t != nil && inv.Status == billing.StatusOpen && inv.AmountDue > 0 {
		// The template was checked when saved (an https URL); its values
		// are URL-escaped, so the link stays the template's.
		d.PayURL = template.URL(tenancy.FillPaymentLink(*t, inv.ID, inv.Number, display.Plain(inv.AmountDue, inv.Currency), inv.Currency))
	}
	return render(d)
}
