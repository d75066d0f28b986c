package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

var invoiceLinkRE = regexp.MustCompile(`href="/portal/invoices/(inv_[0-9a-z]+)"`)

var eventLinkRE = regexp.MustCompile(`href="/portal/events/(evt_[^"]+)"`)

func TestPortalEvents(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)
		ctx := context.Background()
		alice := e.signIn(t, "alice@acme.test")
		body := alice.post("/portal/invoices", url.Values{"csrf_token": {alice.csrf()}, "rows": {"2"}, "currency": {"USD"},
			"customer.name": {"Ada"}, "customer.email": {"ada@example.com"}, "status": {"draft"},
			"line_items[0].description": {"Design"}, "line_items[0].quantity": {"1"}, "line_items[0].unit_amount": {"10"}},
			http.StatusOK)
		invID := body[strings.Index(body, "/portal/invoices/inv_")+len("/portal/invoices/"):]
		invID = invID[:strings.Index(invID, "/")]
		aliceUser, err := app.Tenancy.Directory.UserByEmail(ctx, "alice@acme.test")
		if err != nil {
			t.Fatal(err)
		}

		t.Run("ListsTheInvoiceCreated", func(t *testing.T) {
			body := alice.get("/portal/events", http.StatusOK)
			for _, want := range []string{`<h1>Events</h1>`, `href="/portal/events" aria-current="page">Events<`,
				"<code>invoice.created</code>", `<a href="/portal/invoices/` + invID + `">Draft invoice</a>`,
				`data-label="By" class="url">` + aliceUser.Name + ` &lt;` + aliceUser.Email + `&gt;</td>`, `<label for="type">Type</label>`} {
				if !strings.Contains(body, want) {
					t.Errorf("events page lacks %q:\n%s", want, body)
				}
			}
			if !eventLinkRE.MatchString(body) {
				t.Fatalf("no link to an event's page:\n%s", body)
			}
		})

		t.Run("FiltersByType", func(t *testing.T) {
			for _, tc := range []struct {
				typ, want, notWant string
			}{
				{"invoice.created", "<code>invoice.created</code>", "No events."},
				{"invoice.paid", "No events.", "<code>invoice.created</code>"},
			} {
				body := alice.get("/portal/events?type="+tc.typ, http.StatusOK)
				if !strings.Contains(body, tc.want) || strings.Contains(body, tc.notWant) {
					t.Errorf("type %s: want %q and not %q:\n%s", tc.typ, tc.want, tc.notWant, body)
				}
				if !strings.Contains(body, `value="`+tc.typ+`"`) {
					t.Errorf("type %s: the filter does not keep the typed value", tc.typ)
				}
			}
			alice.get("/portal/events?before=nonsense", http.StatusBadRequest)
			alice.get("/portal/events?type="+strings.Repeat("x", 101), http.StatusBadRequest)
		})

		t.Run("DetailShowsDataAsJSON", func(t *testing.T) {
			evID := eventLinkRE.FindStringSubmatch(alice.get("/portal/events?type=invoice.created", http.StatusOK))[1]
			body := alice.get("/portal/events/"+evID, http.StatusOK)
			for _, want := range []string{"<h1>Event invoice.created</h1>", `<pre aria-labelledby="data-h" class="json" tabindex="0">{`,
				"\n  &#34;id&#34;: &#34;" + invID + "&#34;,", `<a href="/portal/invoices/` + invID + `">`} {
				if !strings.Contains(body, want) {
					t.Errorf("event page lacks %q:\n%s", want, body)
				}
			}
		})

		t.Run("OlderPages", func(t *testing.T) {
			for range 21 {
				if _, err := app.Billing.Create(ctx, e.acme.ID, billing.CreateInvoiceInput{
					Customer: billing.CustomerInput{Name: "X", Email: "x@example.com"}, Currency: "USD",
					LineItems: []billing.LineItemInput{{Description: "a", Quantity: 1, UnitAmount: 100}}}); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[string]bool{}
			next := "/portal/events?type=invoice.created"
			pages := 0
			for next != "" {
				body := alice.get(next, http.StatusOK)
				pages++
				for _, m := range eventLinkRE.FindAllStringSubmatch(body, -1) {
					if seen[m[1]] {
						t.Fatalf("event %s on two pages", m[1])
					}
					seen[m[1]] = true
				}
				next = ""
				if i := strings.Index(body, `rel="next">Older<`); i >= 0 {
					start := strings.LastIndex(body[:i], `href="`) + len(`href="`)
					next = strings.ReplaceAll(body[start:strings.Index(body[start:], `"`)+start], "&amp;", "&")
				}
			}
			if pages != 2 || len(seen) != 22 {
				t.Fatalf("%d pages with %d events, want 2 pages with 22", pages, len(seen))
			}
		})

		t.Run("InvoicesOlderPages", func(t *testing.T) {
			// The 21 invoices of OlderPages (and any before): every page
			// link leads to the next page, none repeats an invoice.
			seen := map[string]bool{}
			next, pages := "/portal/invoices", 0
			for next != "" && pages < 10 {
				body := alice.get(next, http.StatusOK)
				pages++
				for _, m := range invoiceLinkRE.FindAllStringSubmatch(body, -1) {
					if seen[m[1]] && !strings.Contains(next, "before=") {
						continue
					}
					seen[m[1]] = true
				}
				next = ""
				if i := strings.Index(body, `rel="next">Older invoices<`); i >= 0 {
					start := strings.LastIndex(body[:i], `href="`) + len(`href="`)
					next = strings.ReplaceAll(body[start:strings.Index(body[start:], `"`)+start], "&amp;", "&")
					if !strings.Contains(next, "before=inv_") {
						t.Fatalf("older link %q carries no cursor", next)
					}
				}
			}
			if pages < 2 || len(seen) < 21 {
				t.Fatalf("%d pages with %d invoices, want at least 2 pages with 21", pages, len(seen))
			}
		})

		t.Run("RoleWithoutEventsReadRefused", func(t *testing.T) {
			evs, _, err := app.Events.List(ctx, e.acme.ID, event.Filter{})
			if err != nil || len(evs) == 0 {
				t.Fatalf("acme's events: %v, %v", evs, err)
			}
			dave := e.signIn(t, "dave@acme.test")
			if strings.Contains(dave.get("/portal/", http.StatusOK), `href="/portal/events"`) {
				t.Error("support member sees the events link")
			}
			for _, path := range []string{"/portal/events", "/portal/events/" + evs[0].ID} {
				if body := dave.get(path, http.StatusForbidden); !strings.Contains(body, "events:read") {
					t.Errorf("%s: 403 page does not say why:\n%s", path, body)
				}
			}
		})

		t.Run("OtherTenantsEventIsNotFound", func(t *testing.T) {
			if _, err := app.Billing.Create(ctx, e.globx.ID, billing.CreateInvoiceInput{
				Customer: billing.CustomerInput{Name: "X", Email: "x@example.com"}, Currency: "USD",
				LineItems: []billing.LineItemInput{{Description: "a", Quantity: 1, UnitAmount: 100}}}); err != nil {
				t.Fatal(err)
			}
			evs, _, err := app.Events.List(ctx, e.globx.ID, event.Filter{})
			if err != nil || len(evs) == 0 {
				t.Fatalf("globex's events: %v, %v", evs, err)
			}
			carol := e.signIn(t, "carol@globex.test")
			carol.get("/portal/events/"+evs[0].ID, http.StatusOK)
			for _, path := range []string{"/portal/events/" + evs[0].ID, "/portal/events/nonsense", "/portal/events/evt_"} {
				alice.get(path, http.StatusNotFound)
			}
			if strings.Contains(alice.get("/portal/events", http.StatusOK), evs[0].ID) {
				t.Error("acme's events page lists a globex event")
			}
		})
	})
}
