package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/uptrace/bunrouter"
)

// TestAdapt serves requests through bunrouter and adapt and checks that
// the handler finds each path parameter as r.PathValue.
func TestAdapt(t *testing.T) {
	tests := []struct {
		name    string
		pattern string // net/http syntax, as the route table has it
		path    string // bunrouter syntax, when not bunPath(pattern)
		request string
		want    map[string]string
	}{
		{name: "NoParams", pattern: "/api/health", request: "/api/health", want: map[string]string{}},
		{name: "OneParam", pattern: "/api/tickets/{id}", request: "/api/tickets/tkt_1",
			want: map[string]string{"id": "tkt_1"}},
		{name: "TwoParams", pattern: "/api/webhook-endpoints/{id}/deliveries/{delivery_id}/retry",
			request: "/api/webhook-endpoints/wep_1/deliveries/whd_2/retry",
			want:    map[string]string{"id": "wep_1", "delivery_id": "whd_2"}},
		{name: "Wildcard", path: "/portal/*path", request: "/portal/invoices/inv_1",
			want: map[string]string{"path": "invoices/inv_1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = bunPath(tt.pattern)
			}
			got := map[string]string{}
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for name := range tt.want {
					got[name] = r.PathValue(name)
				}
				got["unknown"] = r.PathValue("unknown")
			})
			router := bunrouter.New()
			router.Handle(http.MethodGet, path, adapt(h))
			router.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, tt.request, nil))
			if got["unknown"] != "" {
				t.Fatalf("PathValue(unknown) = %q, want empty", got["unknown"])
			}
			delete(got, "unknown")
			if len(got) != len(tt.want) {
				t.Fatalf("path values %v, want %v", got, tt.want)
			}
			for name, want := range tt.want {
				if got[name] != want {
					t.Fatalf("PathValue(%q) = %q, want %q", name, got[name], want)
				}
			}
		})
	}
}
