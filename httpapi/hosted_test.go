package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// hostedPath is the path of a hosted_url on the test server.
func hostedPath(t testing.TB, url any) string {
	t.Helper()
	s, _ := url.(string)
	if !strings.HasPrefix(s, hostedBase+"/pay/") {
		t.Fatalf("hosted_url = %v, want %s/pay/…", url, hostedBase)
	}
	return strings.TrimPrefix(s, hostedBase)
}

// newHostedInvoice creates a draft in the tenant (bob at acme, alice
// elsewhere) and finalizes it, checking hosted_url only appears then.
func newHostedInvoice(t *testing.T, e *env, key, tenantID string) map[string]any {
	t.Helper()
	h := map[string]string{"X-Tenant-ID": tenantID}
	r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: key, header: h,
		body: `{"status":"draft","customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","due_date":"2026-12-31",` +
			`"line_items":[{"description":"Plan","quantity":2,"unit_amount":1999,"tax_rate_bps":1000}]}`})
	draft := r.json(t)
	if r.status != http.StatusCreated || draft["hosted_url"] != nil {
		t.Fatalf("draft: %d, hosted_url %v: %s", r.status, draft["hosted_url"], r.body)
	}
	r = e.do(t, request{method: "POST", path: "/api/v1/collections/invoices/" + draft["id"].(string) + "/finalize", bearer: key, header: h})
	if r.status != http.StatusOK {
		t.Fatalf("finalize: %d %s", r.status, r.body)
	}
	return r.json(t)
}

func pageHeadersOK(t *testing.T, r response) {
	t.Helper()
	for k, want := range map[string]string{"X-Robots-Tag": "noindex", "Referrer-Policy": "no-referrer",
		"Content-Security-Policy": "default-src 'none'", "Content-Type": "text/html"} {
		if !strings.Contains(r.header.Get(k), want) {
			t.Errorf("%s = %q, want %q in it", k, r.header.Get(k), want)
		}
	}
	if csp := r.header.Get("Content-Security-Policy"); strings.Contains(csp, "script-src") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q allows scripts or unsafe sources", csp)
	}
}

// TestHostedInvoicePage: a finalized invoice's hosted_url shows it to
// anyone, without signing in; rotation kills the old URL at once; a token
// is one invoice's only; only the token's hash is stored.
func TestHostedInvoicePage(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		inv := newHostedInvoice(t, e, e.keyBob, e.acme.ID)
		path := hostedPath(t, inv["hosted_url"])
		got := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + inv["id"].(string), bearer: e.keyBob, header: acme}).json(t)
		if got["hosted_url"] != inv["hosted_url"] {
			t.Fatalf("GET shows %v, finalize showed %v", got["hosted_url"], inv["hosted_url"])
		}

		page := e.do(t, request{method: "GET", path: path})
		if page.status != http.StatusOK {
			t.Fatalf("page: %d %s", page.status, page.body)
		}
		pageHeadersOK(t, page)
		body := string(page.body)
		for _, want := range []string{`<meta name="robots" content="noindex`, "Acme", inv["number"].(string), "open",
			"12/31/2026", "$39.98", "$4.00", "$43.98", "$0.00"} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if strings.Contains(body, "<script") || strings.Contains(body, `id="pay"`) {
			t.Errorf("page has a script, or a Pay link without a template")
		}

		// Only the SHA-256 of the token is in the database.
		token := strings.TrimPrefix(path, "/pay/")
		if len(token) < 22 {
			t.Fatalf("token %q is shorter than 128 bits", token)
		}
		var hash string
		check(t, database.AcrossTenants(e.db.NewSelect()).Table("invoice_hosted_tokens").Column("token_hash").
			Where("invoice_id = ?", inv["id"]).Scan(context.Background(), &hash))
		if sum := sha256.Sum256([]byte(token)); hash != hex.EncodeToString(sum[:]) {
			t.Errorf("stored %q, want the token's SHA-256", hash)
		}
		var rows []map[string]any
		check(t, database.AcrossTenants(e.db.NewSelect()).Table("invoice_hosted_tokens").Scan(context.Background(), &rows))
		for _, row := range rows {
			for col, v := range row {
				if s, ok := v.(string); ok && strings.Contains(s, token) {
					t.Errorf("column %s holds the token in clear", col)
				}
			}
		}

		// Wrong tokens are 404 pages.
		for _, p := range []string{"/pay/" + strings.Repeat("A", len(token)), "/pay/x", path + "x"} {
			r := e.do(t, request{method: "GET", path: p})
			if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "Invoice not found") {
				t.Errorf("GET %s = %d, want the 404 page", p, r.status)
			}
			pageHeadersOK(t, r)
		}

		// The Pay link follows the tenant's template, values escaped.
		r := e.do(t, request{method: "PATCH", path: "/api/tenant/settings", bearer: e.keyAll, header: acme,
			body: `{"payment_link_template":"https://pay.test/checkout?i={invoice_id}&n={number}&a={amount_due}&c={currency}","invoice_footer":"Thanks, Acme"}`})
		if r.status != http.StatusOK {
			t.Fatalf("settings: %d %s", r.status, r.body)
		}
		body = string(e.do(t, request{method: "GET", path: path}).body)
		wantHref := `href="https://pay.test/checkout?i=` + inv["id"].(string) + `&amp;n=` + inv["number"].(string) + `&amp;a=43.98&amp;c=USD"`
		if !strings.Contains(body, wantHref) || !strings.Contains(body, "Thanks, Acme") {
			t.Errorf("page lacks the Pay link %s or the footer:\n%s", wantHref, body)
		}

		// Rotation: the old URL is dead at once, the new one shows.
		r = e.do(t, request{method: "POST", path: "/api/v1/collections/invoices/" + inv["id"].(string) + "/hosted-url/rotate", bearer: e.keyBob, header: acme})
		if r.status != http.StatusOK {
			t.Fatalf("rotate: %d %s", r.status, r.body)
		}
		newPath := hostedPath(t, r.json(t)["hosted_url"])
		if newPath == path {
			t.Fatal("rotation kept the URL")
		}
		if s := e.do(t, request{method: "GET", path: path}).status; s != http.StatusNotFound {
			t.Errorf("old URL after rotation = %d, want 404", s)
		}
		if s := e.do(t, request{method: "GET", path: newPath}).status; s != http.StatusOK {
			t.Errorf("new URL = %d, want 200", s)
		}
		got = e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + inv["id"].(string), bearer: e.keyBob, header: acme}).json(t)
		if hostedPath(t, got["hosted_url"]) != newPath {
			t.Errorf("the invoice shows %v after rotation", got["hosted_url"])
		}

		// Isolation: another tenant's invoice has its own token, and cannot
		// be rotated from acme.
		_, err := e.svc.Members.Add(context.Background(), "globex", "bob@acme.test", "owner")
		check(t, err)
		other := newHostedInvoice(t, e, e.keyBob, e.globex.ID)
		otherPage := string(e.do(t, request{method: "GET", path: hostedPath(t, other["hosted_url"])}).body)
		if !strings.Contains(otherPage, "Globex") || strings.Contains(otherPage, "Acme") {
			t.Errorf("globex's page shows another tenant")
		}
		wantProblem(t, e.do(t, request{method: "POST", path: "/api/v1/collections/invoices/" + other["id"].(string) + "/hosted-url/rotate",
			bearer: e.keyBob, header: acme}), http.StatusNotFound, "not_found")
	})
}

// TestHostedRotateDraft: a draft has no page to rotate (409).
func TestHostedRotateDraft(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
			body: `{"status":"draft","customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"x","quantity":1,"unit_amount":1}]}`})
		wantProblem(t, e.do(t, request{method: "POST", path: "/api/v1/collections/invoices/" + r.json(t)["id"].(string) + "/hosted-url/rotate",
			bearer: e.keyBob}), http.StatusConflict, "conflict")
	})
}

// TestHostedPageRateLimit: the page has its own per-IP budget; beyond it
// a 429 page with Retry-After, whatever the token.
func TestHostedPageRateLimit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, func(c *httpapi.Config) { c.HostedRateLimiter = httpapi.NewMemoryRateLimiter(0.01, 2) })
		for i, want := range []int{http.StatusNotFound, http.StatusNotFound, http.StatusTooManyRequests} {
			r := e.do(t, request{method: "GET", path: "/pay/nothing"})
			if r.status != want {
				t.Fatalf("request %d = %d, want %d", i+1, r.status, want)
			}
			if want == http.StatusTooManyRequests {
				pageHeadersOK(t, r)
				if r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), "Too many requests") {
					t.Errorf("429 without Retry-After or its page: %v %s", r.header, r.body)
				}
			}
		}
		// The API's own budget is apart: it still answers.
		if s := e.do(t, request{method: "GET", path: "/api/health"}).status; s != http.StatusOK {
			t.Errorf("health = %d after the page's budget ran out", s)
		}
	}, migrations()...)
}

// TestHostedPageInCustomersLocale: the invoice of a customer on record
// whose locale is German shows its amounts and dates the German way.
func TestHostedPageInCustomersLocale(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		h := map[string]string{"X-Tenant-ID": e.acme.ID}
		r := e.do(t, request{method: "POST", path: "/api/v1/collections/customers", bearer: e.keyBob, header: h,
			body: `{"name":"Jürgen Müller GmbH","email":"billing@mueller.test","locale":"de",` +
				`"address":{"line1":"Hauptstraße 5","city":"Berlin","postal_code":"10115","country":"DE"}}`})
		if r.status != http.StatusCreated {
			t.Fatalf("create customer: %d %s", r.status, r.body)
		}
		r = e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob, header: h,
			body: `{"customer_id":"` + r.json(t)["id"].(string) + `","currency":"EUR","due_date":"2026-12-31",` +
				`"line_items":[{"description":"Beratung","quantity":1,"unit_amount":123456}]}`})
		if r.status != http.StatusCreated {
			t.Fatalf("create invoice: %d %s", r.status, r.body)
		}
		page := e.do(t, request{method: "GET", path: hostedPath(t, r.json(t)["hosted_url"])})
		body := string(page.body)
		for _, want := range []string{"1.234,56\u00a0€", "31.12.2026", "Jürgen Müller GmbH"} {
			if !strings.Contains(body, want) {
				t.Errorf("the German customer's page lacks %q", want)
			}
		}
	})
}

// TestHostedPDF: the hosted page links the invoice's PDF under its own
// token, the same bytes the tenant's API serves; a wrong or rotated
// token is the 404 page there too.
func TestHostedPDF(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		inv := newHostedInvoice(t, e, e.keyBob, e.acme.ID)
		path := hostedPath(t, inv["hosted_url"])
		page := e.do(t, request{method: "GET", path: path})
		if !strings.Contains(string(page.body), `href="`+path+`/pdf"`) {
			t.Fatalf("the page does not link %s/pdf:\n%s", path, page.body)
		}
		pdf := e.do(t, request{method: "GET", path: path + "/pdf"})
		if pdf.status != http.StatusOK || pdf.header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("hosted PDF: %d %s", pdf.status, pdf.header.Get("Content-Type"))
		}
		api := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + inv["id"].(string) + "/pdf", bearer: e.keyBob, header: acme})
		if !bytes.Equal(pdf.body, api.body) {
			t.Error("the hosted PDF differs from the API's")
		}
		if r := e.do(t, request{method: "GET", path: path + "x/pdf"}); r.status != http.StatusNotFound {
			t.Errorf("wrong token: %d, want 404", r.status)
		}
		r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices/" + inv["id"].(string) + "/hosted-url/rotate", bearer: e.keyBob, header: acme})
		if r.status != http.StatusOK {
			t.Fatalf("rotate: %d %s", r.status, r.body)
		}
		if r := e.do(t, request{method: "GET", path: path + "/pdf"}); r.status != http.StatusNotFound {
			t.Errorf("rotated token: %d, want 404", r.status)
		}
	})
}
