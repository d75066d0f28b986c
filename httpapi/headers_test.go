package httpapi_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	opkey "github.com/tenantkit/tenantkit/tenancy/operator"
)

// TestResponseHeaders sends one request to every route of the route table
// and checks the headers every answer must carry: X-Content-Type-Options:
// nosniff always, and Cache-Control: no-store unless the answer is the
// same for every caller (the public catalog and the OpenAPI document,
// which keep their ETag caching).
func TestResponseHeaders(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		const missingID = "/01jd0000000000000000000000"
		routes := map[string]struct {
			req        request
			wantStatus int
			cacheable  bool // answers "public, max-age=300" instead of no-store
		}{
			"GET /api/auth/me": {req: request{method: "GET", path: "/api/auth/me", bearer: e.keyAll}, wantStatus: 200},
			"GET /api/csrf":    {req: request{method: "GET", path: "/api/csrf"}, wantStatus: 200},
			"GET /api/v1/collections/invoices": {wantStatus: 200,
				req: request{method: "GET", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: acme}},
			"POST /api/v1/collections/invoices": {wantStatus: 201,
				req: request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: acme,
					body: invoiceBody("USD", `{"description":"x","quantity":1,"unit_amount":100}`)}},
			"GET /api/v1/collections/customers": {wantStatus: 200,
				req: request{method: "GET", path: "/api/v1/collections/customers", bearer: e.keyAll, header: acme}},
			"POST /api/v1/collections/customers": {wantStatus: 201,
				req: request{method: "POST", path: "/api/v1/collections/customers", bearer: e.keyAll, header: acme,
					body: `{"name":"Ada","email":"ada@example.com"}`}},
			"GET /api/v1/collections/customers/{id}": {wantStatus: 404,
				req: request{method: "GET", path: "/api/v1/collections/customers/cus_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"PATCH /api/v1/collections/customers/{id}": {wantStatus: 404,
				req: request{method: "PATCH", path: "/api/v1/collections/customers/cus_" + missingID[1:], bearer: e.keyAll, header: acme, body: `{}`}},
			"POST /api/v1/collections/customers/{id}/archive": {wantStatus: 404,
				req: request{method: "POST", path: "/api/v1/collections/customers/cus_" + missingID[1:] + "/archive", bearer: e.keyAll, header: acme}},
			"GET /api/v1/collections/invoices/{id}": {wantStatus: 404,
				req: request{method: "GET", path: "/api/v1/collections/invoices/inv_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"GET /api/v1/collections/invoices/{id}/pdf": {wantStatus: 404,
				req: request{method: "GET", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/pdf", bearer: e.keyAll, header: acme}},
			"PATCH /api/v1/collections/invoices/{id}": {wantStatus: 404,
				req: request{method: "PATCH", path: "/api/v1/collections/invoices/inv_" + missingID[1:], bearer: e.keyAll, header: acme, body: `{}`}},
			"DELETE /api/v1/collections/invoices/{id}": {wantStatus: 404,
				req: request{method: "DELETE", path: "/api/v1/collections/invoices/inv_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"POST /api/v1/collections/invoices/{id}/finalize": {wantStatus: 404,
				req: request{method: "POST", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/finalize", bearer: e.keyAll, header: acme}},
			"POST /api/v1/collections/invoices/{id}/void": {wantStatus: 404,
				req: request{method: "POST", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/void", bearer: e.keyAll, header: acme}},
			"POST /api/v1/collections/invoices/{id}/mark-uncollectible": {wantStatus: 404,
				req: request{method: "POST", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/mark-uncollectible", bearer: e.keyAll, header: acme}},
			"GET /api/v1/collections/invoices/{id}/payments": {wantStatus: 404,
				req: request{method: "GET", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/payments", bearer: e.keyAll, header: acme}},
			"POST /api/v1/collections/invoices/{id}/payments": {wantStatus: 404,
				req: request{method: "POST", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/payments", bearer: e.keyAll, header: acme,
					body: `{"amount":1,"method":"cash"}`}},
			"POST /api/tenant/select": {wantStatus: 200,
				req: request{method: "POST", path: "/api/tenant/select", bearer: e.keyAll, body: `{"tenant_id":"` + e.acme.ID + `"}`}},
			"GET /api/tenant/access-matrix": {wantStatus: 200,
				req: request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyAll, header: acme}},
			"GET /api/tenant/entitlements/limit": {wantStatus: 200,
				req: request{method: "GET", path: "/api/tenant/entitlements/limit", bearer: e.keyAll, header: acme}},
			"PATCH /api/tenant/entitlements/toggle": {wantStatus: 200,
				req: request{method: "PATCH", path: "/api/tenant/entitlements/toggle", bearer: e.keyAll, header: acme,
					body: `{"module":"support.tickets","enabled":true}`}},
			"GET /api/tenant/notifications": {wantStatus: 200,
				req: request{method: "GET", path: "/api/tenant/notifications", bearer: e.keyAll, header: acme}},
			"POST /api/tenant/notifications/{id}/read": {wantStatus: 404,
				req: request{method: "POST", path: "/api/tenant/notifications/ntf_" + missingID[1:] + "/read", bearer: e.keyAll, header: acme}},
			"POST /api/tenant/notifications/read-all": {wantStatus: 200,
				req: request{method: "POST", path: "/api/tenant/notifications/read-all", bearer: e.keyAll, header: acme}},
			"GET /api/tickets": {wantStatus: 200, req: request{method: "GET", path: "/api/tickets", bearer: e.keyAll, header: acme}},
			"POST /api/tickets": {wantStatus: 201,
				req: request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: `{"subject":"s","description":"d"}`}},
			"GET /api/tickets/{id}": {wantStatus: 404,
				req: request{method: "GET", path: "/api/tickets/tkt_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"PATCH /api/tickets/{id}": {wantStatus: 404,
				req: request{method: "PATCH", path: "/api/tickets/tkt_" + missingID[1:], bearer: e.keyAll, header: acme, body: `{}`}},
			"GET /api/tickets/{id}/comments": {wantStatus: 404,
				req: request{method: "GET", path: "/api/tickets/tkt_" + missingID[1:] + "/comments", bearer: e.keyAll, header: acme}},
			"POST /api/tickets/{id}/comments": {wantStatus: 404,
				req: request{method: "POST", path: "/api/tickets/tkt_" + missingID[1:] + "/comments", bearer: e.keyAll, header: acme, body: `{"body":"x"}`}},
			"POST /api/tickets/{id}/satisfaction": {wantStatus: 403, // acme has support.csat off
				req: request{method: "POST", path: "/api/tickets/tkt_" + missingID[1:] + "/satisfaction", bearer: e.keyAll, header: acme, body: `{"score":5}`}},
			"GET /api/contract-requests": {wantStatus: 200,
				req: request{method: "GET", path: "/api/contract-requests", bearer: e.keyAll, header: acme}},
			"POST /api/contract-requests": {wantStatus: 201,
				req: request{method: "POST", path: "/api/contract-requests", bearer: e.keyAll, header: acme,
					body: `{"type":"change_seats","seats":5,"effective":"next_period"}`}},
			"GET /api/contract-requests/{id}": {wantStatus: 404,
				req: request{method: "GET", path: "/api/contract-requests/cr_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"POST /api/contract-requests/{id}/cancel": {wantStatus: 404,
				req: request{method: "POST", path: "/api/contract-requests/ccr_" + missingID[1:] + "/cancel", bearer: e.keyAll, header: acme}},
			"GET /api/invoices": {wantStatus: 200,
				req: request{method: "GET", path: "/api/invoices", bearer: e.keyAll, header: acme}},
			"GET /api/invoices/{id}": {wantStatus: 404,
				req: request{method: "GET", path: "/api/invoices/pin_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"GET /api/invoices/{id}/pdf": {wantStatus: 404,
				req: request{method: "GET", path: "/api/invoices/pin_" + missingID[1:] + "/pdf", bearer: e.keyAll, header: acme}},
			"POST /api/invoices/preview": {wantStatus: 200,
				req: request{method: "POST", path: "/api/invoices/preview", bearer: e.keyAll, header: acme, body: `{}`}},
			"GET /api/catalog/public": {req: request{method: "GET", path: "/api/catalog/public"}, wantStatus: 200, cacheable: true},
			"GET /api/health":         {req: request{method: "GET", path: "/api/health"}, wantStatus: 200},
			"GET /api/health/ready":   {req: request{method: "GET", path: "/api/health/ready"}, wantStatus: 200},
			"GET /api/health/live":    {req: request{method: "GET", path: "/api/health/live"}, wantStatus: 200},
			"GET /api/openapi.json":   {req: request{method: "GET", path: "/api/openapi.json"}, wantStatus: 200, cacheable: true},
			"GET /api/webhook-endpoints": {wantStatus: 200,
				req: request{method: "GET", path: "/api/webhook-endpoints", bearer: e.keyAll, header: acme}},
			"POST /api/webhook-endpoints": {wantStatus: 201,
				req: request{method: "POST", path: "/api/webhook-endpoints", bearer: e.keyAll, header: acme, body: `{"url":"http://127.0.0.1:9/hook"}`}},
			"GET /api/webhook-endpoints/{id}": {wantStatus: 404,
				req: request{method: "GET", path: "/api/webhook-endpoints/wep_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"PATCH /api/webhook-endpoints/{id}": {wantStatus: 404,
				req: request{method: "PATCH", path: "/api/webhook-endpoints/wep_" + missingID[1:], bearer: e.keyAll, header: acme, body: `{}`}},
			"DELETE /api/webhook-endpoints/{id}": {wantStatus: 404,
				req: request{method: "DELETE", path: "/api/webhook-endpoints/wep_" + missingID[1:], bearer: e.keyAll, header: acme}},
			"POST /api/webhook-endpoints/{id}/rotate-secret": {wantStatus: 404,
				req: request{method: "POST", path: "/api/webhook-endpoints/wep_" + missingID[1:] + "/rotate-secret", bearer: e.keyAll, header: acme}},
			"POST /api/webhook-endpoints/{id}/test": {wantStatus: 404,
				req: request{method: "POST", path: "/api/webhook-endpoints/wep_" + missingID[1:] + "/test", bearer: e.keyAll, header: acme}},
			"GET /api/webhook-endpoints/{id}/deliveries": {wantStatus: 404,
				req: request{method: "GET", path: "/api/webhook-endpoints/wep_" + missingID[1:] + "/deliveries", bearer: e.keyAll, header: acme}},
			"POST /api/webhook-endpoints/{id}/deliveries/{delivery_id}/retry": {wantStatus: 404,
				req: request{method: "POST", path: "/api/webhook-endpoints/wep_" + missingID[1:] + "/deliveries/whd_" + missingID[1:] + "/retry", bearer: e.keyAll, header: acme}},
			"POST /api/webhook-endpoints/deliveries/{delivery_id}/retry": {wantStatus: 404,
				req: request{method: "POST", path: "/api/webhook-endpoints/deliveries/whd_" + missingID[1:] + "/retry", bearer: e.keyAll, header: acme}},
			"GET /api/tenant/settings": {wantStatus: 200,
				req: request{method: "GET", path: "/api/tenant/settings", bearer: e.keyAll, header: acme}},
			"PATCH /api/tenant/settings": {wantStatus: 200,
				req: request{method: "PATCH", path: "/api/tenant/settings", bearer: e.keyAll, header: acme, body: `{}`}},
			"POST /api/v1/collections/invoices/{id}/send": {wantStatus: 409,
				req: request{method: "POST", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/send", bearer: e.keyAll, header: acme}},
			"POST /api/v1/collections/invoices/{id}/hosted-url/rotate": {wantStatus: 404,
				req: request{method: "POST", path: "/api/v1/collections/invoices/inv_" + missingID[1:] + "/hosted-url/rotate", bearer: e.keyAll, header: acme}},
			"GET /pay/{token}":     {req: request{method: "GET", path: "/pay/unknown"}, wantStatus: 404},
			"GET /pay/{token}/pdf": {req: request{method: "GET", path: "/pay/unknown/pdf"}, wantStatus: 404},
			"POST /api/webhooks/payment-provider": {wantStatus: 401,
				req: request{method: "POST", path: "/api/webhooks/payment-provider", body: `{}`}},
		}
		for name, tt := range operatorHeaderCases(t, e) {
			routes[name] = tt
		}
		_, opKey := newOperatorKey(t, e, opkey.ScopeRead)
		routes["GET /api/events"] = struct {
			req        request
			wantStatus int
			cacheable  bool
		}{req: request{method: "GET", path: "/api/events", bearer: e.keyAll, header: acme}, wantStatus: 200}
		routes["GET /api/events/{id}"] = struct {
			req        request
			wantStatus int
			cacheable  bool
		}{req: request{method: "GET", path: "/api/events/evt_" + missingID[1:], bearer: e.keyAll, header: acme}, wantStatus: 404}
		routes["GET /api/operator/events"] = struct {
			req        request
			wantStatus int
			cacheable  bool
		}{req: request{method: "GET", path: "/api/operator/events", bearer: opKey}, wantStatus: 200}
		routes["GET /api/operator/events/{id}"] = struct {
			req        request
			wantStatus int
			cacheable  bool
		}{req: request{method: "GET", path: "/api/operator/events/evt_" + missingID[1:], bearer: opKey}, wantStatus: 404}
		seen := map[string]bool{}
		for _, rt := range e.api.Routes() {
			name := rt.Method + " " + rt.Pattern
			seen[name] = true
			tt, ok := routes[name]
			if !ok {
				t.Errorf("route %s has no case in this test", name)
				continue
			}
			t.Run(name, func(t *testing.T) {
				r := e.do(t, tt.req)
				if r.status != tt.wantStatus {
					t.Fatalf("status = %d, want %d; body %s", r.status, tt.wantStatus, r.body)
				}
				wantCache := "no-store"
				if tt.cacheable {
					wantCache = "public, max-age=300"
				}
				wantSecurityHeaders(t, r.header, wantCache)
			})
		}
		for name := range routes {
			if !seen[name] {
				t.Errorf("case %s is not a route", name)
			}
		}

		// Answers given before or instead of a route's handler.
		for _, tt := range []struct {
			name       string
			req        request
			wantStatus int
			wantCache  string
		}{
			{"Unauthenticated", request{method: "GET", path: "/api/auth/me"}, 401, "no-store"},
			{"BadCredential", request{method: "GET", path: "/api/tickets", bearer: "tk_nope"}, 401, "no-store"},
			{"InsufficientScope", request{method: "GET", path: "/api/v1/collections/invoices", bearer: e.keyNone, header: acme}, 403, "no-store"},
			{"PayloadTooLarge", request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme,
				body: `{"subject":"` + strings.Repeat("x", httpapi.DefaultMaxBodyBytes) + `"}`}, 413, "no-store"},
			{"NotFound", request{method: "GET", path: "/api/nothing-here"}, 404, ""},
			{"MethodNotAllowed", request{method: "DELETE", path: "/api/tickets", bearer: e.keyAll}, 405, ""},
			{"CatalogNotModified", request{method: "GET", path: "/api/catalog/public",
				header: map[string]string{"If-None-Match": "*"}}, 304, "public, max-age=300"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, tt.req)
				if r.status != tt.wantStatus {
					t.Fatalf("status = %d, want %d; body %s", r.status, tt.wantStatus, r.body)
				}
				wantSecurityHeaders(t, r.header, tt.wantCache)
			})
		}

		t.Run("WrappedRouter", func(t *testing.T) {
			// What a host serves beside the API under Wrap (cmd/server's
			// /metrics) gets nosniff too.
			mux := http.NewServeMux()
			mux.Handle("GET /metrics", promhttp.HandlerFor(prometheus.NewRegistry(), promhttp.HandlerOpts{}))
			srv := httptest.NewServer(e.api.Wrap(mux))
			defer srv.Close()
			resp, err := srv.Client().Get(srv.URL + "/metrics")
			check(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("status = %d, want 200", resp.StatusCode)
			}
			wantSecurityHeaders(t, resp.Header, "")
		})
	})
}

// wantSecurityHeaders checks nosniff and, unless wantCache is "", the
// Cache-Control value.
func wantSecurityHeaders(t *testing.T, h http.Header, wantCache string) {
	t.Helper()
	if got := h.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q, want [nosniff]", got)
	}
	if wantCache == "" {
		return
	}
	if got := h.Values("Cache-Control"); len(got) != 1 || got[0] != wantCache {
		t.Errorf("Cache-Control = %q, want [%s]", got, wantCache)
	}
}

// TestHeaderNamesOnTheWire reads the raw bytes of answers and checks the
// header lines as net/http writes them, which the header names' spelling
// in the code does not change: X-Request-Id, Ratelimit-Policy, Ratelimit.
// It also checks that the request headers are found whatever the client's
// spelling.
func TestHeaderNamesOnTheWire(t *testing.T) {
	inv := billing.Invoice{ID: id.New(id.Invoice), TenantID: id.New(id.Tenant), Status: billing.StatusOpen, Currency: "USD",
		LineItems: []billing.LineItem{}, Metadata: map[string]string{}}
	api, err := httpapi.New(context.Background(), edgeConfig(t, inv))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	bearer := "Authorization: Bearer " + tenancy.KeyPrefix + "secret\r\n"
	tests := []struct {
		name      string
		request   string // method, path and header lines
		wantLines []string
		wantBody  string
	}{
		{"Health", "GET /api/health HTTP/1.1\r\nX-Request-ID: abc-1\r\n", []string{
			"HTTP/1.1 200 OK", "X-Request-Id: abc-1", `Ratelimit-Policy: "default";q=1000000000;w=1`,
			`Ratelimit: "default";r=`, "X-Content-Type-Options: nosniff", "Cache-Control: no-store"}, ""},
		{"LowerCaseRequestID", "GET /api/health HTTP/1.1\r\nx-request-id: abc-2\r\n", []string{
			"HTTP/1.1 200 OK", "X-Request-Id: abc-2"}, ""},
		{"Invoice", "GET /api/v1/collections/invoices/" + inv.ID + " HTTP/1.1\r\n" + bearer + "X-Tenant-ID: " + inv.TenantID + "\r\n", []string{
			"HTTP/1.1 200 OK", "X-Request-Id: req_", `Ratelimit: "default";r=`}, `"id":"` + inv.ID + `"`},
		{"BadTenantHeader", "GET /api/v1/collections/invoices/" + inv.ID + " HTTP/1.1\r\n" + bearer + "x-tenant-id: nope\r\n", []string{
			"HTTP/1.1 400 Bad Request"}, `"field":"X-Tenant-ID"`},
		{"Unauthenticated", "GET /api/v1/collections/invoices/" + inv.ID + " HTTP/1.1\r\n", []string{
			"HTTP/1.1 401 Unauthorized", "Www-Authenticate: Bearer"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.request+"Host: test\r\nConnection: close\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			raw, err := io.ReadAll(conn)
			if err != nil {
				t.Fatal(err)
			}
			head, body, _ := strings.Cut(string(raw), "\r\n\r\n")
			lines := strings.Split(head, "\r\n")
			for _, want := range tt.wantLines {
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
					t.Errorf("no header line %q in\n%s", want, head)
				}
			}
			if !strings.Contains(body, tt.wantBody) {
				t.Errorf("body %s does not contain %s", body, tt.wantBody)
			}
		})
	}
}
