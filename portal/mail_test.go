package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/smtptest"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/mail/mailqueue"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// TestPortalSendByEmail: on a server with a mail server, the invoice page
// offers Send by email, which queues the message (the queue sends it
// later) and lists it; a customer without an address is told.
func TestPortalSendByEmail(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := tenantkit.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		srv := smtptest.Start(t, smtptest.Options{})
		sender, err := mail.NewSMTP(srv.URL(), srv.RootCAs)
		if err != nil {
			t.Fatal(err)
		}
		app, err := tenantkit.New(db, defaultCatalog(), tenantkit.WithSecretKey([]byte(strings.Repeat("m", 32))),
			tenantkit.WithMail(sender, "billing@platform.test", "https://billing.example.test", mailqueue.Options{}),
			tenantkit.WithDeliveries(riverqueue.Options{DB: dbtest.RiverDB(t, db)}))
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, app)
		alice := e.signIn(t, "alice@acme.test")
		inv, err := app.Billing.Create(ctx, e.acme.ID, billing.CreateInvoiceInput{Currency: "USD",
			Customer:  billing.CustomerInput{Name: "Ada", Email: "ada@example.com"},
			LineItems: []billing.LineItemInput{{Description: "Work", Quantity: 1, UnitAmount: 1000}}})
		if err != nil {
			t.Fatal(err)
		}
		page := "/portal/invoices/" + inv.ID
		body := alice.get(page, http.StatusOK)
		mustContainAll(t, "invoice with mail", body, `id="send-invoice">Send by email`)
		if strings.Contains(body, `id="mail-off"`) {
			t.Errorf("the page says mail is off on a server with mail")
		}
		body = alice.post(page+"/send", url.Values{"csrf_token": {alice.csrf()}}, http.StatusOK)
		mustContainAll(t, "after sending", body, "The invoice is on its way to the customer by email",
			"invoice to ada@example.com: <span class=\"status status-queued\">queued</span>", `id="send-invoice">Send again`)
		msgs, err := app.Mail.Messages(ctx, e.acme.ID, inv.ID)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("messages %+v, %v; want the one queued", msgs, err)
		}

		draft, err := app.Billing.Create(ctx, e.acme.ID, billing.CreateInvoiceInput{Currency: "USD", Status: "draft",
			Customer:  billing.CustomerInput{Name: "Ada", Email: "ada@example.com"},
			LineItems: []billing.LineItemInput{{Description: "Work", Quantity: 1, UnitAmount: 1000}}})
		if err != nil {
			t.Fatal(err)
		}
		body = alice.get("/portal/invoices/"+draft.ID, http.StatusOK)
		mustContainAll(t, "draft", body, `id="mail-off">A draft cannot be sent: finalize it first.`)
		alice.post("/portal/invoices/"+draft.ID+"/send", url.Values{"csrf_token": {alice.csrf()}}, http.StatusConflict)
	})
}
