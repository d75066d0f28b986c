package portal_test

import (
	"net/http"
	"testing"
)

// TestRequestsNamedByRoute: served under the API's middleware, as
// cmd/server serves it, every portal request is measured (and logged) by
// its route template, never as "unmatched".
func TestRequestsNamedByRoute(t *testing.T) {
	e, _ := sqliteEnv(t)
	alice := e.signIn(t, "alice@acme.test")
	alice.get("/portal/", http.StatusOK)
	alice.get("/portal/invoices", http.StatusOK)
	alice.get("/portal/invoices/inv_01jzzzzzzzzzzzzzzzzzzzzzzz", http.StatusNotFound)
	alice.get("/portal/customers", http.StatusOK)

	families, err := e.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "tenantkit_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			got[labels["method"]+" "+labels["route"]+" "+labels["status"]] += m.GetCounter().GetValue()
		}
	}
	// Signing in posts the link's form and lands on the dashboard.
	for want, n := range map[string]float64{"GET GET /portal/login 200": 1, "POST POST /portal/login 303": 1,
		"GET GET /portal/ 200": 2, "GET GET /portal/invoices 200": 1, "GET GET /portal/invoices/{id} 404": 1,
		"GET GET /portal/customers 200": 1} {
		if got[want] != n {
			t.Errorf("series %q counted %v, want %v; all: %v", want, got[want], n, got)
		}
	}
	for k := range got {
		if k == "GET unmatched 200" || k == "POST unmatched 200" {
			t.Errorf("a portal page counted as unmatched: %v", got)
		}
	}
}
