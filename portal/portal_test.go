package portal_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/portal"
)

func TestPortal(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)

		t.Run("RendersAccessibleDashboard", func(t *testing.T) {
			body := e.signIn(t, "alice@acme.test").get("/portal/", http.StatusOK)
			for _, want := range []string{`<meta name="viewport"`, `<main id="main"`, `<h1>Dashboard</h1>`,
				`<nav aria-label="Main">`, `href="/portal/invoices"`, `<meter`, "Acme Corp (owner)"} {
				if !strings.Contains(body, want) {
					t.Errorf("dashboard lacks %q", want)
				}
			}
		})

		t.Run("SignedOutGoesToSignIn", func(t *testing.T) {
			c := &client{t: t, e: e, hc: &http.Client{}}
			body := c.get("/portal/invoices", http.StatusOK)
			if !strings.Contains(body, "server login-link") {
				t.Errorf("signed-out page does not say how to sign in:\n%s", body)
			}
		})

		t.Run("BadSessionCookieSignsOut", func(t *testing.T) {
			// A cookie that no longer verifies (garbage, expired, another
			// server's secret) is cleared and the page served signed out.
			req, _ := http.NewRequest("GET", e.srv.URL+"/portal/invoices", nil)
			req.AddCookie(&http.Cookie{Name: "tenantkit_session", Value: "eyJhbGciOiJIUzI1NiJ9.e30.bm90LXRoaXMtc2VydmVy"})
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "server login-link") {
				t.Fatalf("status %d, want the signed-out page:\n%s", resp.StatusCode, body)
			}
			cleared := false
			for _, c := range resp.Cookies() {
				cleared = cleared || c.Name == "tenantkit_session" && c.MaxAge < 0
			}
			if !cleared {
				t.Errorf("the bad session cookie is not cleared: %v", resp.Cookies())
			}
		})

		t.Run("FormWithoutTokenRefused", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			body := c.post("/portal/tickets", url.Values{"subject": {"x"}, "description": {"y"}}, http.StatusForbidden)
			if !strings.Contains(body, "missing CSRF token") {
				t.Errorf("403 page does not say why:\n%s", body)
			}
			other := e.signIn(t, "carol@globex.test").csrf()
			c.post("/portal/tickets", url.Values{"subject": {"x"}, "description": {"y"}, "csrf_token": {other}}, http.StatusForbidden)
		})

		t.Run("LinkIsSingleUse", func(t *testing.T) {
			link := e.link(t, "alice@acme.test", "acme")
			jar := &client{t: t, e: e, hc: &http.Client{}}
			page := jar.get(link, http.StatusOK)
			token := field(t, page, "token")
			var wg sync.WaitGroup
			var mu sync.Mutex
			ok := 0
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := e.links.Consume(context.Background(), token); err == nil {
						mu.Lock()
						ok++
						mu.Unlock()
					} else if !errors.Is(err, portal.ErrLinkInvalid) {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if ok != 1 {
				t.Fatalf("%d concurrent uses succeeded, want 1", ok)
			}
			if _, err := e.links.Consume(context.Background(), token); !errors.Is(err, portal.ErrLinkInvalid) {
				t.Fatalf("second use: %v, want ErrLinkInvalid", err)
			}
		})

		t.Run("RolesHideAndRefuse", func(t *testing.T) {
			c := e.signIn(t, "dave@acme.test")
			body := c.get("/portal/", http.StatusOK)
			if strings.Contains(body, `href="/portal/invoices"`) {
				t.Error("support member sees the invoices link")
			}
			c.get("/portal/invoices", http.StatusForbidden)
			c.post("/portal/invoices", url.Values{"csrf_token": {c.csrf()}}, http.StatusForbidden)
			c.post("/portal/modules", url.Values{"csrf_token": {c.csrf()}, "module": {"support.sla"}, "enabled": {"true"}}, http.StatusForbidden)
		})

		t.Run("OtherTenantsInvoiceIsNotFound", func(t *testing.T) {
			inv, err := app.Billing.Create(context.Background(), e.globx.ID, billing.CreateInvoiceInput{
				Customer: billing.CustomerInput{Name: "X", Email: "x@example.com"}, Currency: "USD",
				LineItems: []billing.LineItemInput{{Description: "a", Quantity: 1, UnitAmount: 100}}})
			if err != nil {
				t.Fatal(err)
			}
			c := e.signIn(t, "alice@acme.test")
			c.get("/portal/invoices/"+inv.ID, http.StatusNotFound)
			c.post("/portal/invoices/"+inv.ID+"/void", url.Values{"csrf_token": {c.csrf()}}, http.StatusNotFound)
			c.get("/portal/invoices/nonsense", http.StatusNotFound)
		})

		t.Run("FieldErrorsNextToInputs", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			body := c.post("/portal/invoices", url.Values{"csrf_token": {c.csrf()}, "rows": {"2"}, "currency": {"USD"},
				"customer.email":            {"not-an-email"},
				"line_items[0].description": {"Work"}, "line_items[0].quantity": {"1"}, "line_items[0].unit_amount": {"1"},
				"line_items[1].description": {"Work"}, "line_items[1].quantity": {"0"}, "line_items[1].unit_amount": {"1"}},
				http.StatusUnprocessableEntity)
			body += c.post("/portal/invoices", url.Values{"csrf_token": {c.csrf()}, "rows": {"2"}, "currency": {"USD"},
				"line_items[0].description": {"Work"}, "line_items[0].quantity": {"1"}, "line_items[0].unit_amount": {"abc"}},
				http.StatusUnprocessableEntity)
			for _, want := range []string{`aria-describedby="err-customer-name"`, `id="err-customer-name"`,
				`aria-describedby="err-customer-email"`, `id="err-line_items-1-quantity"`, `id="err-line_items-0-unit_amount"`} {
				if !strings.Contains(body, want) {
					t.Errorf("form lacks %q", want)
				}
			}
		})

		t.Run("InvoiceLifecycle", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			body := c.post("/portal/invoices", url.Values{"csrf_token": {c.csrf()}, "rows": {"2"}, "currency": {"USD"},
				"customer.name": {"Ada"}, "customer.email": {"ada@example.com"}, "status": {"draft"},
				"line_items[0].description": {"Design"}, "line_items[0].quantity": {"2"}, "line_items[0].unit_amount": {"10.50"},
				"line_items[1].description": {"Hosting"}, "line_items[1].quantity": {"1"}, "line_items[1].unit_amount": {"5"}, "line_items[1].tax_rate": {"10"}},
				http.StatusOK)
			if !strings.Contains(body, `id="invoice-total">$26.50<`) {
				t.Fatalf("total not $26.50:\n%s", body)
			}
			// Tax rates in the unit the form took them: percent.
			if !strings.Contains(body, `data-label="Tax">10%</td>`) || strings.Contains(body, "bps") {
				t.Errorf("the line's tax is not shown as 10%%:\n%s", body)
			}
			id := body[strings.Index(body, "/portal/invoices/inv_")+len("/portal/invoices/"):]
			id = id[:strings.Index(id, "/")]
			body = c.post("/portal/invoices/"+id+"/finalize", url.Values{"csrf_token": {c.csrf()}}, http.StatusOK)
			if !strings.Contains(body, `id="invoice-status">open<`) {
				t.Fatalf("not open after finalize:\n%s", body)
			}
			body = c.post("/portal/invoices/"+id+"/payments", url.Values{"csrf_token": {c.csrf()}, "amount": {"26.50"}}, http.StatusOK)
			if !strings.Contains(body, `id="invoice-status">paid<`) {
				t.Fatalf("not paid after payment:\n%s", body)
			}
			c.post("/portal/invoices/"+id+"/finalize", url.Values{"csrf_token": {c.csrf()}}, http.StatusConflict)
		})
	})
}
