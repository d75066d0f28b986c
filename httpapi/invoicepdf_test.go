package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/pdftest"
)

// pdfText is the PDF's text (pdftest.Text).
func pdfText(t *testing.T, pdf []byte) string { return pdftest.Text(t, pdf) }

// wantPDF checks a PDF answer: 200, application/pdf, shown inline and
// named file, and the text holding each of want.
func wantPDF(t *testing.T, r response, file string, want ...string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type = %q, want application/pdf", ct)
	}
	if cd, want := r.header.Get("Content-Disposition"), `inline; filename="`+file+`"`; cd != want {
		t.Errorf("Content-Disposition = %q, want %q", cd, want)
	}
	wantSecurityHeaders(t, r.header, "no-store")
	if !bytes.HasPrefix(r.body, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.40q", r.body)
	}
	txt := pdfText(t, r.body)
	for _, w := range want {
		if !strings.Contains(txt, w) {
			t.Errorf("the PDF's text lacks %q:\n%s", w, txt)
		}
	}
}

// TestCollectionsInvoicePDF: GET /api/v1/collections/invoices/{id}/pdf
// draws a finalized invoice in the tenant's name, the same bytes each
// time; refuses a draft (409) and a key without collections:read (403);
// and another tenant's invoice is 404.
func TestCollectionsInvoicePDF(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		paid := e.mustInvoiceAs(t, "paid", 123456)
		open := e.mustInvoiceAs(t, "open", 5000)
		draft := e.mustInvoiceAs(t, "draft", 700)
		pdfPath := func(inv map[string]any) string { return invoicesPath + "/" + inv["id"].(string) + "/pdf" }

		t.Run("Paid", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: pdfPath(paid), bearer: e.keyBob})
			number := paid["number"].(string)
			wantPDF(t, r, number+".pdf", "Acme", "Ada", "ada@example.com", number, paid["id"].(string), "paid",
				"2026-12-31", "Plan", "1234.56", "Total", "1234.56 USD", "Amount paid", "Amount due", "0.00 USD")
			again := e.do(t, request{method: "GET", path: pdfPath(paid), bearer: e.keyBob})
			if !bytes.Equal(r.body, again.body) {
				t.Error("two answers for one invoice differ")
			}
		})
		t.Run("Open", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: pdfPath(open), bearer: e.keyBob})
			wantPDF(t, r, open["number"].(string)+".pdf", "open", "50.00", "Amount due", "50.00 USD")
		})
		t.Run("Refused", func(t *testing.T) {
			readOnly := e.newKey("bob@acme.test", "", "collections:read")
			if r := e.do(t, request{method: "GET", path: pdfPath(open), bearer: readOnly}); r.status != http.StatusOK {
				t.Errorf("with collections:read: %d %s", r.status, r.body)
			}
			_, err := e.svc.Members.Add(context.Background(), "globex", "bob@acme.test", "owner")
			check(t, err)
			// bob is in two tenants now: each request names one.
			acme := map[string]string{"X-Tenant-ID": e.acme.ID}
			globex := map[string]string{"X-Tenant-ID": e.globex.ID}
			for _, tc := range []struct {
				name   string
				req    request
				status int
				code   string
			}{
				{"Draft", request{method: "GET", path: pdfPath(draft), bearer: e.keyBob, header: acme}, 409, "conflict"},
				{"TicketScope", request{method: "GET", path: pdfPath(open), bearer: e.keyNone}, 403, "insufficient_scope"},
				{"MemberLacksPermission", request{method: "GET", path: pdfPath(open), bearer: e.keyAll, header: globex}, 403, "forbidden"},
				{"AnotherTenants", request{method: "GET", path: pdfPath(open), bearer: e.keyBob, header: globex}, 404, "not_found"},
				{"NoCredential", request{method: "GET", path: pdfPath(open)}, 401, "unauthenticated"},
				{"MalformedID", request{method: "GET", path: invoicesPath + "/inv_nope/pdf", bearer: e.keyBob, header: acme}, 404, "not_found"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					r := e.do(t, tc.req)
					if tc.code == "conflict" {
						wantConflictFrom(t, r, "draft")
						return
					}
					wantProblem(t, r, tc.status, tc.code)
				})
			}
		})
	})
}

// TestPlatformInvoicePDF: GET /api/invoices/{id}/pdf draws the platform's
// invoice in the platform's name to the tenant; a member without
// billing:read is 403 (the permission needs no scope of the credential),
// another tenant's invoice 404.
func TestPlatformInvoicePDF(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tt := newTestTenant(t, e, "test-co")
		tt.advance(t, e, nextMonth(tt.clock))
		alice := map[string]string{"X-Tenant-ID": tt.id}
		items, _, _ := page(t, e.do(t, request{method: "GET", path: "/api/invoices", bearer: e.keyAll, header: alice}))
		if len(items) != 1 {
			t.Fatalf("%d platform invoices, want 1", len(items))
		}
		inv := items[0]
		path := "/api/invoices/" + inv["id"].(string) + "/pdf"
		number := fmt.Sprint(int64(inv["number"].(float64)))
		r := e.do(t, request{method: "GET", path: path, bearer: e.keyAll, header: alice})
		wantPDF(t, r, number+".pdf", "tenantkit", "Test Co", tt.id, inv["id"].(string), "open", "Total", "Amount due")

		for _, tc := range []struct {
			name   string
			req    request
			status int
			code   string
		}{
			{"MemberLacksBillingRead", request{method: "GET", path: path, bearer: e.keyBob, header: alice}, 403, "forbidden"},
			{"AnotherTenants", request{method: "GET", path: path, bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}}, 404, "not_found"},
			{"NoInvoiceID", request{method: "GET", path: "/api/invoices/inv_nothing/pdf", bearer: e.keyAll, header: alice}, 404, "not_found"},
		} {
			t.Run(tc.name, func(t *testing.T) { wantProblem(t, e.do(t, tc.req), tc.status, tc.code) })
		}
	})
}
