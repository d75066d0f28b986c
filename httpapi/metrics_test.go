package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestMetricsSeries checks the series the API's requests leave: one per
// method, route template and status, made on first use (a route never
// requested has none), HEAD on a GET route under its own method, and what
// no route took as "unmatched".
func TestMetricsSeries(t *testing.T) {
	inv := billing.Invoice{ID: id.New(id.Invoice), TenantID: id.New(id.Tenant), Status: billing.StatusOpen, Currency: "USD",
		LineItems: []billing.LineItem{}, Metadata: map[string]string{}}
	cfg := edgeConfig(t, inv)
	reg := prometheus.NewRegistry()
	cfg.Metrics = reg
	api, err := httpapi.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := api.Handler()
	const route = "GET /api/v1/collections/invoices/{id}"
	for _, req := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/api/v1/collections/invoices/" + inv.ID, 200},
		{"GET", "/api/v1/collections/invoices/" + inv.ID, 200},
		{"HEAD", "/api/v1/collections/invoices/" + inv.ID, 200},
		{"GET", "/api/v1/collections/invoices/" + id.New(id.Invoice), 404},
		{"GET", "/nope", 404},
	} {
		r := httptest.NewRequest(req.method, req.path, nil)
		r.Header.Set("Authorization", "Bearer "+tenancy.KeyPrefix+"secret")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != req.want {
			t.Fatalf("%s %s: status %d, want %d", req.method, req.path, w.Code, req.want)
		}
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	type series struct{ method, route, status string }
	gotRequests, gotDurations := map[series]float64{}, map[series]uint64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			s := series{labels["method"], labels["route"], labels["status"]}
			switch f.GetName() {
			case "tenantkit_http_requests_total":
				gotRequests[s] = m.GetCounter().GetValue()
			case "tenantkit_http_request_duration_seconds":
				gotDurations[s] = m.GetHistogram().GetSampleCount()
			}
		}
	}
	wantRequests := map[series]float64{
		{"GET", route, "200"}:       2,
		{"HEAD", route, "200"}:      1,
		{"GET", route, "404"}:       1,
		{"GET", "unmatched", "404"}: 1,
	}
	wantDurations := map[series]uint64{
		{"GET", route, ""}:       3,
		{"HEAD", route, ""}:      1,
		{"GET", "unmatched", ""}: 1,
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"Requests", gotRequests, wantRequests},
		{"Durations", gotDurations, wantDurations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := fmtMap(tt.got), fmtMap(tt.want); got != want {
				t.Fatalf("series\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// fmtMap prints a map with its keys sorted (fmt sorts them), for comparing.
func fmtMap(m any) string { return fmt.Sprint(m) }
