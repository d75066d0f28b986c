package httpapi_test

import (
	"net/http"
	"testing"
	"time"
)

// TestTenantSettings: owners and admins read and merge-patch the tenant's
// settings; other roles get 403; the rules answer 422.
func TestTenantSettings(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		get := func() map[string]any {
			r := e.do(t, request{method: "GET", path: "/api/tenant/settings", bearer: e.keyAll, header: acme})
			if r.status != http.StatusOK {
				t.Fatalf("GET settings: %d %s", r.status, r.body)
			}
			return r.json(t)
		}
		patch := func(body string) response {
			return e.do(t, request{method: "PATCH", path: "/api/tenant/settings", bearer: e.keyAll, header: acme, body: body})
		}
		if s := get(); s["payment_link_template"] != nil || s["default_payment_terms_days"] != nil {
			t.Fatalf("fresh settings = %v, want all null", s)
		}
		r := patch(`{"payment_link_template":"https://pay.test/{invoice_id}?a={amount_due}&c={currency}&n={number}","invoice_footer":"Thanks!\nAcme","reply_to_email":"billing@acme.test","default_payment_terms_days":30}`)
		if r.status != http.StatusOK {
			t.Fatalf("PATCH: %d %s", r.status, r.body)
		}
		// An invoice finalized without a due date is due 30 days later;
		// one with its own keeps it.
		inv := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: acme,
			body: `{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":100}]}`}).json(t)
		if want := time.Now().UTC().AddDate(0, 0, 30).Format(time.DateOnly); inv["due_date"] != want {
			t.Errorf("due_date %v, want %s (30 days' terms)", inv["due_date"], want)
		}
		own := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: acme,
			body: `{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","due_date":"2030-01-02","line_items":[{"description":"Plan","quantity":1,"unit_amount":100}]}`}).json(t)
		if own["due_date"] != "2030-01-02" {
			t.Errorf("due_date %v, want its own 2030-01-02", own["due_date"])
		}
		r = patch(`{"invoice_footer":null,"default_payment_terms_days":0}`)
		s := r.json(t)
		if s["invoice_footer"] != nil || s["default_payment_terms_days"] != 0.0 || s["reply_to_email"] != "billing@acme.test" {
			t.Fatalf("after the merge patch: %v", s)
		}
		if g := get(); g["payment_link_template"] != s["payment_link_template"] || g["invoice_footer"] != nil {
			t.Fatalf("GET after PATCH = %v", g)
		}
		for _, tc := range []struct{ name, body, field string }{
			{"UnknownPlaceholder", `{"payment_link_template":"https://pay.test/{customer}"}`, "payment_link_template"},
			{"PlainHTTP", `{"payment_link_template":"http://pay.test/{invoice_id}"}`, "payment_link_template"},
			{"NotAURL", `{"payment_link_template":"pay here"}`, "payment_link_template"},
			{"Unmatched", `{"payment_link_template":"https://pay.test/{invoice_id"}`, "payment_link_template"},
			{"TooLong", `{"payment_link_template":"https://pay.test/` + string(make([]byte, 0)) + long(2000) + `"}`, "payment_link_template"},
			{"FooterTooLong", `{"invoice_footer":"` + long(501) + `"}`, "invoice_footer"},
			{"Email", `{"reply_to_email":"not an email"}`, "reply_to_email"},
			{"TermsAbove", `{"default_payment_terms_days":366}`, "default_payment_terms_days"},
			{"TermsBelow", `{"default_payment_terms_days":-1}`, "default_payment_terms_days"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := patch(tc.body)
				wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
				if fields, _ := r.json(t)["errors"].([]any); len(fields) != 1 || fields[0].(map[string]any)["field"] != tc.field {
					t.Errorf("errors = %v, want one for %s", r.json(t)["errors"], tc.field)
				}
			})
		}
		if r := patch(`{"payment_link_template":"http://127.0.0.1:9999/{invoice_id}"}`); r.status != http.StatusOK {
			t.Errorf("http to 127.0.0.1: %d %s", r.status, r.body)
		}
		// bob is billing at acme; alice a member at globex.
		for _, tc := range []struct {
			name, key, tenant string
		}{{"Billing", e.keyBob, e.acme.ID}, {"Member", e.keyAll, e.globex.ID}} {
			for _, m := range []string{"GET", "PATCH"} {
				body := ""
				if m == "PATCH" {
					body = `{}`
				}
				wantProblem(t, e.do(t, request{method: m, path: "/api/tenant/settings", bearer: tc.key,
					header: map[string]string{"X-Tenant-ID": tc.tenant}, body: body}), http.StatusForbidden, "forbidden")
			}
		}
	})
}

// long is n characters of text.
func long(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}
