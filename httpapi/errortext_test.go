package httpapi_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// resourceID finds tenantkit ids in a text.
var resourceID = regexp.MustCompile(`\b(?:inv|tkt|ccr|ten|usr|key|ntf|whe)_[0-9a-z]{26}\b`)

// packagePrefix finds the context Go code wraps around errors
// ("billing: invoice inv_…: ").
var packagePrefix = regexp.MustCompile(`\b(?:billing|tenancy|support|webhook|httpapi|database|idempotency|catalog):`)

// wantClientText checks that a problem's detail and field messages are
// sentences for the client: no package prefixes of wrapped Go errors, and
// no id the request did not carry itself.
func wantClientText(t *testing.T, req request, p map[string]any) {
	t.Helper()
	texts := []string{p["detail"].(string)}
	if errs, ok := p["errors"].([]any); ok {
		for _, fe := range errs {
			texts = append(texts, fe.(map[string]any)["message"].(string))
		}
	}
	sent := req.path + " " + req.body
	for _, v := range req.header {
		sent += " " + v
	}
	for _, text := range texts {
		if packagePrefix.MatchString(text) {
			t.Errorf("%q carries a wrapped Go error chain", text)
		}
		for _, found := range resourceID.FindAllString(text, -1) {
			if !strings.Contains(sent, found) {
				t.Errorf("%q names %s, which the request did not", text, found)
			}
		}
	}
}

// TestProblemDetailsAreClientSentences provokes each domain error through
// the API and checks the exact sentence the client reads, and, for limit
// problems, the limit, usage and resets_at members.
func TestProblemDetailsAreClientSentences(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		ticket := `{"subject":"Printer","description":"On fire."}`
		invoice := invoiceBody("USD", `{"description":"Plan","quantity":1,"unit_amount":100,"tax_rate_bps":0}`)
		_, _, periodEnd := tenancy.Period(time.Now())
		resets := periodEnd.Format(time.RFC3339)

		// acme may open 2 tickets and 1 invoice this month; both are used.
		two, one := int64(2), int64(1)
		check(t, e.svc.Entitlements.SetLimit(ctx, "acme", catalog.FeatureTickets, &two))
		check(t, e.svc.Entitlements.SetLimit(ctx, "acme", catalog.FeatureInvoices, &one))
		for range 2 {
			if r := e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: ticket}); r.status != http.StatusCreated {
				t.Fatalf("create ticket: %d %s", r.status, r.body)
			}
		}
		if r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob, body: invoice}); r.status != http.StatusCreated {
			t.Fatalf("create invoice: %d %s", r.status, r.body)
		}
		// A pending seats change, so that a second one conflicts.
		seats := `{"type":"change_seats","seats":12,"effective":"next_period"}`
		if r := e.do(t, request{method: "POST", path: "/api/contract-requests", bearer: e.keyBob, body: seats}); r.status != http.StatusCreated {
			t.Fatalf("submit contract request: %d %s", r.status, r.body)
		}
		unknownTenant := id.New(id.Tenant)
		webhookOff := withAPI(t, e, func(c *httpapi.Config) { c.Services.Webhooks, c.WebhookVerifier = nil, nil })
		noID := `{"type":"payment.succeeded","data":{}}`

		tests := []struct {
			name   string
			srv    *env // nil: e
			req    request
			status int
			code   string
			detail string
			// messages are the errors[] messages, in order.
			messages []string
			// limit and usage are the limit members (with resets_at).
			limit, usage int64
		}{
			{name: "InvoiceNotFound",
				req:    request{method: "GET", path: "/api/v1/collections/invoices/" + id.New(id.Invoice), bearer: e.keyBob},
				status: 404, code: "not_found", detail: "invoice not found"},
			{name: "TicketNotFound",
				req:    request{method: "GET", path: "/api/tickets/" + id.New(id.Ticket), bearer: e.keyAll, header: acme},
				status: 404, code: "not_found", detail: "ticket not found"},
			{name: "ContractRequestNotFound",
				req:    request{method: "GET", path: "/api/contract-requests/" + id.New(id.Contract), bearer: e.keyBob},
				status: 404, code: "not_found", detail: "contract request not found"},
			{name: "TenantNotFoundAmongYours",
				req:    request{method: "POST", path: "/api/tenant/select", bearer: e.keyBob, body: `{"tenant_id":"` + unknownTenant + `"}`},
				status: 404, code: "not_found", detail: `tenant "` + unknownTenant + `" not found among your tenants`},
			{name: "TicketLimitExceeded",
				req:    request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: ticket},
				status: 403, code: "entitlement_limit_exceeded",
				detail: "monthly limit of 2 tickets reached; resets " + resets, limit: 2, usage: 2},
			{name: "InvoiceLimitExceeded",
				req:    request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob, body: invoice},
				status: 403, code: "entitlement_limit_exceeded",
				detail: "monthly limit of 1 invoice reached; resets " + resets, limit: 1, usage: 1},
			{name: "ConflictPendingRequest",
				req:    request{method: "POST", path: "/api/contract-requests", bearer: e.keyBob, body: seats},
				status: 409, code: "conflict", detail: "another change_seats request is pending; wait for its decision"},
			{name: "TenantNotSelected",
				req:    request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyAll},
				status: 409, code: "tenant_not_selected",
				detail: "no active tenant selected; choose one with POST /api/tenant/select or the X-Tenant-ID header"},
			{name: "NotAMember",
				req:    request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyBob, header: map[string]string{"X-Tenant-ID": e.globex.ID}},
				status: 403, code: "forbidden", detail: "you are not a member of this tenant"},
			{name: "RoleForbidden",
				req: request{method: "PATCH", path: "/api/tenant/entitlements/toggle", bearer: e.keyBob,
					body: `{"module":"support.tickets","enabled":false}`},
				status: 403, code: "forbidden", detail: `your role "billing" lacks the permission "entitlements:manage"`},
			{name: "InsufficientScope",
				req:    request{method: "POST", path: "/api/tickets", bearer: e.keyNone, header: acme, body: ticket},
				status: 403, code: "insufficient_scope", detail: `this endpoint needs the scope "tickets:write"`},
			{name: "ValidationOneField",
				req: request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme,
					body: `{"subject":"` + strings.Repeat("s", 201) + `","description":"d"}`},
				status: 422, code: "validation_failed", detail: "subject must have at most 200 characters",
				messages: []string{"subject must have at most 200 characters"}},
			{name: "ValidationFromTheDomain",
				req:    request{method: "GET", path: "/api/tenant/entitlements/limit?feature=rockets", bearer: e.keyAll, header: acme},
				status: 422, code: "validation_failed",
				detail:   "feature must be one of collections.invoices, support.tickets, seats",
				messages: []string{"feature must be one of collections.invoices, support.tickets, seats"}},
			{name: "ValidationSeveralFields",
				req: request{method: "POST", path: "/api/contract-requests", bearer: e.keyBob,
					body: `{"type":"upgrade","effective":"soon"}`},
				status: 422, code: "validation_failed",
				detail: "type must be one of: change_plan, add_module, remove_module, change_seats; effective must be one of: next_period, immediately",
				messages: []string{"type must be one of: change_plan, add_module, remove_module, change_seats",
					"effective must be one of: next_period, immediately"}},
			{name: "UnknownField",
				req:    request{method: "POST", path: "/api/tenant/select", bearer: e.keyAll, body: `{"tenant_id":"x","extra":1}`},
				status: 400, code: "invalid_request", detail: "request body has an unknown field",
				messages: []string{"extra is not a known field"}},
			{name: "WebhookUnsigned",
				req:    request{method: "POST", path: webhookPath, body: noID},
				status: 401, code: "unauthenticated",
				detail: "invalid webhook signature: the webhook-id, webhook-timestamp and webhook-signature headers are required"},
			{name: "WebhookMalformed",
				req:    request{method: "POST", path: webhookPath, body: noID, header: signed(t, webhookSecret, noID)},
				status: 400, code: "invalid_request", detail: "malformed webhook event: id is required"},
			{name: "WebhookNotConfigured", srv: webhookOff,
				req:    request{method: "POST", path: webhookPath, body: noID},
				status: 501, code: "not_implemented", detail: "this endpoint is not configured on this server"},
			// Last: switching the tickets module off.
			{name: "ModuleDisabled",
				req:    request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: ticket},
				status: 403, code: "module_disabled", detail: "the support.tickets module is disabled for this tenant"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.code == "module_disabled" {
					r := e.do(t, request{method: "PATCH", path: "/api/tenant/entitlements/toggle", bearer: e.keyAll, header: acme,
						body: `{"module":"support.tickets","enabled":false}`})
					if r.status != http.StatusOK {
						t.Fatalf("toggle: %d %s", r.status, r.body)
					}
				}
				srv := e
				if tt.srv != nil {
					srv = tt.srv
				}
				r := srv.do(t, tt.req)
				wantProblem(t, r, tt.status, tt.code)
				p := r.json(t)
				if p["detail"] != tt.detail {
					t.Errorf("detail = %q\n      want %q", p["detail"], tt.detail)
				}
				var messages []string
				if errs, ok := p["errors"].([]any); ok {
					for _, fe := range errs {
						messages = append(messages, fe.(map[string]any)["message"].(string))
					}
				}
				if strings.Join(messages, "\n") != strings.Join(tt.messages, "\n") {
					t.Errorf("errors[].message = %q, want %q", messages, tt.messages)
				}
				wantClientText(t, tt.req, p)
				if tt.code == "entitlement_limit_exceeded" {
					if p["limit"] != float64(tt.limit) || p["usage"] != float64(tt.usage) || p["resets_at"] != resets {
						t.Errorf("limit, usage, resets_at = %v, %v, %v; want %d, %d, %s", p["limit"], p["usage"], p["resets_at"], tt.limit, tt.usage, resets)
					}
				} else {
					for _, member := range []string{"limit", "usage", "resets_at"} {
						if _, ok := p[member]; ok {
							t.Errorf("a %s problem has %q", tt.code, member)
						}
					}
				}
			})
		}
	})
}

// TestLimitProblemAtZero covers a limit of 0, refused before any usage is
// counted: usage 0, and the sentence still names the limit.
func TestLimitProblemAtZero(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		zero := int64(0)
		check(t, e.svc.Entitlements.SetLimit(context.Background(), "acme", catalog.FeatureInvoices, &zero))
		r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
			body: invoiceBody("USD", `{"description":"Plan","quantity":1,"unit_amount":100,"tax_rate_bps":0}`)})
		wantProblem(t, r, http.StatusForbidden, "entitlement_limit_exceeded")
		_, _, end := tenancy.Period(time.Now())
		p := r.json(t)
		if want := "monthly limit of 0 invoices reached; resets " + end.Format(time.RFC3339); p["detail"] != want {
			t.Errorf("detail = %q, want %q", p["detail"], want)
		}
		if p["limit"] != 0.0 || p["usage"] != 0.0 {
			t.Errorf("limit, usage = %v, %v; want 0, 0", p["limit"], p["usage"])
		}
	})
}
