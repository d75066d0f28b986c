package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	opkey "github.com/tenantkit/tenantkit/tenancy/operator"

	"github.com/tenantkit/tenantkit/tenancy"
)

// apiEvent is an event as the API answers it.
type apiEvent struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	TenantID string `json:"tenant_id"`
	Actor    struct {
		Type         string `json:"type"`
		ID           string `json:"id"`
		CredentialID string `json:"credential_id"`
		AuthMethod   string `json:"auth_method"`
		ClientIP     string `json:"client_ip"`
	} `json:"actor"`
	RequestID string `json:"request_id"`
	Resource  struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"resource"`
	Data      json.RawMessage `json:"data"`
	CreatedAt time.Time       `json:"created_at"`
}

// eventPage reads one page of an event list.
func eventPage(t *testing.T, r response) ([]apiEvent, bool, string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("list events: %d %s", r.status, r.body)
	}
	var page struct {
		Data       []apiEvent `json:"data"`
		HasMore    bool       `json:"has_more"`
		NextCursor *string    `json:"next_cursor"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	next := ""
	if page.NextCursor != nil {
		next = *page.NextCursor
	}
	return page.Data, page.HasMore, next
}

// acmeEvents lists every event of acme (alice, owner), oldest first.
func acmeEvents(t *testing.T, e *env, query string) []apiEvent {
	t.Helper()
	var all []apiEvent
	cursor := ""
	for {
		q := "limit=100&" + query
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		es, more, next := eventPage(t, e.do(t, request{method: "GET", path: "/api/events?" + q, bearer: e.keyAll,
			header: map[string]string{"X-Tenant-ID": e.acme.ID}}))
		all = append(all, es...)
		if !more {
			break
		}
		cursor = next
	}
	slices.Reverse(all)
	return all
}

func eventTypes(es []apiEvent) []string {
	out := make([]string, len(es))
	for i, ev := range es {
		out[i] = ev.Type
	}
	return out
}

// byRequest keeps the events of one request.
func byRequest(es []apiEvent, reqID string) []apiEvent {
	var out []apiEvent
	for _, ev := range es {
		if ev.RequestID == reqID {
			out = append(out, ev)
		}
	}
	return out
}

// TestEventsEmittedByChanges makes every change that records an event
// through the API (and the operator's decisions and the provider's refund
// through the Go API), each with its own X-Request-ID, and checks that
// exactly the expected events were recorded for it, in order, about the
// resource, with the actor, credential, auth method, client IP and
// request id of the change, and the resource's data after it.
func TestEventsEmittedByChanges(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		app, err := tenantkit.New(e.db, catalog.Default())
		check(t, err)
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		_, opKey := newOperatorKey(t, e, opkey.ScopeRead, opkey.ScopeWrite)
		n := 0
		// call makes one HTTP change as alice (owner) at acme and returns
		// its request id and answer.
		call := func(t *testing.T, method, path, body string, want int) (string, map[string]any) {
			t.Helper()
			n++
			reqID := fmt.Sprintf("req-events-%d", n)
			h := map[string]string{"X-Tenant-ID": e.acme.ID, "X-Request-ID": reqID}
			r := e.do(t, request{method: method, path: path, body: body, bearer: e.keyAll, header: h})
			if r.status != want {
				t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
			}
			if len(r.body) == 0 || r.status >= 300 {
				return reqID, nil
			}
			return reqID, r.json(t)
		}
		draft := func(t *testing.T) (string, string) {
			reqID, inv := call(t, "POST", "/api/v1/collections/invoices",
				`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","status":"draft","line_items":[{"description":"Plan","quantity":1,"unit_amount":1000,"tax_rate_bps":0}]}`, 201)
			return reqID, inv["id"].(string)
		}
		open := func(t *testing.T) string {
			_, inv := call(t, "POST", "/api/v1/collections/invoices", invoiceBody("USD", `{"description":"Plan","quantity":1,"unit_amount":1000,"tax_rate_bps":0}`), 201)
			return inv["id"].(string)
		}
		inv := func(id string) string { return "/api/v1/collections/invoices/" + id }
		operatorCtx := func(reqID string) context.Context {
			return tenancy.WithActor(ctx, tenancy.Actor{Kind: tenancy.ActorOperator, ID: "opk_test", Credential: "operator:opk_test",
				Method: "operator_key", RequestID: reqID, ClientIP: "192.0.2.7"})
		}

		type step struct {
			name string
			// do makes the change and returns its request id ("" for a
			// change without one) and the resource's id.
			do           func(t *testing.T) (reqID, resourceID string)
			resourceType string
			want         []string
			// actor is the actor type wanted; "" means alice by API key.
			actor string
		}
		var paidID, ticketID, requestID string
		steps := []step{
			{name: "InvoiceCreated", resourceType: "invoice", want: []string{"invoice.created"},
				do: func(t *testing.T) (string, string) { return draft(t) }},
			{name: "InvoiceUpdated", resourceType: "invoice", want: []string{"invoice.updated"},
				do: func(t *testing.T) (string, string) {
					_, id := draft(t)
					reqID, _ := call(t, "PATCH", inv(id), `{"memo":"changed"}`, 200)
					return reqID, id
				}},
			{name: "InvoiceDeleted", resourceType: "invoice", want: []string{"invoice.deleted"},
				do: func(t *testing.T) (string, string) {
					_, id := draft(t)
					reqID, _ := call(t, "DELETE", inv(id), "", 204)
					return reqID, id
				}},
			{name: "InvoiceFinalized", resourceType: "invoice", want: []string{"invoice.finalized"},
				do: func(t *testing.T) (string, string) {
					_, id := draft(t)
					reqID, _ := call(t, "POST", inv(id)+"/finalize", "", 200)
					paidID = id
					return reqID, id
				}},
			{name: "PaymentRecorded", resourceType: "invoice", want: []string{"invoice.payment_recorded"},
				do: func(t *testing.T) (string, string) {
					reqID, _ := call(t, "POST", inv(paidID)+"/payments", `{"amount":400,"method":"bank_transfer"}`, 201)
					return reqID, paidID
				}},
			{name: "PaymentPaysInvoice", resourceType: "invoice", want: []string{"invoice.payment_recorded", "invoice.paid"},
				do: func(t *testing.T) (string, string) {
					reqID, _ := call(t, "POST", inv(paidID)+"/payments", `{"amount":600,"method":"cash"}`, 201)
					return reqID, paidID
				}},
			{name: "RefundByProvider", resourceType: "invoice", want: []string{"invoice.refunded"}, actor: "system",
				do: func(t *testing.T) (string, string) {
					_, err := app.Payments.ApplyRefund(ctx, e.acme.ID, paidID, billing.ProviderPayment{
						EventID: "evt_provider_1", PaymentID: "pay_provider_1", Amount: 100, Currency: "USD"})
					check(t, err)
					return "", paidID
				}},
			{name: "InvoiceVoided", resourceType: "invoice", want: []string{"invoice.voided"},
				do: func(t *testing.T) (string, string) {
					id := open(t)
					reqID, _ := call(t, "POST", inv(id)+"/void", "", 200)
					return reqID, id
				}},
			{name: "InvoiceUncollectible", resourceType: "invoice", want: []string{"invoice.marked_uncollectible"},
				do: func(t *testing.T) (string, string) {
					id := open(t)
					reqID, _ := call(t, "POST", inv(id)+"/mark-uncollectible", "", 200)
					return reqID, id
				}},
			{name: "TicketCreated", resourceType: "ticket", want: []string{"ticket.created"},
				do: func(t *testing.T) (string, string) {
					reqID, tk := call(t, "POST", "/api/tickets", `{"subject":"Help","description":"It broke"}`, 201)
					ticketID = tk["id"].(string)
					return reqID, ticketID
				}},
			{name: "TicketUpdated", resourceType: "ticket", want: []string{"ticket.updated"},
				do: func(t *testing.T) (string, string) {
					reqID, _ := call(t, "PATCH", "/api/tickets/"+ticketID, `{"priority":"high"}`, 200)
					return reqID, ticketID
				}},
			{name: "TicketCommented", resourceType: "ticket", want: []string{"ticket.commented"},
				do: func(t *testing.T) (string, string) {
					reqID, _ := call(t, "POST", "/api/tickets/"+ticketID+"/comments", `{"body":"More detail"}`, 201)
					return reqID, ticketID
				}},
			{name: "ContractSubmitted", resourceType: "contract_request", want: []string{"contract_request.submitted"},
				do: func(t *testing.T) (string, string) {
					reqID, cr := call(t, "POST", "/api/contract-requests", `{"type":"change_seats","seats":12,"effective":"next_period"}`, 201)
					requestID = cr["id"].(string)
					return reqID, requestID
				}},
			{name: "ContractCancelled", resourceType: "contract_request", want: []string{"contract_request.cancelled"},
				do: func(t *testing.T) (string, string) {
					reqID, _ := call(t, "POST", "/api/contract-requests/"+requestID+"/cancel", "", 200)
					return reqID, requestID
				}},
			{name: "ContractRejected", resourceType: "contract_request", want: []string{"contract_request.rejected"}, actor: "operator",
				do: func(t *testing.T) (string, string) {
					_, cr := call(t, "POST", "/api/contract-requests", `{"type":"change_plan","plan_id":"enterprise","effective":"next_period"}`, 201)
					_, err := app.Contracts.Reject(operatorCtx("req-reject"), cr["id"].(string), "no")
					check(t, err)
					return "req-reject", cr["id"].(string)
				}},
			{name: "ContractApprovedAndApplied", resourceType: "contract_request",
				want: []string{"contract_request.approved", "contract_request.applied"}, actor: "operator",
				do: func(t *testing.T) (string, string) {
					_, cr := call(t, "POST", "/api/contract-requests", `{"type":"change_plan","plan_id":"enterprise","effective":"immediately"}`, 201)
					_, err := app.Contracts.Approve(operatorCtx("req-approve"), cr["id"].(string), "")
					check(t, err)
					return "req-approve", cr["id"].(string)
				}},
			{name: "ModuleToggled", resourceType: "module", want: []string{"module.toggled"},
				do: func(t *testing.T) (string, string) {
					reqID, _ := call(t, "PATCH", "/api/tenant/entitlements/toggle", `{"module":"support.tickets","enabled":false}`, 200)
					return reqID, "support.tickets"
				}},
			{name: "APIKeyCreated", resourceType: "api_key", want: []string{"api_key.created"}, actor: "operator",
				do: func(t *testing.T) (string, string) {
					r := e.do(t, request{method: "POST", path: "/api/operator/tenants/" + e.acme.ID + "/api-keys", bearer: opKey,
						header: map[string]string{"X-Request-ID": "req-key"},
						body:   fmt.Sprintf(`{"user_id":%q,"scopes":["tickets:read"]}`, e.alice.ID)})
					if r.status != http.StatusCreated {
						t.Fatalf("create key: %d %s", r.status, r.body)
					}
					if strings.Contains(string(acmeEvents(t, e, "type=api_key.created")[0].Data), r.json(t)["key"].(string)) {
						t.Fatal("the key's secret is in its event")
					}
					return "req-key", r.json(t)["id"].(string)
				}},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				before := len(acmeEvents(t, e, ""))
				reqID, resourceID := st.do(t)
				all := acmeEvents(t, e, "")
				got := all[before:]
				if reqID != "" {
					got = byRequest(got, reqID)
				}
				if types := eventTypes(got); !slices.Equal(types, st.want) {
					t.Fatalf("events of the change = %v, want %v (all new: %v)", types, st.want, eventTypes(all[before:]))
				}
				for _, ev := range got {
					if ev.TenantID != e.acme.ID || ev.Resource.Type != st.resourceType || ev.Resource.ID != resourceID ||
						ev.RequestID != reqID || len(ev.Data) == 0 || string(ev.Data) == "null" || !id.Valid(id.Event, ev.ID) {
						t.Errorf("event %+v: want tenant %s, resource %s %s, request %q, data", ev, e.acme.ID, st.resourceType, resourceID, reqID)
					}
					switch st.actor {
					case "":
						if ev.Actor.Type != "user" || ev.Actor.ID != e.alice.ID || !strings.HasPrefix(ev.Actor.CredentialID, "key_") ||
							ev.Actor.AuthMethod != "api_key" || ev.Actor.ClientIP != "127.0.0.1" {
							t.Errorf("actor = %+v, want alice by API key from 127.0.0.1", ev.Actor)
						}
					case "operator":
						if ev.Actor.Type != "operator" || !strings.HasPrefix(ev.Actor.ID, "opk_") || ev.Actor.AuthMethod != "operator_key" {
							t.Errorf("actor = %+v, want an operator", ev.Actor)
						}
					default:
						if ev.Actor.Type != st.actor || ev.Actor.ID != "" {
							t.Errorf("actor = %+v, want %s", ev.Actor, st.actor)
						}
					}
				}
				if len(got) > 0 && st.resourceType == "invoice" && st.name != "InvoiceDeleted" {
					var data map[string]any
					check(t, json.Unmarshal(got[len(got)-1].Data, &data))
					cur := e.do(t, request{method: "GET", path: inv(resourceID), bearer: e.keyAll, header: acme}).json(t)
					if data["status"] != cur["status"] || data["amount_due"] != cur["amount_due"] {
						t.Errorf("event data %v, want the invoice after the change %v", data, cur)
					}
				}
			})
		}

		t.Run("APIKeyRevoked", func(t *testing.T) {
			keyID := acmeEvents(t, e, "type=api_key.created")[0].Resource.ID
			r := e.do(t, request{method: "DELETE", path: "/api/operator/api-keys/" + keyID, bearer: opKey,
				header: map[string]string{"X-Request-ID": "req-revoke"}})
			if r.status != http.StatusNoContent {
				t.Fatalf("revoke: %d %s", r.status, r.body)
			}
			es, _, _ := eventPage(t, e.do(t, request{method: "GET", path: "/api/operator/events?type=api_key.revoked&resource_id=" + keyID, bearer: opKey}))
			if len(es) != 1 || es[0].RequestID != "req-revoke" || es[0].Actor.Type != "operator" {
				t.Fatalf("revoke events = %+v, want one by the operator in req-revoke", es)
			}
		})
	})
}

// TestEventsRolledBackChange checks that a change the service refuses
// after its transaction began leaves no event: an invoice create past the
// month's limit, a payment past what is due (refused under the invoice's
// lock), a change of an open invoice, a rating of an unsolved ticket, a
// read of an unknown notification, and the second delivery of the
// provider's payment.failed.
func TestEventsRolledBackChange(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: acme,
			body: invoiceBody("USD", `{"description":"Plan","quantity":1,"unit_amount":1000,"tax_rate_bps":0}`)})
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		invoiceID := r.json(t)["id"].(string)
		one := int64(1)
		check(t, e.svc.Entitlements.SetLimit(ctx, "acme", catalog.FeatureInvoices, &one))
		tests := []struct {
			name   string
			req    request
			status int
		}{
			{"InvoiceOverLimit", request{method: "POST", path: "/api/v1/collections/invoices",
				body: invoiceBody("USD", `{"description":"Plan","quantity":1,"unit_amount":1000,"tax_rate_bps":0}`)}, http.StatusForbidden},
			{"PaymentPastDue", request{method: "POST", path: "/api/v1/collections/invoices/" + invoiceID + "/payments",
				body: `{"amount":5000,"method":"cash"}`}, http.StatusUnprocessableEntity},
			{"UpdateOpenInvoice", request{method: "PATCH", path: "/api/v1/collections/invoices/" + invoiceID,
				body: `{"memo":"x"}`}, http.StatusConflict},
		}
		app, err := tenantkit.New(e.db, catalog.Default())
		check(t, err)
		_, err = app.Contracts.Change(ctx, e.acme.ID, contract.Change{AddModules: []string{catalog.ModuleCSAT}})
		check(t, err)
		r = e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: `{"subject":"s","description":"d"}`})
		if r.status != http.StatusCreated {
			t.Fatalf("ticket: %d %s", r.status, r.body)
		}
		ticketID := r.json(t)["id"].(string)
		tests = append(tests, []struct {
			name   string
			req    request
			status int
		}{
			// Refused under the ticket's lock: only a solved ticket is rated.
			{"RateOpenTicket", request{method: "POST", path: "/api/tickets/" + ticketID + "/satisfaction", body: `{"score":5}`}, http.StatusConflict},
			{"ReadUnknownNotification", request{method: "POST", path: "/api/tenant/notifications/ntf_" + strings.Repeat("0", 26) + "/read"}, http.StatusNotFound},
		}...)
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := len(acmeEvents(t, e, ""))
				reqID := fmt.Sprintf("req-refused-%d", i)
				tt.req.bearer, tt.req.header = e.keyAll, map[string]string{"X-Tenant-ID": e.acme.ID, "X-Request-ID": reqID}
				if r := e.do(t, tt.req); r.status != tt.status {
					t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
				}
				all := acmeEvents(t, e, "")
				if len(all) != before || len(byRequest(all, reqID)) != 0 {
					t.Fatalf("a refused change left events: %v", eventTypes(all[before:]))
				}
			})
		}
		// A redelivered payment.failed rolls its second delivery back:
		// one invoice.payment_failed event.
		t.Run("RedeliveredFailedPayment", func(t *testing.T) {
			body := paymentEvent(newEventID(), "payment.failed", invoiceID, 1000, "USD")
			for i := range 2 {
				wantAck(t, e.do(t, request{method: "POST", path: webhookPath, body: body, header: signed(t, webhookSecret, body)}), i == 1, "applied")
			}
			if got := acmeEvents(t, e, "type=invoice.payment_failed&resource_id="+invoiceID); len(got) != 1 {
				t.Fatalf("%d invoice.payment_failed events, want 1", len(got))
			}
		})
	})
}

// TestEventsIsolationAndAccess checks that a tenant sees only its own
// events (list and get: another tenant's is 404), that operators see
// every tenant's and filter by tenant_id, who may read the audit trail,
// and the list's filters and pages.
func TestEventsIsolationAndAccess(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		globex := map[string]string{"X-Tenant-ID": e.globex.ID}
		var acmeTickets []string
		for i := range 3 {
			r := e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme,
				body: fmt.Sprintf(`{"subject":"Acme %d","description":"d"}`, i)})
			if r.status != http.StatusCreated {
				t.Fatalf("ticket: %d %s", r.status, r.body)
			}
			acmeTickets = append(acmeTickets, r.json(t)["id"].(string))
		}
		r := e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: globex,
			body: `{"subject":"Globex","description":"d"}`})
		if r.status != http.StatusCreated {
			t.Fatalf("globex ticket: %d %s", r.status, r.body)
		}
		globexTicket := r.json(t)["id"].(string)
		_, opKey := newOperatorKey(t, e, opkey.ScopeRead)
		opList := func(query string) []apiEvent {
			es, _, _ := eventPage(t, e.do(t, request{method: "GET", path: "/api/operator/events?" + query, bearer: opKey}))
			return es
		}
		globexEvents := opList("tenant_id=" + e.globex.ID)
		if len(globexEvents) != 1 || globexEvents[0].Resource.ID != globexTicket || globexEvents[0].TenantID != e.globex.ID {
			t.Fatalf("operator's globex events = %+v, want its ticket.created", globexEvents)
		}
		globexEvent := globexEvents[0].ID

		t.Run("TenantListIsOwn", func(t *testing.T) {
			for _, ev := range acmeEvents(t, e, "") {
				if ev.TenantID != e.acme.ID {
					t.Fatalf("acme sees %+v", ev)
				}
			}
		})
		t.Run("OtherTenantsEventIs404", func(t *testing.T) {
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/events/" + globexEvent, bearer: e.keyAll, header: acme}),
				http.StatusNotFound, "not_found")
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/events/evt_nothing", bearer: e.keyAll, header: acme}),
				http.StatusNotFound, "not_found")
		})
		t.Run("OwnEvent", func(t *testing.T) {
			own := acmeEvents(t, e, "")[0]
			r := e.do(t, request{method: "GET", path: "/api/events/" + own.ID, bearer: e.keyAll, header: acme})
			if r.status != http.StatusOK || r.json(t)["id"] != own.ID {
				t.Fatalf("get own event: %d %s", r.status, r.body)
			}
		})
		t.Run("OperatorGetsAny", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: "/api/operator/events/" + globexEvent, bearer: opKey})
			if r.status != http.StatusOK || r.json(t)["tenant_id"] != e.globex.ID {
				t.Fatalf("operator get: %d %s", r.status, r.body)
			}
			if all := opList("limit=100"); len(all) < 4 {
				t.Fatalf("operator sees %d events, want every tenant's", len(all))
			}
		})
		t.Run("Access", func(t *testing.T) {
			// alice is a plain member at globex: no events:read.
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/events", bearer: e.keyAll, header: globex}),
				http.StatusForbidden, "forbidden")
			// bob is billing at acme: no events:read.
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/events", bearer: e.keyBob}),
				http.StatusForbidden, "forbidden")
			// alice's tickets-only key lacks collections:read.
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/events", bearer: e.keyNone, header: acme}),
				http.StatusForbidden, "insufficient_scope")
		})
		t.Run("Filters", func(t *testing.T) {
			mid := acmeEvents(t, e, "resource_id="+acmeTickets[1])
			if len(mid) != 1 || mid[0].Resource.ID != acmeTickets[1] {
				t.Fatalf("resource_id filter: %+v", mid)
			}
			if got := acmeEvents(t, e, "type=invoice.created"); len(got) != 0 {
				t.Fatalf("type filter: %+v", got)
			}
			if got := acmeEvents(t, e, "type=ticket.created"); len(got) != 3 {
				t.Fatalf("type filter: %d events, want 3", len(got))
			}
			at := url.QueryEscape(mid[0].CreatedAt.Format(time.RFC3339Nano))
			after, before := acmeEvents(t, e, "created_after="+at), acmeEvents(t, e, "created_before="+at)
			if len(after)+len(before) != 2 || slices.ContainsFunc(append(after, before...), func(ev apiEvent) bool { return ev.ID == mid[0].ID }) {
				t.Fatalf("time filters: after %v, before %v", eventTypes(after), eventTypes(before))
			}
		})
		t.Run("Pages", func(t *testing.T) {
			var ids []string
			path := "/api/events?limit=1"
			for range 10 {
				es, more, next := eventPage(t, e.do(t, request{method: "GET", path: path, bearer: e.keyAll, header: acme}))
				for _, ev := range es {
					ids = append(ids, ev.ID)
				}
				if !more {
					break
				}
				path = "/api/events?limit=1&cursor=" + next
			}
			if len(ids) != 3 || !slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }) {
				t.Fatalf("pages = %v, want 3 events newest first", ids)
			}
		})
		t.Run("BadFilters", func(t *testing.T) {
			for _, q := range []string{"created_after=yesterday", "created_before=2026-13-01T00:00:00Z", "type=" + strings.Repeat("x", 65), "cursor=%%%"} {
				r := e.do(t, request{method: "GET", path: "/api/events?" + q, bearer: e.keyAll, header: acme})
				if r.status != http.StatusBadRequest {
					t.Errorf("%s: %d %s, want 400", q, r.status, r.body)
				}
			}
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/operator/events?tenant_id=acme", bearer: opKey}),
				http.StatusBadRequest, "invalid_request")
		})
	})
}

// TestEventsPrune checks the scheduler's events.prune job: events older
// than the retention are deleted, newer ones kept, and a retention of 0
// keeps everything.
func TestEventsPrune(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		for range 2 {
			r := e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: `{"subject":"s","description":"d"}`})
			if r.status != http.StatusCreated {
				t.Fatalf("ticket: %d %s", r.status, r.body)
			}
		}
		app, err := tenantkit.New(e.db, catalog.Default())
		check(t, err)
		now := time.Now()
		tests := []struct {
			name      string
			retention time.Duration
			at        time.Time
			want      int
		}{
			{"KeepForever", 0, now.Add(1000 * time.Hour), 2},
			{"WithinRetention", time.Hour, now.Add(30 * time.Minute), 2},
			{"PastRetention", time.Hour, now.Add(2 * time.Hour), 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				app.EventRetention = tt.retention
				check(t, app.Scheduler.Tick(ctx, tt.at))
				// Ticking 1000 hours on also breaches the tickets' SLA,
				// which records events of its own: count the creations.
				if got := len(acmeEvents(t, e, "type=ticket.created")); got != tt.want {
					t.Fatalf("%d events left, want %d", got, tt.want)
				}
			})
		}
	})
}

// TestEventsOfProviderPayment checks the events of the payment provider's
// webhook: the system is the actor, and the request id is the delivery's.
func TestEventsOfProviderPayment(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		invoiceID := e.mustCreateInvoice(t, 1000)
		body := paymentEvent(newEventID(), "payment.succeeded", invoiceID, 1000, "USD")
		h := signed(t, webhookSecret, body)
		h["X-Request-ID"] = "req-provider-1"
		wantAck(t, e.do(t, request{method: "POST", path: webhookPath, body: body, header: h}), false, "applied")
		got := byRequest(acmeEvents(t, e, "resource_id="+invoiceID), "req-provider-1")
		if types := eventTypes(got); !slices.Equal(types, []string{"invoice.payment_recorded", "invoice.paid"}) {
			t.Fatalf("events = %v, want payment_recorded and paid", types)
		}
		for _, ev := range got {
			if ev.Actor.Type != "system" || ev.Actor.ID != "" || ev.Actor.CredentialID != "" {
				t.Errorf("actor = %+v, want the system", ev.Actor)
			}
		}
	})
}
