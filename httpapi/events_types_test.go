package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/smtptest"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/mail/mailqueue"
	"github.com/tenantkit/tenantkit/tenancy"
	opkey "github.com/tenantkit/tenantkit/tenancy/operator"
	"github.com/tenantkit/tenantkit/webhook"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// TestEveryEventTypeIsEmitted causes every event type of package
// tenancy/event in turn, through the public surface — the tenant API as
// alice, the operator API, the payment provider's webhook, the scheduler
// at a chosen time, and the Go API where the admin CLI is the only caller
// (operator keys, sign-in links) — and checks that exactly one event of
// that type about that resource appeared, of the right tenant, by the
// right kind of actor. A type without a trigger here fails the test.
func TestEveryEventTypeIsEmitted(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		// The scheduler's App; it also attempts deliveries, with the API's
		// secret key, and disables an endpoint at its second failure.
		// Its mail server takes the first message and refuses the rest.
		smtpd := smtptest.Start(t, smtptest.Options{OnData: func(n int, _ *smtptest.Server) error {
			if n > 1 {
				return errors.New("refused")
			}
			return nil
		}})
		sender, err := mail.NewSMTP(smtpd.URL(), smtpd.RootCAs)
		check(t, err)
		app, err := tenantkit.New(e.db, catalog.Default(),
			tenantkit.WithSecretKey([]byte(strings.Repeat("k", 32))), tenantkit.WithWebhookAllow("127.0.0.1"),
			tenantkit.WithOutbound(outbound.WithDisableAfter(time.Nanosecond)),
			tenantkit.WithMail(sender, "billing@platform.test", "https://billing.example.test", mailqueue.Options{}))
		check(t, err)
		failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		}))
		defer failing.Close()
		var endpointID string
		app.EventRetention = 0 // the scheduler runs in 2030: keep every event
		_, opKey := newOperatorKey(t, e, opkey.ScopeRead, opkey.ScopeWrite)
		acme := e.acme.ID

		// call makes an HTTP request as alice at acme, or as the operator
		// when op is set, and fails unless it answers want.
		call := func(t *testing.T, op bool, method, path, body string, want int) map[string]any {
			t.Helper()
			req := request{method: method, path: path, body: body, bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": acme}}
			if op {
				req.bearer, req.header = opKey, nil
			}
			r := e.do(t, req)
			if r.status != want {
				t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
			}
			if want == http.StatusNoContent {
				return nil
			}
			return r.json(t)
		}
		user := func(t *testing.T, method, path, body string, want int) map[string]any {
			t.Helper()
			return call(t, false, method, path, body, want)
		}
		op := func(t *testing.T, method, path, body string, want int) map[string]any {
			t.Helper()
			return call(t, true, method, path, body, want)
		}
		// deliver sends the provider's event and returns its id and outcome.
		deliver := func(t *testing.T, typ, invoiceID string, amount int64) (string, any) {
			t.Helper()
			evID := newEventID()
			body := paymentEvent(evID, typ, invoiceID, amount, "USD")
			r := e.do(t, request{method: "POST", path: webhookPath, body: body, header: signed(t, webhookSecret, body)})
			if r.status != http.StatusOK {
				t.Fatalf("deliver %s: %d %s", typ, r.status, r.body)
			}
			return evID, r.json(t)["outcome"]
		}
		tick := func(t *testing.T, at time.Time) {
			t.Helper()
			check(t, app.Scheduler.Tick(ctx, at))
		}
		cli := tenancy.WithActor(ctx, tenancy.Actor{Kind: tenancy.ActorOperator, ID: "cli:test", Method: "cli"})
		invoice := func(t *testing.T, dueDate string) string {
			t.Helper()
			body := `{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD",` +
				`"line_items":[{"description":"Plan","quantity":1,"unit_amount":1000,"tax_rate_bps":0}]`
			if dueDate != "" {
				body += `,"due_date":"` + dueDate + `"`
			}
			return user(t, "POST", "/api/v1/collections/invoices", body+"}", http.StatusCreated)["id"].(string)
		}
		draft := func(t *testing.T) string {
			t.Helper()
			return user(t, "POST", "/api/v1/collections/invoices",
				`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","status":"draft","line_items":[{"description":"Plan","quantity":1,"unit_amount":1000,"tax_rate_bps":0}]}`,
				http.StatusCreated)["id"].(string)
		}
		inv := func(id string) string { return "/api/v1/collections/invoices/" + id }
		ticket := func(t *testing.T) string {
			t.Helper()
			return user(t, "POST", "/api/tickets", `{"subject":"Help","description":"It broke"}`, http.StatusCreated)["id"].(string)
		}
		contractRequest := func(t *testing.T, body string) string {
			t.Helper()
			return user(t, "POST", "/api/contract-requests", body, http.StatusCreated)["id"].(string)
		}
		unreadNotification := func(t *testing.T) string {
			t.Helper()
			// A failed payment notifies the tenant.
			if _, got := deliver(t, webhook.TypePaymentFailed, invoice(t, ""), 100); got != "applied" {
				t.Fatalf("payment.failed: %v", got)
			}
			page := user(t, "GET", "/api/tenant/notifications?limit=1", "", http.StatusOK)
			return page["data"].([]any)[0].(map[string]any)["id"].(string)
		}

		// The state the triggers share, set by earlier ones.
		var (
			tenantID, userID, paidID, ticketID, keyID, operatorKeyID, customerID string
			dueInvoice, approvedID, signInToken                                  string
			// secrets are those shown once, which no event may hold.
			secrets []string
			// platform is the test tenant the platform invoices' triggers
			// advance; platformInvoice its first invoice, due then.
			platform        *testTenant
			platformInvoice string
			platformDue     time.Time
		)
		// Days in 2030, after every real due time: the scheduler's clock.
		due := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		day := func(n int) time.Time { return due.Add(time.Duration(n)*24*time.Hour + time.Hour) }

		type trigger struct {
			typ string
			// actor is the kind of actor wanted: user, operator, system, cli.
			actor string
			// do causes the event and returns its tenant ("" for a
			// platform event) and the resource it is about.
			do func(t *testing.T) (tenant, resource string)
		}
		triggers := []trigger{
			// The operator's platform work.
			{"tenant.created", "operator", func(t *testing.T) (string, string) {
				tenantID = op(t, "POST", "/api/operator/tenants", `{"slug":"initech","name":"Initech","plan_id":"starter"}`, http.StatusCreated)["id"].(string)
				return tenantID, tenantID
			}},
			{"user.created", "operator", func(t *testing.T) (string, string) {
				userID = op(t, "POST", "/api/operator/users", `{"email":"ann@initech.test","name":"Ann"}`, http.StatusCreated)["id"].(string)
				return "", userID
			}},
			{"member.added", "operator", func(t *testing.T) (string, string) {
				op(t, "POST", "/api/operator/tenants/"+tenantID+"/members", fmt.Sprintf(`{"user_id":%q,"role":"member"}`, userID), http.StatusCreated)
				return tenantID, userID
			}},
			{"member.role_changed", "operator", func(t *testing.T) (string, string) {
				op(t, "PATCH", "/api/operator/tenants/"+tenantID+"/members/"+userID, `{"role":"billing"}`, http.StatusOK)
				return tenantID, userID
			}},
			{"member.removed", "operator", func(t *testing.T) (string, string) {
				op(t, "DELETE", "/api/operator/tenants/"+tenantID+"/members/"+userID, "", http.StatusNoContent)
				return tenantID, userID
			}},
			// Acme moves to enterprise: every module on, for what follows.
			{"tenant.plan_changed", "operator", func(t *testing.T) (string, string) {
				op(t, "PATCH", "/api/operator/tenants/"+acme, `{"plan_id":"enterprise"}`, http.StatusOK)
				return acme, acme
			}},
			{"entitlement.limit_set", "operator", func(t *testing.T) (string, string) {
				op(t, "PUT", "/api/operator/tenants/"+acme+"/limits/"+catalog.FeatureInvoices, `{"limit":500}`, http.StatusOK)
				return acme, catalog.FeatureInvoices
			}},
			{"entitlement.limit_cleared", "operator", func(t *testing.T) (string, string) {
				op(t, "PUT", "/api/operator/tenants/"+acme+"/limits/"+catalog.FeatureInvoices, `{"limit":null}`, http.StatusOK)
				return acme, catalog.FeatureInvoices
			}},
			{"api_key.created", "operator", func(t *testing.T) (string, string) {
				k := op(t, "POST", "/api/operator/tenants/"+acme+"/api-keys", fmt.Sprintf(`{"user_id":%q,"scopes":["tickets:read"]}`, e.alice.ID), http.StatusCreated)
				keyID = k["id"].(string)
				secrets = append(secrets, k["key"].(string))
				return acme, keyID
			}},
			{"api_key.revoked", "operator", func(t *testing.T) (string, string) {
				op(t, "DELETE", "/api/operator/api-keys/"+keyID, "", http.StatusNoContent)
				return "", keyID
			}},
			{"payment_event.applied", "operator", func(t *testing.T) (string, string) {
				ev, _ := deliver(t, webhook.TypePaymentSucceeded, "inv_unknown", 100)
				op(t, "POST", "/api/operator/payment-events/"+ev+"/apply", `{"invoice_id":"`+invoice(t, "")+`"}`, http.StatusOK)
				return acme, ev
			}},
			{"payment_event.dismissed", "operator", func(t *testing.T) (string, string) {
				ev, _ := deliver(t, webhook.TypePaymentSucceeded, "inv_unknown2", 100)
				op(t, "POST", "/api/operator/payment-events/"+ev+"/dismiss", `{"reason":"test payment"}`, http.StatusOK)
				return "", ev
			}},
			// Where the admin CLI is the only caller, its Go API with the
			// CLI's actor (cmd/server's tests run the commands).
			{"operator_key.created", "cli", func(t *testing.T) (string, string) {
				k, secret, err := app.Operators.Create(cli, opkey.CreateInput{Name: "bot", Scopes: []tenancy.Scope{opkey.ScopeRead}})
				check(t, err)
				secrets = append(secrets, secret)
				operatorKeyID = k.ID
				return "", k.ID
			}},
			{"operator_key.revoked", "cli", func(t *testing.T) (string, string) {
				_, err := app.Operators.Revoke(cli, operatorKeyID)
				check(t, err)
				return "", operatorKeyID
			}},
			{"login_link.created", "cli", func(t *testing.T) (string, string) {
				link, err := app.SignInLinks.Issue(cli, "alice@acme.test", "acme", "https://tenantkit.example")
				check(t, err)
				u, err := url.Parse(link.URL)
				check(t, err)
				signInToken = u.Query().Get("token")
				secrets = append(secrets, signInToken)
				return acme, e.alice.ID
			}},
			{"session.created", "user", func(t *testing.T) (string, string) {
				_, err := app.SignInLinks.Consume(ctx, signInToken)
				check(t, err)
				return acme, e.alice.ID
			}},
			// Alice's customers.
			{"customer.created", "user", func(t *testing.T) (string, string) {
				customerID = user(t, "POST", "/api/v1/collections/customers", `{"name":"Ada","email":"ada@example.com"}`, http.StatusCreated)["id"].(string)
				return acme, customerID
			}},
			{"customer.updated", "user", func(t *testing.T) (string, string) {
				user(t, "PATCH", "/api/v1/collections/customers/"+customerID, `{"tax_id":"GB1"}`, http.StatusOK)
				return acme, customerID
			}},
			{"customer.archived", "user", func(t *testing.T) (string, string) {
				user(t, "POST", "/api/v1/collections/customers/"+customerID+"/archive", "", http.StatusOK)
				return acme, customerID
			}},
			// Alice's invoices.
			{"invoice.created", "user", func(t *testing.T) (string, string) { id := draft(t); return acme, id }},
			{"invoice.updated", "user", func(t *testing.T) (string, string) {
				id := draft(t)
				user(t, "PATCH", inv(id), `{"memo":"changed"}`, http.StatusOK)
				return acme, id
			}},
			{"invoice.deleted", "user", func(t *testing.T) (string, string) {
				id := draft(t)
				user(t, "DELETE", inv(id), "", http.StatusNoContent)
				return acme, id
			}},
			{"invoice.finalized", "user", func(t *testing.T) (string, string) {
				paidID = draft(t)
				user(t, "POST", inv(paidID)+"/finalize", "", http.StatusOK)
				return acme, paidID
			}},
			{"invoice.payment_recorded", "user", func(t *testing.T) (string, string) {
				user(t, "POST", inv(paidID)+"/payments", `{"amount":400,"method":"bank_transfer"}`, http.StatusCreated)
				return acme, paidID
			}},
			{"invoice.paid", "user", func(t *testing.T) (string, string) {
				user(t, "POST", inv(paidID)+"/payments", `{"amount":600,"method":"cash"}`, http.StatusCreated)
				return acme, paidID
			}},
			{"invoice.refunded", "system", func(t *testing.T) (string, string) {
				deliver(t, webhook.TypePaymentRefunded, paidID, 100)
				return acme, paidID
			}},
			{"invoice.payment_failed", "system", func(t *testing.T) (string, string) {
				id := invoice(t, "")
				if _, got := deliver(t, webhook.TypePaymentFailed, id, 1000); got != "applied" {
					t.Fatalf("payment.failed: %v", got)
				}
				if st := user(t, "GET", inv(id), "", http.StatusOK)["status"]; st != "open" {
					t.Fatalf("a failed payment left the invoice %v, want open", st)
				}
				return acme, id
			}},
			{"invoice.voided", "user", func(t *testing.T) (string, string) {
				id := invoice(t, "")
				user(t, "POST", inv(id)+"/void", "", http.StatusOK)
				return acme, id
			}},
			// The collection schedule, by the scheduler's clock.
			{"invoice.overdue", "system", func(t *testing.T) (string, string) {
				dueInvoice = invoice(t, due.Format("2006-01-02"))
				tick(t, day(1)) // overdue from 2030-01-02
				return acme, dueInvoice
			}},
			{"invoice.reminder_sent", "system", func(t *testing.T) (string, string) {
				tick(t, day(2)) // reminder_1
				return acme, dueInvoice
			}},
			{"invoice.marked_uncollectible", "system", func(t *testing.T) (string, string) {
				tick(t, day(22)) // reminder_7, reminder_14 and dunning
				got := user(t, "GET", inv(dueInvoice), "", http.StatusOK)
				if got["status"] != "uncollectible" || got["uncollectible_reason"] != "dunning" {
					t.Fatalf("after dunning: %v", got)
				}
				return acme, dueInvoice
			}},
			// Alice's tickets, the operator's desk and the SLA check.
			{"ticket.created", "user", func(t *testing.T) (string, string) {
				ticketID = ticket(t)
				return acme, ticketID
			}},
			{"ticket.updated", "user", func(t *testing.T) (string, string) {
				user(t, "PATCH", "/api/tickets/"+ticketID, `{"priority":"high"}`, http.StatusOK)
				return acme, ticketID
			}},
			{"ticket.commented", "user", func(t *testing.T) (string, string) {
				user(t, "POST", "/api/tickets/"+ticketID+"/comments", `{"body":"More detail"}`, http.StatusCreated)
				return acme, ticketID
			}},
			{"ticket.rated", "user", func(t *testing.T) (string, string) {
				op(t, "PATCH", "/api/operator/tickets/"+ticketID, `{"status":"solved"}`, http.StatusOK)
				user(t, "POST", "/api/tickets/"+ticketID+"/satisfaction", `{"score":5}`, http.StatusCreated)
				return acme, ticketID
			}},
			{"ticket.sla_breached", "system", func(t *testing.T) (string, string) {
				id := ticket(t)
				tick(t, time.Now().Add(30*24*time.Hour))
				return acme, id
			}},
			{"entitlement.threshold", "user", func(t *testing.T) (string, string) {
				// A limit of 5k, whose 80 % mark (4k) the next ticket
				// reaches, and not its 100 %: tickets up to 4k-1 first.
				used := func() int64 {
					return int64(user(t, "GET", "/api/tenant/entitlements/limit?feature="+catalog.FeatureTickets, "", http.StatusOK)["usage"].(float64))
				}
				for (used()+1)%4 != 0 {
					ticket(t)
				}
				limit := (used() + 1) / 4 * 5
				op(t, "PUT", "/api/operator/tenants/"+acme+"/limits/"+catalog.FeatureTickets, fmt.Sprintf(`{"limit":%d}`, limit), http.StatusOK)
				ticket(t)
				return acme, catalog.FeatureTickets
			}},
			// Alice's settings and inbox.
			{"module.toggled", "user", func(t *testing.T) (string, string) {
				user(t, "PATCH", "/api/tenant/entitlements/toggle", `{"module":"support.csat","enabled":false}`, http.StatusOK)
				return acme, "support.csat"
			}},
			{"notification.read", "user", func(t *testing.T) (string, string) {
				id := unreadNotification(t)
				user(t, "POST", "/api/tenant/notifications/"+id+"/read", "", http.StatusOK)
				user(t, "POST", "/api/tenant/notifications/"+id+"/read", "", http.StatusOK) // read before: no event
				return acme, id
			}},
			{"notification.read_all", "user", func(t *testing.T) (string, string) {
				unreadNotification(t)
				user(t, "POST", "/api/tenant/notifications/read-all", "", http.StatusOK)
				user(t, "POST", "/api/tenant/notifications/read-all", "", http.StatusOK) // none unread: no event
				return acme, acme
			}},
			// Contract requests: alice asks, the operator decides, the
			// scheduler applies at the period's end.
			{"contract_request.submitted", "user", func(t *testing.T) (string, string) {
				return acme, contractRequest(t, `{"type":"change_seats","seats":12,"effective":"next_period"}`)
			}},
			{"contract_request.cancelled", "user", func(t *testing.T) (string, string) {
				id := contractRequest(t, `{"type":"change_plan","plan_id":"growth","effective":"next_period"}`)
				user(t, "POST", "/api/contract-requests/"+id+"/cancel", "", http.StatusOK)
				return acme, id
			}},
			{"contract_request.rejected", "operator", func(t *testing.T) (string, string) {
				id := contractRequest(t, `{"type":"change_plan","plan_id":"growth","effective":"next_period"}`)
				op(t, "POST", "/api/operator/contract-requests/"+id+"/reject", `{"reason":"no"}`, http.StatusOK)
				return acme, id
			}},
			{"contract_request.approved", "operator", func(t *testing.T) (string, string) {
				id := contractRequest(t, `{"type":"change_plan","plan_id":"growth","effective":"next_period"}`)
				op(t, "POST", "/api/operator/contract-requests/"+id+"/approve", "", http.StatusOK)
				approvedID = id // applied by the next trigger
				return acme, id
			}},
			{"contract_request.applied", "system", func(t *testing.T) (string, string) {
				tick(t, time.Now().AddDate(0, 2, 0))
				return acme, approvedID
			}},
			// Outbound webhook endpoints: alice manages one; the delivery
			// queue disables it when it keeps failing.
			{"webhook_endpoint.created", "user", func(t *testing.T) (string, string) {
				ep := user(t, "POST", "/api/webhook-endpoints", `{"url":"`+failing.URL+`/hook"}`, http.StatusCreated)
				secrets = append(secrets, ep["secret"].(string))
				endpointID = ep["id"].(string)
				return acme, endpointID
			}},
			{"webhook_endpoint.updated", "user", func(t *testing.T) (string, string) {
				user(t, "PATCH", "/api/webhook-endpoints/"+endpointID, `{"description":"ERP"}`, http.StatusOK)
				return acme, endpointID
			}},
			{"webhook_endpoint.secret_rotated", "user", func(t *testing.T) (string, string) {
				ep := user(t, "POST", "/api/webhook-endpoints/"+endpointID+"/rotate-secret", "", http.StatusOK)
				secrets = append(secrets, ep["secret"].(string))
				return acme, endpointID
			}},
			{"webhook_endpoint.disabled", "system", func(t *testing.T) (string, string) {
				d := user(t, "POST", "/api/webhook-endpoints/"+endpointID+"/test", "", http.StatusAccepted)
				for range 2 { // the first failure starts the run, the second outlasts DisableAfter
					if _, err := app.Outbound.Attempt(ctx, d["id"].(string)); err != nil {
						t.Fatal(err)
					}
				}
				return acme, endpointID
			}},
			{"webhook_endpoint.deleted", "user", func(t *testing.T) (string, string) {
				user(t, "DELETE", "/api/webhook-endpoints/"+endpointID, "", http.StatusNoContent)
				return acme, endpointID
			}},
			// The customers' emails, sent by the queue's job (Deliver)
			// and given up after its last attempt (Fail).
			{"invoice.sent", "system", func(t *testing.T) (string, string) {
				id := invoice(t, "")
				m, err := app.Mail.Send(ctx, acme, id)
				check(t, err)
				check(t, app.Mail.Deliver(ctx, acme, m.ID))
				return acme, id
			}},
			{"email.failed", "system", func(t *testing.T) (string, string) {
				id := invoice(t, "")
				m, err := app.Mail.Send(ctx, acme, id)
				check(t, err)
				err = app.Mail.Deliver(ctx, acme, m.ID)
				if err == nil {
					t.Fatal("the mail server took a message it refuses")
				}
				check(t, app.Mail.Fail(ctx, acme, m.ID, err))
				return acme, id
			}},
			// The platform's invoices: a test tenant's clock, advanced by
			// the operator, generates them and marks them overdue; the
			// operator settles them.
			{"platform_invoice.created", "operator", func(t *testing.T) (string, string) {
				tt := newTestTenant(t, e, "events-test-co")
				platform = &tt
				platform.advance(t, e, nextMonth(platform.clock))
				items, _, _ := page(t, e.do(t, request{method: "GET", path: "/api/operator/invoices?tenant_id=" + platform.id, bearer: opKey}))
				platformInvoice = items[0]["id"].(string)
				platformDue = mustTime(t, items[0]["due_date"])
				return platform.id, platformInvoice
			}},
			{"platform_invoice.overdue", "operator", func(t *testing.T) (string, string) {
				platform.advance(t, e, platformDue.Add(time.Hour))
				return platform.id, platformInvoice
			}},
			{"platform_invoice.paid", "operator", func(t *testing.T) (string, string) {
				op(t, "POST", "/api/operator/invoices/"+platformInvoice+"/mark-paid", `{"reference":"wire"}`, http.StatusOK)
				return platform.id, platformInvoice
			}},
			{"platform_invoice.voided", "operator", func(t *testing.T) (string, string) {
				platform.advance(t, e, nextMonth(platform.clock))
				items, _, _ := page(t, e.do(t, request{method: "GET", path: "/api/operator/invoices?status=open&tenant_id=" + platform.id, bearer: opKey}))
				id := items[0]["id"].(string)
				op(t, "POST", "/api/operator/invoices/"+id+"/void", "", http.StatusOK)
				return platform.id, id
			}},
		}

		t.Run("EveryConstantHasATrigger", func(t *testing.T) {
			var covered []string
			for _, tr := range triggers {
				covered = append(covered, tr.typ)
			}
			consts := event.Types() // every constant of tenancy/event: TestTypesListsEveryConstant
			for _, typ := range consts {
				if !slices.Contains(covered, typ) {
					t.Errorf("event type %q has no trigger in this test", typ)
				}
			}
			for _, typ := range covered {
				if !slices.Contains(consts, typ) {
					t.Errorf("trigger of %q, which tenancy/event does not declare", typ)
				}
			}
		})

		// about lists the events of type typ about resource, through the
		// tenant API for acme's and the operator API for the others'.
		about := func(t *testing.T, tenant, typ, resource string) []apiEvent {
			t.Helper()
			q := "type=" + url.QueryEscape(typ) + "&resource_id=" + url.QueryEscape(resource)
			if tenant == acme {
				return acmeEvents(t, e, q)
			}
			es, _, _ := eventPage(t, e.do(t, request{method: "GET", path: "/api/operator/events?limit=100&" + q, bearer: opKey}))
			return es
		}
		for _, tr := range triggers {
			t.Run(tr.typ, func(t *testing.T) {
				seen := map[string]bool{}
				// The resource is known only after the trigger ran: look
				// at every event of the type before it.
				for _, ev := range allOfType(t, e, opKey, tr.typ) {
					seen[ev.ID] = true
				}
				tenant, resource := tr.do(t)
				var fresh []apiEvent
				for _, ev := range about(t, tenant, tr.typ, resource) {
					if !seen[ev.ID] {
						fresh = append(fresh, ev)
					}
				}
				if len(fresh) != 1 {
					t.Fatalf("%d new %s events about %s, want 1: %+v", len(fresh), tr.typ, resource, fresh)
				}
				ev := fresh[0]
				if ev.TenantID != tenant || ev.Resource.ID != resource || len(ev.Data) == 0 || string(ev.Data) == "null" {
					t.Errorf("event %+v: want tenant %q, resource %s, data", ev, tenant, resource)
				}
				if ev.Actor.Type != tr.actor {
					t.Errorf("actor %+v, want a %s", ev.Actor, tr.actor)
				}
				if tr.actor == "user" && ev.Actor.ID != e.alice.ID {
					t.Errorf("actor %+v, want alice", ev.Actor)
				}
				for _, secret := range secrets {
					if strings.Contains(string(ev.Data), secret) {
						t.Errorf("a secret in the event's data: %s", ev.Data)
					}
				}
			})
		}
	})
}

// allOfType lists every event of type typ, of every tenant.
func allOfType(t *testing.T, e *env, opKey, typ string) []apiEvent {
	t.Helper()
	var all []apiEvent
	path := "/api/operator/events?limit=100&type=" + url.QueryEscape(typ)
	for {
		es, more, next := eventPage(t, e.do(t, request{method: "GET", path: path, bearer: opKey}))
		all = append(all, es...)
		if !more {
			return all
		}
		path = "/api/operator/events?limit=100&type=" + url.QueryEscape(typ) + "&cursor=" + next
	}
}
