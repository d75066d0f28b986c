package portal_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// mustInvoice creates an invoice of tenantID to customer cus: open
// (finalized) unless draft, of one line of amount USD cents.
func mustInvoice(t *testing.T, app *tenantkit.App, tenantID, cus string, amount int64, dueDate string, draft bool) billing.Invoice {
	t.Helper()
	status := ""
	if draft {
		status = "draft"
	}
	inv, err := app.Billing.Create(context.Background(), tenantID, billing.CreateInvoiceInput{CustomerID: cus, Currency: "USD",
		DueDate: dueDate, Status: status, LineItems: []billing.LineItemInput{{Description: "Consulting", Quantity: 1, UnitAmount: amount}}})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func mustContainAll(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
	if t.Failed() {
		t.Logf("%s:\n%s", what, body)
	}
}

// TestPortalCollections: the invoice page with its dates, ledger, PDF and
// confirmed destructive actions; customers; billing; the dashboard's
// figures; and what the support role may not see.
func TestPortalCollections(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)
		ctx := context.Background()
		cus, err := app.Billing.CreateCustomer(ctx, e.acme.ID, billing.CreateCustomerInput{Name: "Ada Lovelace", Email: "ada@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		inv := mustInvoice(t, app, e.acme.ID, cus.ID, 120000, "2026-01-10", false)
		if _, _, err := app.Payments.Record(ctx, e.acme.ID, inv.ID, billing.RecordPaymentInput{
			Amount: 20000, Method: billing.MethodBankTransfer, Reference: "WIRE-42"}); err != nil {
			t.Fatal(err)
		}
		alice := e.signIn(t, "alice@acme.test")
		page := "/portal/invoices/" + inv.ID

		t.Run("InvoicePage", func(t *testing.T) {
			body := alice.get(page, http.StatusOK)
			mustContainAll(t, "invoice page", body,
				`id="invoice-due">$1,000.00</strong> of $1,200.00`, `id="invoice-due-date">1/10/2026<`,
				`<span class="status status-open" id="invoice-status">open</span>`, `<span class="status status-overdue">overdue</span>`,
				"WIRE-42", `data-label="Amount">$200.00</td>`, "bank transfer (recorded by hand)",
				`href="/portal/invoices/`+inv.ID+`/pdf"`, `href="/portal/customers/`+cus.ID+`">Ada Lovelace</a>`,
				`id="mail-off">Email is not set up on this server`,
				`<a class="button danger" id="void" href="/portal/invoices/`+inv.ID+`/void">Void…</a>`)
			if strings.Contains(body, `id="invoice-finalized"><span class="muted">`) {
				t.Error("a finalized invoice shows no finalized date")
			}
			if strings.Contains(body, "1200.00 USD") || strings.Contains(body, `id="send-invoice"`) {
				t.Error("hand-made money, or a send button without mail")
			}
		})

		t.Run("PDF", func(t *testing.T) {
			resp, err := alice.hc.Get(alice.abs(page + "/pdf"))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(b), "%PDF") {
				t.Fatalf("PDF: status %d, type %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
			}
			draft := mustInvoice(t, app, e.acme.ID, cus.ID, 100, "", true)
			alice.get("/portal/invoices/"+draft.ID+"/pdf", http.StatusConflict)
		})

		t.Run("SendWithoutMailSaysWhy", func(t *testing.T) {
			body := alice.post(page+"/send", url.Values{"csrf_token": {alice.csrf()}}, http.StatusConflict)
			mustContainAll(t, "send without mail", body, "Email is not set up on this server")
		})

		t.Run("VoidAsksFirst", func(t *testing.T) {
			other := mustInvoice(t, app, e.acme.ID, cus.ID, 5000, "", false)
			p := "/portal/invoices/" + other.ID
			// A post without the confirmation lands on the question.
			body := alice.post(p+"/void", url.Values{"csrf_token": {alice.csrf()}}, http.StatusOK)
			mustContainAll(t, "confirmation", body, "<h1>Void invoice "+other.Number+"</h1>", "This cannot be undone.",
				`<input type="hidden" name="confirm" value="yes">`, `href="`+p+`" id="cancel">Keep it</a>`)
			if got, _ := app.Billing.Get(ctx, e.acme.ID, other.ID); got.Status != billing.StatusOpen {
				t.Fatalf("status %s before confirming, want open", got.Status)
			}
			body = alice.post(p+"/void", url.Values{"csrf_token": {alice.csrf()}, "confirm": {"yes"}}, http.StatusOK)
			mustContainAll(t, "after void", body, "The invoice is void.", `id="invoice-status">void<`)
			// Voided, it has nothing more to confirm.
			body = alice.get(p+"/void", http.StatusOK)
			mustContainAll(t, "void page of a void invoice", body, `id="invoice-status">void<`)
		})

		t.Run("WriteOffAndDelete", func(t *testing.T) {
			open := mustInvoice(t, app, e.acme.ID, cus.ID, 700, "", false)
			body := alice.post("/portal/invoices/"+open.ID+"/uncollectible", url.Values{"csrf_token": {alice.csrf()}, "confirm": {"yes"}}, http.StatusOK)
			mustContainAll(t, "after write-off", body, `id="invoice-status">uncollectible<`)

			draft := mustInvoice(t, app, e.acme.ID, cus.ID, 300, "", true)
			body = alice.get("/portal/invoices/"+draft.ID+"/delete", http.StatusOK)
			mustContainAll(t, "delete confirmation", body, "<h1>Delete draft invoice</h1>", "Delete the draft")
			body = alice.post("/portal/invoices/"+draft.ID+"/delete", url.Values{"csrf_token": {alice.csrf()}, "confirm": {"yes"}}, http.StatusOK)
			mustContainAll(t, "after delete", body, "The draft is deleted.")
			if _, err := app.Billing.Get(ctx, e.acme.ID, draft.ID); err == nil {
				t.Error("the draft is still there")
			}
			alice.post("/portal/invoices/inv_nonsense/delete", url.Values{"csrf_token": {alice.csrf()}, "confirm": {"yes"}}, http.StatusNotFound)
			for _, path := range []string{"inv_nonsense", strings.ToUpper(inv.ID), inv.ID + "0", "inv_"} {
				alice.get("/portal/invoices/"+path, http.StatusNotFound)
			}
		})

		t.Run("Customers", func(t *testing.T) {
			body := alice.get("/portal/customers", http.StatusOK)
			mustContainAll(t, "customers", body, `href="/portal/customers/`+cus.ID+`">Ada Lovelace</a>`, `data-label="Outstanding">$1,000.00`)
			body = alice.get("/portal/customers/"+cus.ID, http.StatusOK)
			mustContainAll(t, "customer", body, "<h1>Ada Lovelace</h1>", `id="customer-outstanding">$1,000.00<`, ">"+inv.Number+"</a>")
			body = alice.get("/portal/customers?q=nobody", http.StatusOK)
			mustContainAll(t, "search", body, "No customer matches")
			alice.get("/portal/customers?before=nonsense", http.StatusBadRequest)
			// Another tenant's customer is not found.
			e.signIn(t, "carol@globex.test").get("/portal/customers/"+cus.ID, http.StatusNotFound)
			alice.get("/portal/customers/cus_nonsense", http.StatusNotFound)
		})

		t.Run("Billing", func(t *testing.T) {
			body := alice.get("/portal/billing", http.StatusOK)
			mustContainAll(t, "billing", body, "<h1>Billing</h1>", `id="billing-plan">Growth`, "Next invoice (preview)",
				`id="preview-total">$`, "Add-ons your plan sells", "Invoices from the platform")
			e.signIn(t, "dave@acme.test").get("/portal/billing", http.StatusForbidden)
			alice.get("/portal/billing/invoices/pin_nonsense/pdf", http.StatusNotFound)

			pin := mustPlatformInvoice(t, app, e.acme.ID)
			body = alice.get("/portal/billing", http.StatusOK)
			mustContainAll(t, "billing with an invoice", body, `href="/portal/billing/invoices/`+pin.ID+`/pdf"`, `<span class="status status-open">open</span>`)
			resp, err := alice.hc.Get(alice.abs("/portal/billing/invoices/" + pin.ID + "/pdf"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" {
				t.Errorf("platform PDF: status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			// Another tenant's platform invoice is not found.
			e.signIn(t, "carol@globex.test").get("/portal/billing/invoices/"+pin.ID+"/pdf", http.StatusNotFound)
		})

		t.Run("Dashboard", func(t *testing.T) {
			body := alice.get("/portal/", http.StatusOK)
			mustContainAll(t, "dashboard", body, "<dt>Outstanding</dt>", "$1,000.00", "<dt>Collected this month</dt>",
				"<dt>Open tickets</dt>", "<dt>SLA at risk</dt>", `<svg class="chart"`, `<title id="collected-usd-t">`,
				`<title id="aging-usd-t">`, "Overdue in USD, by days past the due date")
		})

		t.Run("SupportSeesNoAmounts", func(t *testing.T) {
			if _, err := app.Tenancy.Notifications.Notify(ctx, e.acme.ID, tenancy.NewNotification{Type: "payment.succeeded",
				Title: "Payment received for " + inv.Number, Body: "A payment of $200.00 was received.",
				Data: map[string]any{"invoice_id": inv.ID, "amount": 20000, "currency": "USD"}}); err != nil {
				t.Fatal(err)
			}
			body := e.signIn(t, "dave@acme.test").get("/portal/", http.StatusOK)
			mustContainAll(t, "support's dashboard", body, "Payment received for "+inv.Number, "The amounts are shown to members who handle billing.")
			if strings.Contains(body, "$200.00") || strings.Contains(body, "<dt>Outstanding</dt>") {
				t.Errorf("the support role sees amounts:\n%s", body)
			}
			mustContainAll(t, "owner's dashboard", alice.get("/portal/", http.StatusOK), "A payment of $200.00 was received.")
		})

		t.Run("EventsNameTheirResources", func(t *testing.T) {
			alice := e.signIn(t, "alice@acme.test")
			tk, err := app.Support.Create(ctx, e.acme.ID, support.Requester{ID: "usr_x", Email: "alice@acme.test", Name: "alice"},
				support.CreateTicketInput{Subject: "Export fails", Description: "It stops."})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := app.Support.AddComment(ctx, e.acme.ID, tk.ID, support.Requester{ID: "usr_x", Email: "alice@acme.test"},
				support.CommentInput{Body: "Still failing."}); err != nil {
				t.Fatal(err)
			}
			body := alice.get("/portal/events?type=ticket.commented", http.StatusOK)
			mustContainAll(t, "events", body, `">Ticket #`+strconv.FormatInt(tk.Number, 10)+` Export fails</a>`)
			body = alice.get("/portal/events?type=invoice.payment_recorded", http.StatusOK)
			mustContainAll(t, "events", body, `">Invoice `+inv.Number+`</a>`)
		})

		t.Run("AddOnNotBoughtIsNotSwitchable", func(t *testing.T) {
			body := alice.get("/portal/modules", http.StatusOK)
			if strings.Contains(body, `id="toggle-collections-dunning"`) {
				t.Errorf("a switch for an add-on not bought:\n%s", body)
			}
			mustContainAll(t, "modules", body, `href="/portal/contracts?type=add_module&amp;module_id=collections.dunning">request it`)
			body = alice.post("/portal/modules", url.Values{"csrf_token": {alice.csrf()}, "module": {"collections.dunning"}, "enabled": {"true"}},
				http.StatusUnprocessableEntity)
			mustContainAll(t, "refused switch", body, `role="alert" id="form-error">You cannot switch Dunning: `)
			if strings.Contains(body, "Please correct the fields marked below.") {
				t.Error("the refusal points at fields the page does not have")
			}
		})
	})
}
