package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestOperatorActionsRecordEvents: every operator change made through the
// operator API records exactly one event of its type, of the right tenant,
// with the operator key as actor and credential.
func TestOperatorActionsRecordEvents(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		opKeyID, _ := newOperatorKeyID(t, o)
		seen := func() map[string]bool {
			es, _, _ := eventPage(t, o.call(t, "GET", "/api/operator/events?limit=100", ""))
			out := map[string]bool{}
			for _, e := range es {
				out[e.ID] = true
			}
			return out
		}
		var tenantID, userID, evApply, evDismiss, inv, ticket string
		members := func() string { return "/api/operator/tenants/" + tenantID + "/members" }
		cases := []struct {
			name, typ string
			tenant    func() string
			do        func(t *testing.T)
		}{
			{"TenantCreated", "tenant.created", func() string { return tenantID }, func(t *testing.T) {
				tenantID = o.mustCall(t, http.StatusCreated, "POST", "/api/operator/tenants", `{"slug":"initech","name":"Initech","plan_id":"starter"}`)["id"].(string)
			}},
			{"PlanChanged", "tenant.plan_changed", func() string { return tenantID }, func(t *testing.T) {
				o.mustCall(t, http.StatusOK, "PATCH", "/api/operator/tenants/"+tenantID, `{"plan_id":"enterprise"}`)
			}},
			{"LimitSet", "entitlement.limit_set", func() string { return tenantID }, func(t *testing.T) {
				o.mustCall(t, http.StatusOK, "PUT", "/api/operator/tenants/"+tenantID+"/limits/support.tickets", `{"limit":7}`)
			}},
			{"LimitCleared", "entitlement.limit_cleared", func() string { return tenantID }, func(t *testing.T) {
				o.mustCall(t, http.StatusOK, "PUT", "/api/operator/tenants/"+tenantID+"/limits/support.tickets", `{"limit":null}`)
			}},
			{"UserCreated", "user.created", func() string { return "" }, func(t *testing.T) {
				userID = o.mustCall(t, http.StatusCreated, "POST", "/api/operator/users", `{"email":"ann@initech.test","name":"Ann"}`)["id"].(string)
			}},
			{"MemberAdded", "member.added", func() string { return tenantID }, func(t *testing.T) {
				o.mustCall(t, http.StatusCreated, "POST", members(), fmt.Sprintf(`{"user_id":%q,"role":"member"}`, userID))
			}},
			{"MemberRoleChanged", "member.role_changed", func() string { return tenantID }, func(t *testing.T) {
				o.mustCall(t, http.StatusOK, "PATCH", members()+"/"+userID, `{"role":"billing"}`)
			}},
			{"MemberRemoved", "member.removed", func() string { return tenantID }, func(t *testing.T) {
				o.mustCall(t, http.StatusNoContent, "DELETE", members()+"/"+userID, "")
			}},
			{"PaymentEventApplied", "payment_event.applied", func() string { return o.acme.ID }, func(t *testing.T) {
				o.mustCall(t, http.StatusOK, "POST", "/api/operator/payment-events/"+evApply+"/apply", `{"invoice_id":"`+inv+`"}`)
			}},
			{"PaymentEventDismissed", "payment_event.dismissed", func() string { return "" }, func(t *testing.T) {
				o.mustCall(t, http.StatusOK, "POST", "/api/operator/payment-events/"+evDismiss+"/dismiss", `{"reason":"test payment"}`)
			}},
			{"TicketChanged", "ticket.updated", func() string { return o.acme.ID }, func(t *testing.T) {
				o.mustCall(t, http.StatusOK, "PATCH", "/api/operator/tickets/"+ticket, `{"priority":"high"}`)
			}},
			{"TicketReplied", "ticket.commented", func() string { return o.acme.ID }, func(t *testing.T) {
				o.mustCall(t, http.StatusCreated, "POST", "/api/operator/tickets/"+ticket+"/replies", `{"body":"Looking at it now."}`)
			}},
		}
		inv = o.mustCreateInvoice(t, 5000)
		evApply, _ = unmatchedEvent(t, o, "inv_unknown", 1200)
		evDismiss, _ = unmatchedEvent(t, o, "inv_unknown2", 300)
		acme := tickets{e: o.env, key: o.keyAll, header: map[string]string{"X-Tenant-ID": o.acme.ID}}
		ticket = acme.create(t, `{"subject":"Slow","description":"Reports"}`)["id"].(string)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := seen()
				tc.do(t)
				es, _, _ := eventPage(t, o.call(t, "GET", "/api/operator/events?limit=100", ""))
				var fresh []apiEvent
				for _, e := range es {
					// Applying a payment event also records the
					// invoice's own change, by the same operator.
					if !before[e.ID] && e.Type != "invoice.payment_recorded" {
						fresh = append(fresh, e)
					}
				}
				if len(fresh) != 1 {
					t.Fatalf("new events %v, want one %s", eventTypes(fresh), tc.typ)
				}
				e := fresh[0]
				if e.Type != tc.typ || e.TenantID != tc.tenant() {
					t.Errorf("event %s of tenant %q, want %s of %q", e.Type, e.TenantID, tc.typ, tc.tenant())
				}
				if e.Actor.Type != "operator" || e.Actor.ID != opKeyID || e.Actor.CredentialID != opKeyID || e.Actor.AuthMethod != "operator_key" {
					t.Errorf("actor %+v, want the operator key %s", e.Actor, opKeyID)
				}
				if e.Resource.ID == "" || len(e.Data) == 0 {
					t.Errorf("event %+v without its resource", e)
				}
			})
		}
	})
}
