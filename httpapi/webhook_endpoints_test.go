package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestWebhookEndpointsOverHTTP walks the endpoints' API: the secret shows
// in the create and rotate answers only, a refused URL names the field,
// a test delivery is listed with the endpoint's deliveries, a pending
// delivery's retry is taken (202), and another tenant's
// endpoint and delivery are 404s.
func TestWebhookEndpointsOverHTTP(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer receiver.Close()

		r := e.do(t, request{method: "POST", path: "/api/webhook-endpoints", bearer: e.keyAll, header: acme,
			body: `{"url":"https://10.0.0.1/hook"}`})
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `"field":"url"`) {
			t.Fatalf("private URL: %d %s, want 422 on url", r.status, r.body)
		}
		r = e.do(t, request{method: "POST", path: "/api/webhook-endpoints", bearer: e.keyAll, header: acme,
			body: `{"url":"` + receiver.URL + `/hook","event_types":["invoice.paid"],"description":"erp"}`})
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		created := r.json(t)
		epID, secret := created["id"].(string), created["secret"].(string)
		if !strings.HasPrefix(secret, "whsec_") || r.header.Get("Location") != "/api/webhook-endpoints/"+epID {
			t.Fatalf("create answer %s, Location %q", r.body, r.header.Get("Location"))
		}
		key := strings.TrimPrefix(secret, "whsec_")
		for _, path := range []string{"/api/webhook-endpoints/" + epID, "/api/webhook-endpoints", "/api/events"} {
			r = e.do(t, request{method: "GET", path: path, bearer: e.keyAll, header: acme})
			if r.status != http.StatusOK || strings.Contains(string(r.body), key) || strings.Contains(string(r.body), `"secret"`) {
				t.Fatalf("GET %s: %d, secret shown: %s", path, r.status, r.body)
			}
		}
		r = e.do(t, request{method: "PATCH", path: "/api/webhook-endpoints/" + epID, bearer: e.keyAll, header: acme,
			body: `{"event_types":["no.such_type"]}`})
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `"field":"event_types[0]"`) {
			t.Fatalf("unknown event type: %d %s", r.status, r.body)
		}
		r = e.do(t, request{method: "POST", path: "/api/webhook-endpoints/" + epID + "/rotate-secret", bearer: e.keyAll, header: acme})
		if r.status != http.StatusOK || r.json(t)["secret"] == secret || r.json(t)["previous_secret_expires_at"] == nil {
			t.Fatalf("rotate: %d %s", r.status, r.body)
		}
		r = e.do(t, request{method: "POST", path: "/api/webhook-endpoints/" + epID + "/test", bearer: e.keyAll, header: acme})
		if r.status != http.StatusAccepted || r.json(t)["event_type"] != "webhook.test" || r.json(t)["status"] != "pending" {
			t.Fatalf("test: %d %s", r.status, r.body)
		}
		deliveryID := r.json(t)["id"].(string)
		r = e.do(t, request{method: "GET", path: "/api/webhook-endpoints/" + epID + "/deliveries", bearer: e.keyAll, header: acme})
		if r.status != http.StatusOK || !strings.Contains(string(r.body), deliveryID) {
			t.Fatalf("deliveries: %d %s", r.status, r.body)
		}
		r = e.do(t, request{method: "POST", path: "/api/webhook-endpoints/deliveries/" + deliveryID + "/retry", bearer: e.keyAll, header: acme})
		if r.status != http.StatusAccepted || r.json(t)["status"] != "pending" || r.json(t)["next_attempt_at"] == nil {
			t.Fatalf("retry of a pending delivery: %d %s, want 202, pending, due now", r.status, r.body)
		}

		// Another tenant's owner sees none of it.
		ctx := context.Background()
		other, err := e.svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "initech", Name: "Initech", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatalf("CreateTenant: %v", err)
		}
		if _, err := e.svc.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "carol@initech.test", Name: "Carol"}); err != nil {
			t.Fatalf("CreateUser: %v", err)
		}
		if _, err := e.svc.Members.Add(ctx, "initech", "carol@initech.test", tenancy.RoleOwner); err != nil {
			t.Fatalf("Members.Add: %v", err)
		}
		carol := e.newKey("carol@initech.test", "", tenancy.Scopes()...)
		initech := map[string]string{"X-Tenant-ID": other.ID}
		for _, req := range []request{
			{method: "GET", path: "/api/webhook-endpoints/" + epID},
			{method: "PATCH", path: "/api/webhook-endpoints/" + epID, body: `{"enabled":false}`},
			{method: "DELETE", path: "/api/webhook-endpoints/" + epID},
			{method: "POST", path: "/api/webhook-endpoints/" + epID + "/rotate-secret"},
			{method: "POST", path: "/api/webhook-endpoints/" + epID + "/test"},
			{method: "GET", path: "/api/webhook-endpoints/" + epID + "/deliveries"},
			{method: "POST", path: "/api/webhook-endpoints/" + epID + "/deliveries/" + deliveryID + "/retry"},
			{method: "POST", path: "/api/webhook-endpoints/deliveries/" + deliveryID + "/retry"},
		} {
			req.bearer, req.header = carol, initech
			if r := e.do(t, req); r.status != http.StatusNotFound {
				t.Errorf("%s %s as another tenant: %d %s, want 404", req.method, req.path, r.status, r.body)
			}
		}
		r = e.do(t, request{method: "GET", path: "/api/webhook-endpoints", bearer: carol, header: initech})
		if r.status != http.StatusOK || strings.Contains(string(r.body), epID) {
			t.Fatalf("another tenant's list: %d %s", r.status, r.body)
		}
		// bob is billing at acme: no webhooks:manage.
		if r := e.do(t, request{method: "GET", path: "/api/webhook-endpoints", bearer: e.keyBob, header: acme}); r.status != http.StatusForbidden {
			t.Fatalf("billing role: %d, want 403", r.status)
		}
		r = e.do(t, request{method: "DELETE", path: "/api/webhook-endpoints/" + epID, bearer: e.keyAll, header: acme})
		if r.status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", r.status, r.body)
		}
	})
}
