package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
)

// TestValidationCodes checks errors[] of 422 answers end to end: each
// domain checks its own input, so one rule has one code (documented in
// docs/api.md) whichever endpoint and field it concerns, and the fields
// come in the order of the input.
func TestValidationCodes(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		line := `{"description":"Plan","quantity":1,"unit_amount":100}`
		invoice := func(customer, currency, rest string) string {
			return `{"customer":` + customer + `,"currency":"` + currency + `","line_items":[` + line + `]` + rest + `}`
		}
		ada := `{"name":"Ada","email":"ada@example.com"}`
		tests := []struct {
			name, path, body string
			bearer           string
			want             []string // "field code", in order
		}{
			{name: "InvoiceRequired", path: "/api/v1/collections/invoices", bearer: e.keyBob,
				body: `{"customer":{"name":" ","email":""},"currency":"","line_items":[]}`,
				want: []string{"customer.name required", "customer.email required", "currency required", "line_items required"}},
			{name: "InvoiceTooLong", path: "/api/v1/collections/invoices", bearer: e.keyBob,
				body: invoice(`{"name":"`+strings.Repeat("n", 201)+`","email":"ada@example.com"}`, "USD", `,"memo":"`+strings.Repeat("m", 2001)+`"`),
				want: []string{"customer.name too_long", "memo too_long"}},
			{name: "InvoiceTooMany", path: "/api/v1/collections/invoices", bearer: e.keyBob,
				body: `{"customer":` + ada + `,"currency":"USD","line_items":[` + strings.Repeat(line+",", 100) + line + `]}`,
				want: []string{"line_items too_many"}},
			{name: "InvoiceOutOfRange", path: "/api/v1/collections/invoices", bearer: e.keyBob,
				body: `{"customer":` + ada + `,"currency":"USD","line_items":[{"description":"x","quantity":0,"unit_amount":-1,"tax_rate_bps":10001}]}`,
				want: []string{"line_items[0].quantity out_of_range", "line_items[0].unit_amount out_of_range", "line_items[0].tax_rate_bps out_of_range"}},
			{name: "InvoiceInvalid", path: "/api/v1/collections/invoices", bearer: e.keyBob,
				body: invoice(`{"name":"Ada","email":"nope"}`, "usd", `,"status":"paid","due_date":"2026-02-30"`),
				want: []string{"customer.email invalid", "currency invalid", "status invalid", "due_date invalid"}},
			{name: "InvoiceControlCharacter", path: "/api/v1/collections/invoices", bearer: e.keyBob,
				body: invoice(`{"name":"Ada\u001b[31m","email":"ada@example.com"}`, "USD", ""),
				want: []string{"customer.name control_character"}},
			{name: "TicketRequiredAndTooLong", path: "/api/tickets", bearer: e.keyAll,
				body: `{"subject":"","description":"` + strings.Repeat("d", 10001) + `"}`,
				want: []string{"subject required", "description too_long"}},
			{name: "TicketTooManyAndInvalid", path: "/api/tickets", bearer: e.keyAll,
				body: `{"subject":"s","description":"d","priority":"asap","tags":["a","b","c","d","e","f","g","h","i","j","k"]}`,
				want: []string{"priority invalid", "tags too_many"}},
			{name: "ContractRequest", path: "/api/contract-requests", bearer: e.keyBob,
				body: `{"type":"upgrade","effective":"soon"}`,
				want: []string{"type invalid", "effective invalid"}},
			{name: "SelectTenantRequired", path: "/api/tenant/select", bearer: e.keyAll,
				body: `{"tenant_id":""}`,
				want: []string{"tenant_id required"}},
			{name: "SelectTenantNotAnID", path: "/api/tenant/select", bearer: e.keyAll,
				body: `{"tenant_id":"ten_` + strings.Repeat("0", 61) + `"}`,
				want: []string{"tenant_id invalid"}},
			{name: "WebhookEndpoint", path: "/api/webhook-endpoints", bearer: e.keyAll,
				body: `{"url":"","description":"` + strings.Repeat("d", 501) + `","event_types":["nope"]}`,
				want: []string{"url required", "description too_long", "event_types[0] invalid"}},
			{name: "WebhookEndpointTooMany", path: "/api/webhook-endpoints", bearer: e.keyAll,
				body: `{"url":"https://` + strings.Repeat("h", 2048) + `","description":"a\u0007","event_types":[` + strings.Repeat(`"x",`, 50) + `"x"]}`,
				want: []string{"url too_long", "description control_character", "event_types too_many"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: tt.path, bearer: tt.bearer, header: acme, body: tt.body})
				if got := fieldCodes(t, r); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Fatalf("errors[] = %q, want %q", got, tt.want)
				}
			})
		}
		t.Run("ToggleRequired", func(t *testing.T) {
			r := e.do(t, request{method: "PATCH", path: "/api/tenant/entitlements/toggle", bearer: e.keyAll, header: acme, body: `{}`})
			if got, want := fieldCodes(t, r), "module required\nenabled required"; strings.Join(got, "\n") != want {
				t.Fatalf("errors[] = %q, want %q", got, want)
			}
		})
	})
}

// TestOperatorValidationCodes: the operator bodies the edge checks itself
// (the services check the rest).
func TestOperatorValidationCodes(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		members := "/api/operator/tenants/" + o.acme.ID + "/members"
		tests := []struct {
			name, method, path, body string
			want                     []string // "field code", in order
		}{
			{"MemberNothing", "POST", members, `{}`, []string{"user_id required", "role required"}},
			{"MemberBothRefs", "POST", members, `{"user_id":"` + o.bob.ID + `","email":"bob@example.com","role":"member"}`, []string{"email invalid"}},
			{"MemberNotAUserID", "POST", members, `{"user_id":"bob","role":"member"}`, []string{"user_id invalid"}},
			{"MemberNoRole", "POST", members, `{"email":"bob@example.com"}`, []string{"role required"}},
			{"SetRoleNoRole", "PATCH", members + "/" + o.bob.ID, `{"role":""}`, []string{"role required"}},
			{"APIKeyNotAUserID", "POST", "/api/operator/tenants/" + o.acme.ID + "/api-keys", `{"user_id":"usr_x","scopes":["tickets:read"]}`, []string{"user_id invalid"}},
			{"APIKeyNoUser", "POST", "/api/operator/tenants/" + o.acme.ID + "/api-keys", `{"scopes":["tickets:read"]}`, []string{"user_id required"}},
			{"RejectBlankReason", "POST", "/api/operator/contract-requests/" + id.New(id.Contract) + "/reject", `{"reason":" \n"}`, []string{"reason required"}},
			{"RejectLongReason", "POST", "/api/operator/contract-requests/" + id.New(id.Contract) + "/reject", `{"reason":"` + strings.Repeat("r", 1001) + `"}`, []string{"reason too_long"}},
			{"DismissLongReason", "POST", "/api/operator/payment-events/evt_none/dismiss", `{"reason":"` + strings.Repeat("r", 501) + `"}`, []string{"reason too_long"}},
			{"ApplyNotAnInvoiceID", "POST", "/api/operator/payment-events/evt_none/apply", `{"invoice_id":"inv_x"}`, []string{"invoice_id invalid"}},
			{"MemberBadEmailAndRole", "POST", members, `{"email":"Bob <bob@example.com>","role":"king"}`, []string{"email invalid", "role invalid"}},
			{"APIKeyTooManyScopes", "POST", "/api/operator/tenants/" + o.acme.ID + "/api-keys",
				`{"email":"bob@acme.test","scopes":["tickets:read","tickets:read","tickets:read","tickets:read","tickets:read"],"name":"a\u0007"}`,
				[]string{"scopes too_many", "name control_character"}},
			{"TenantBadSlugAndPlan", "POST", "/api/operator/tenants", `{"slug":"Acme","name":"Acme","plan_id":"` + strings.Repeat("p", 65) + `"}`, []string{"slug invalid", "plan_id too_long"}},
			{"TenantSeatsZero", "PATCH", "/api/operator/tenants/" + o.acme.ID, `{"seats":0}`, []string{"seats out_of_range"}},
			{"TicketBadStatusAndPriority", "PATCH", "/api/operator/tickets/" + id.New(id.Ticket), `{"status":"done","priority":"asap"}`, []string{"status invalid", "priority invalid"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if got := fieldCodes(t, o.call(t, tt.method, tt.path, tt.body)); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Fatalf("errors[] = %q, want %q", got, tt.want)
				}
			})
		}
	})
}

// fieldCodes returns "field code" for each of a 422 answer's errors[].
func fieldCodes(t *testing.T, r response) []string {
	t.Helper()
	wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
	var p httpapi.Problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(p.Errors))
	for i, fe := range p.Errors {
		out[i] = fe.Field + " " + fe.Code
	}
	return out
}
