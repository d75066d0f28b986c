package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/webhook"
)

// submitRequest submits a contract request as bob at acme and returns its id.
func submitRequest(t *testing.T, o opEnv, body string) string {
	t.Helper()
	r := o.do(t, request{method: "POST", path: "/api/contract-requests", bearer: o.keyBob, body: body})
	if r.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	return r.json(t)["id"].(string)
}

func TestOperatorContractRequests(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		seats := submitRequest(t, o, `{"type":"change_seats","seats":30,"effective":"immediately"}`)
		plan := submitRequest(t, o, `{"type":"change_plan","plan_id":"enterprise","effective":"next_period"}`)
		module := submitRequest(t, o, `{"type":"add_module","module_id":"support.csat","effective":"immediately"}`)

		t.Run("List", func(t *testing.T) {
			all := o.mustCall(t, http.StatusOK, "GET", "/api/operator/contract-requests", "")
			if got, want := listIDs(t, all, "id"), []string{module, plan, seats}; !slices.Equal(got, want) {
				t.Fatalf("list: %v, want %v", got, want)
			}
			page := o.mustCall(t, http.StatusOK, "GET", "/api/operator/contract-requests?limit=2&status=pending&tenant_id="+o.acme.ID, "")
			if page["has_more"] != true || len(listIDs(t, page, "id")) != 2 {
				t.Fatalf("page: %v", page)
			}
			rest := o.mustCall(t, http.StatusOK, "GET", "/api/operator/contract-requests?limit=2&cursor="+page["next_cursor"].(string), "")
			if got := listIDs(t, rest, "id"); !slices.Equal(got, []string{seats}) {
				t.Fatalf("second page: %v", got)
			}
			none := o.mustCall(t, http.StatusOK, "GET", "/api/operator/contract-requests?tenant_id="+o.globex.ID, "")
			if len(none["data"].([]any)) != 0 {
				t.Fatalf("globex has no requests: %v", none)
			}
			wantProblem(t, o.call(t, "GET", "/api/operator/contract-requests?status=open", ""), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "GET", "/api/operator/contract-requests?tenant_id=acme", ""), http.StatusUnprocessableEntity, "validation_failed")
		})
		t.Run("ApproveImmediately", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "POST", "/api/operator/contract-requests/"+seats+"/approve", "")
			if got["status"] != "applied" || got["applied_at"] == nil {
				t.Fatalf("approved immediately: %v, want applied", got)
			}
			tenant := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tenants/"+o.acme.ID, "")
			if tenant["seats"] != float64(30) {
				t.Fatalf("seats after approval: %v, want 30", tenant["seats"])
			}
			if n := notesAbout(t, o.env, seats); n["applied"] != 1 {
				t.Fatalf("notifications %v, want one applied", n)
			}
			wantProblem(t, o.call(t, "POST", "/api/operator/contract-requests/"+seats+"/approve", ""), http.StatusConflict, "conflict")
		})
		t.Run("ApproveNextPeriod", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "POST", "/api/operator/contract-requests/"+plan+"/approve", "")
			if got["status"] != "approved" || got["effective_at"] == nil || got["applied_at"] != nil {
				t.Fatalf("approved for next period: %v", got)
			}
			tenant := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tenants/"+o.acme.ID, "")
			if tenant["plan_id"] != "growth" {
				t.Fatalf("plan changed before its period: %v", tenant["plan_id"])
			}
		})
		t.Run("Reject", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/contract-requests/"+module+"/reject", `{}`), http.StatusUnprocessableEntity, "validation_failed")
			got := o.mustCall(t, http.StatusOK, "POST", "/api/operator/contract-requests/"+module+"/reject", `{"reason":"CSAT comes with the next plan"}`)
			if got["status"] != "rejected" || got["reason"] != "CSAT comes with the next plan" {
				t.Fatalf("rejected: %v", got)
			}
			if n := notesAbout(t, o.env, module); n["rejected"] != 1 {
				t.Fatalf("notifications %v, want one rejected", n)
			}
			wantProblem(t, o.call(t, "POST", "/api/operator/contract-requests/"+module+"/reject", `{"reason":"again"}`), http.StatusConflict, "conflict")
		})
		t.Run("NotFound", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/contract-requests/"+id.New(id.Contract)+"/approve", ""), http.StatusNotFound, "not_found")
			wantProblem(t, o.call(t, "POST", "/api/operator/contract-requests/nope/reject", `{"reason":"x"}`), http.StatusNotFound, "not_found")
		})
	})
}

// TestOperatorApproveConcurrent: two operators approving one request at
// once apply it once: one 200, one 409.
func TestOperatorApproveConcurrent(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		for round := range 3 {
			req := submitRequest(t, o, fmt.Sprintf(`{"type":"change_seats","seats":%d,"effective":"immediately"}`, 20+round))
			_, second := newOperatorKey(t, o.env, "operator:read", "operator:write")
			statuses := make([]int, 2)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i, key := range []string{o.key, second} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					statuses[i] = o.do(t, request{method: "POST", path: "/api/operator/contract-requests/" + req + "/approve", bearer: key}).status
				}()
			}
			close(start)
			wg.Wait()
			slices.Sort(statuses)
			if !slices.Equal(statuses, []int{http.StatusOK, http.StatusConflict}) {
				t.Fatalf("round %d: statuses %v, want one 200 and one 409", round, statuses)
			}
			if n := notesAbout(t, o.env, req); n["applied"] != 1 || len(n) != 1 {
				t.Fatalf("round %d: notifications %v, want one applied", round, n)
			}
		}
	})
}

func TestOperatorTickets(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		acme := tickets{e: o.env, key: o.keyAll, header: map[string]string{"X-Tenant-ID": o.acme.ID}}
		urgent := acme.create(t, `{"subject":"Down","description":"All of it","priority":"urgent"}`)["id"].(string)
		normal := acme.create(t, `{"subject":"Slow","description":"Reports"}`)["id"].(string)

		t.Run("List", func(t *testing.T) {
			all := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tickets", "")
			if got := listIDs(t, all, "id"); !slices.Equal(got, []string{normal, urgent}) {
				t.Fatalf("list: %v", got)
			}
			if all["data"].([]any)[0].(map[string]any)["tenant_id"] != o.acme.ID {
				t.Fatalf("ticket without its tenant: %v", all["data"])
			}
			for query, want := range map[string][]string{
				"priority=urgent":                    {urgent},
				"status=open&tenant_id=" + o.acme.ID: {normal, urgent},
				"tenant_id=" + o.globex.ID:           nil,
				"assignee=nobody":                    nil,
			} {
				if got := listIDs(t, o.mustCall(t, http.StatusOK, "GET", "/api/operator/tickets?"+query, ""), "id"); !slices.Equal(got, want) {
					t.Errorf("?%s: %v, want %v", query, got, want)
				}
			}
			wantProblem(t, o.call(t, "GET", "/api/operator/tickets?priority=asap", ""), http.StatusUnprocessableEntity, "validation_failed")
		})
		t.Run("Get", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tickets/"+urgent, "")
			if got["id"] != urgent || got["tenant_id"] != o.acme.ID {
				t.Fatalf("get: %v", got)
			}
			wantProblem(t, o.call(t, "GET", "/api/operator/tickets/"+id.New(id.Ticket), ""), http.StatusNotFound, "not_found")
		})
		t.Run("Change", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "PATCH", "/api/operator/tickets/"+normal, `{"status":"pending","priority":"high","assignee_id":"agent-7"}`)
			if got["status"] != "pending" || got["priority"] != "high" || got["assignee_id"] != "agent-7" {
				t.Fatalf("changed: %v", got)
			}
			if got := listIDs(t, o.mustCall(t, http.StatusOK, "GET", "/api/operator/tickets?assignee=agent-7", ""), "id"); !slices.Equal(got, []string{normal}) {
				t.Fatalf("?assignee=agent-7: %v", got)
			}
			got = o.mustCall(t, http.StatusOK, "PATCH", "/api/operator/tickets/"+normal, `{"assignee_id":null}`)
			if got["assignee_id"] != nil {
				t.Fatalf("unassigned: %v", got)
			}
			wantProblem(t, o.call(t, "PATCH", "/api/operator/tickets/"+normal, `{}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "PATCH", "/api/operator/tickets/"+normal, `{"assignee_id":7}`), http.StatusBadRequest, "invalid_request")
			o.mustCall(t, http.StatusOK, "PATCH", "/api/operator/tickets/"+normal, `{"status":"closed"}`)
			wantProblem(t, o.call(t, "PATCH", "/api/operator/tickets/"+normal, `{"status":"open"}`), http.StatusConflict, "conflict")
			wantProblem(t, o.call(t, "POST", "/api/operator/tickets/"+normal+"/replies", `{"body":"late"}`), http.StatusConflict, "conflict")
		})
		t.Run("ReplyValidation", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/tickets/"+urgent+"/replies", `{"body":""}`), http.StatusUnprocessableEntity, "validation_failed")
		})
	})
}

// TestOperatorReplyStopsFirstResponseClock: an operator's reply sets
// first_responded_at, so that a later SLA check past the first-response
// target does not breach the ticket; without the reply it does.
func TestOperatorReplyStopsFirstResponseClock(t *testing.T) {
	for _, reply := range []bool{true, false} {
		t.Run(fmt.Sprintf("Reply=%v", reply), func(t *testing.T) {
			eachOpEnv(t, func(t *testing.T, o opEnv) {
				acme := tickets{e: o.env, key: o.keyAll, header: map[string]string{"X-Tenant-ID": o.acme.ID}}
				tk := acme.create(t, `{"subject":"Down","description":"All of it","priority":"urgent"}`)["id"].(string)
				opKey, _ := newOperatorKeyID(t, o)
				if reply {
					c := o.mustCall(t, http.StatusCreated, "POST", "/api/operator/tickets/"+tk+"/replies", `{"body":"Looking at it now."}`)
					if author := c["author"].(map[string]any); author["type"] != "agent" || author["id"] != opKey {
						t.Fatalf("reply author %v, want the agent %s", author, opKey)
					}
					got := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tickets/"+tk, "")
					if got["first_responded_at"] == nil {
						t.Fatalf("first_responded_at not set: %v", got)
					}
				}
				app, err := tenantkit.New(o.db, catalog.Default())
				check(t, err)
				// Past the urgent first-response target (1 h), before the
				// resolution target (8 h).
				if _, err := app.Support.CheckSLA(context.Background(), time.Now().Add(2*time.Hour)); err != nil {
					t.Fatal(err)
				}
				got := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tickets/"+tk, "")
				if breached := got["sla_breached"] == true; breached == reply {
					t.Fatalf("sla_breached = %v after the check, with reply %v", got["sla_breached"], reply)
				}
			})
		})
	}
}

// newOperatorKeyID returns the id of o's operator key, as the key's
// secret's owner: the agent id its replies carry.
func newOperatorKeyID(t *testing.T, o opEnv) (string, error) {
	t.Helper()
	app, err := tenantkit.New(o.db, catalog.Default())
	check(t, err)
	k, err := app.Operators.Authenticate(context.Background(), o.key)
	check(t, err)
	return k.ID, nil
}

// unmatchedEvent delivers a payment of amount on invoiceID that the
// invoice does not take, and returns the event's id and body.
func unmatchedEvent(t *testing.T, o opEnv, invoiceID string, amount int64) (string, string) {
	t.Helper()
	evID := newEventID()
	body := paymentEvent(evID, webhook.TypePaymentSucceeded, invoiceID, amount, "USD")
	r := o.deliver(t, body)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"unmatched"`) {
		t.Fatalf("delivery: %d %s, want an unmatched event", r.status, r.body)
	}
	return evID, body
}

// draftInvoice creates a draft invoice of total at acme.
func draftInvoice(t *testing.T, o opEnv, total int64) string {
	t.Helper()
	r := o.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: o.keyBob,
		body: fmt.Sprintf(`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","status":"draft","line_items":[{"description":"Plan","quantity":1,"unit_amount":%d,"tax_rate_bps":0}]}`, total)})
	if r.status != http.StatusCreated {
		t.Fatalf("create draft: %d %s", r.status, r.body)
	}
	return r.json(t)["id"].(string)
}

// TestOperatorPaymentEventsPages: a provider's event ids are its own
// (upper case, dots, up to 128 characters), and the list still pages
// through them one at a time with the cursors it hands out.
func TestOperatorPaymentEventsPages(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		ids := []string{"evt_1QbX.Live:A", strings.Repeat("E", webhook.MaxEventIDLen)}
		for _, id := range ids {
			if r := o.deliver(t, paymentEvent(id, webhook.TypePaymentSucceeded, "inv_unknown", 100, "USD")); r.status != http.StatusOK {
				t.Fatalf("delivery of %s: %d %s", id, r.status, r.body)
			}
		}
		var seen []string
		path := "/api/operator/payment-events?limit=1"
		for range 3 {
			page := o.mustCall(t, http.StatusOK, "GET", path, "")
			seen = append(seen, listIDs(t, page, "id")...)
			next, _ := page["next_cursor"].(string)
			if next == "" {
				break
			}
			path = "/api/operator/payment-events?limit=1&cursor=" + next
		}
		slices.Sort(seen)
		slices.Sort(ids)
		if !slices.Equal(seen, ids) {
			t.Fatalf("pages held %q, want %q", seen, ids)
		}
	})
}

func TestOperatorPaymentEvents(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		inv := o.mustCreateInvoice(t, 5000)
		lost, lostBody := unmatchedEvent(t, o, "inv_unknown", 1200)
		other, _ := unmatchedEvent(t, o, "inv_unknown2", 300)

		t.Run("List", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "GET", "/api/operator/payment-events", "")
			ids := listIDs(t, got, "id")
			slices.Sort(ids)
			want := []string{lost, other}
			slices.Sort(want)
			if !slices.Equal(ids, want) {
				t.Fatalf("unmatched events %v, want %v", ids, want)
			}
			ev := got["data"].([]any)[0].(map[string]any)
			if ev["outcome"] != "unmatched" || ev["reason"] == "" || ev["payload"].(map[string]any)["type"] != "payment.succeeded" {
				t.Fatalf("event: %v", ev)
			}
			if n := len(o.mustCall(t, http.StatusOK, "GET", "/api/operator/payment-events?outcome=applied", "")["data"].([]any)); n != 0 {
				t.Fatalf("%d applied events, want 0", n)
			}
			wantProblem(t, o.call(t, "GET", "/api/operator/payment-events?outcome=lost", ""), http.StatusUnprocessableEntity, "validation_failed")
		})
		t.Run("ApplyRefused", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/"+lost+"/apply", `{"invoice_id":"inv_nothing"}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/"+lost+"/apply", `{}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/"+lost+"/apply", `{"invoice_id":"`+draftInvoice(t, o, 100)+`"}`), http.StatusConflict, "conflict")
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/evt_none/apply", `{"invoice_id":"`+inv+`"}`), http.StatusNotFound, "not_found")
			if got := o.invoiceState(t, inv); got.paid != 0 {
				t.Fatalf("a refused apply moved money: %+v", got)
			}
		})
		t.Run("ApplyOnce", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "POST", "/api/operator/payment-events/"+lost+"/apply", `{"invoice_id":"`+inv+`"}`)
			if got["outcome"] != "applied" || got["invoice_id"] != inv || got["tenant_id"] != o.acme.ID {
				t.Fatalf("applied: %v", got)
			}
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/"+lost+"/apply", `{"invoice_id":"`+inv+`"}`), http.StatusConflict, "conflict")
			if r := o.deliver(t, lostBody); r.status != http.StatusOK || !strings.Contains(string(r.body), `"duplicate":true`) {
				t.Fatalf("redelivery: %d %s", r.status, r.body)
			}
			if got, want := o.invoiceState(t, inv), (invoiceState{paid: 1200, due: 3800, status: "open"}); got != want {
				t.Fatalf("invoice %+v, want %+v", got, want)
			}
			if n := o.paymentNotifications(t, inv); n != 1 {
				t.Fatalf("%d notifications, want 1", n)
			}
		})
		t.Run("Dismiss", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/"+other+"/dismiss", `{"reason":""}`), http.StatusUnprocessableEntity, "validation_failed")
			got := o.mustCall(t, http.StatusOK, "POST", "/api/operator/payment-events/"+other+"/dismiss", `{"reason":"test payment"}`)
			if got["outcome"] != "dismissed" || got["reason"] != "test payment" {
				t.Fatalf("dismissed: %v", got)
			}
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/"+other+"/dismiss", `{"reason":"again"}`), http.StatusConflict, "conflict")
			wantProblem(t, o.call(t, "POST", "/api/operator/payment-events/"+other+"/apply", `{"invoice_id":"`+inv+`"}`), http.StatusConflict, "conflict")
			if n := len(o.mustCall(t, http.StatusOK, "GET", "/api/operator/payment-events", "")["data"].([]any)); n != 0 {
				t.Fatalf("%d unmatched events left, want 0", n)
			}
		})
		t.Run("PayloadCompacted", func(t *testing.T) {
			evID := newEventID()
			sent := strings.ReplaceAll(paymentEvent(evID, webhook.TypePaymentSucceeded, "inv_unknown3", 100, "USD"), `,"`, ",\n  \"")
			if r := o.deliver(t, sent); r.status != http.StatusOK {
				t.Fatalf("delivery: %d %s", r.status, r.body)
			}
			var compact bytes.Buffer
			check(t, json.Compact(&compact, []byte(sent)))
			r := o.call(t, "GET", "/api/operator/payment-events", "") // the one unmatched event left
			if r.status != http.StatusOK || !strings.Contains(string(r.body), `"payload":`+compact.String()) {
				t.Fatalf("answer %d %s, want the payload %s", r.status, r.body, compact.String())
			}
		})
	})
}

// TestOperatorApplyRacesRedelivery: an event unmatched because its
// invoice was a draft; the invoice is then finalised, and the operator's
// apply races the provider's redelivery of the event, which would now
// match. The money moves once, whoever wins.
func TestOperatorApplyRacesRedelivery(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		app, err := tenantkit.New(o.db, catalog.Default())
		check(t, err)
		for round := range 4 {
			inv := draftInvoice(t, o, 5000)
			evID, body := unmatchedEvent(t, o, inv, 1000)
			if _, err := app.Billing.Finalize(context.Background(), o.acme.ID, inv); err != nil {
				t.Fatal(err)
			}
			var (
				wg       sync.WaitGroup
				start    = make(chan struct{})
				applied  response
				redelivr response
			)
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				applied = o.do(t, request{method: "POST", path: "/api/operator/payment-events/" + evID + "/apply",
					body: `{"invoice_id":"` + inv + `"}`, bearer: o.key})
			}()
			go func() {
				defer wg.Done()
				<-start
				redelivr = o.deliver(t, body)
			}()
			close(start)
			wg.Wait()
			if applied.status != http.StatusOK || redelivr.status != http.StatusOK {
				t.Fatalf("round %d: apply %d %s, redelivery %d %s", round, applied.status, applied.body, redelivr.status, redelivr.body)
			}
			if got := o.invoiceState(t, inv); got.paid != 1000 {
				t.Fatalf("round %d: paid %v, want 1000 (once)", round, got.paid)
			}
		}
	})
}
