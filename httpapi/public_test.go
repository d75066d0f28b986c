package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

func TestCatalog(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		r := e.do(t, request{method: "GET", path: "/api/catalog/public"})
		etag := r.header.Get("ETag")
		if r.status != 200 || etag == "" || r.header.Get("Cache-Control") == "" {
			t.Fatalf("catalog: %d ETag=%q Cache-Control=%q", r.status, etag, r.header.Get("Cache-Control"))
		}
		var got struct {
			Apps []struct {
				ID      string `json:"id"`
				Modules []struct {
					ID         string `json:"id"`
					Toggleable bool   `json:"toggleable"`
				} `json:"modules"`
			} `json:"apps"`
			Plans []struct {
				ID        string            `json:"id"`
				Currency  string            `json:"currency"`
				BasePrice int64             `json:"base_price"`
				Limits    map[string]*int64 `json:"limits"`
			} `json:"plans"`
		}
		check(t, json.Unmarshal(r.body, &got))
		if len(got.Apps) < 2 || len(got.Plans) < 3 {
			t.Fatalf("catalog has %d apps and %d plans", len(got.Apps), len(got.Plans))
		}
		r = e.do(t, request{method: "GET", path: "/api/catalog/public", header: map[string]string{"If-None-Match": etag}})
		if r.status != http.StatusNotModified || len(r.body) != 0 {
			t.Fatalf("If-None-Match: %d %q, want 304 and no body", r.status, r.body)
		}
		r = e.do(t, request{method: "GET", path: "/api/catalog/public", header: map[string]string{"If-None-Match": `"stale"`}})
		if r.status != 200 {
			t.Fatalf("stale If-None-Match: %d, want 200", r.status)
		}
	})
}

func TestReadiness(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		down := true
		e := newEnv(t, db, func(c *httpapi.Config) {
			c.Services.Ready = func(ctx context.Context) error {
				if down {
					return errors.New("database unreachable")
				}
				return nil
			}
		})
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/health/ready"}), http.StatusServiceUnavailable, "not_ready")
		if r := e.do(t, request{method: "GET", path: "/api/health/live"}); r.status != 200 {
			t.Fatalf("live while not ready = %d, want 200", r.status)
		}
		down = false
		if r := e.do(t, request{method: "GET", path: "/api/health/ready"}); r.status != 200 {
			t.Fatalf("ready after recovery = %d, want 200", r.status)
		}
	}, migrations()...)
}

func TestRoutingProblems(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/nope"}), 404, "not_found")
		r := e.do(t, request{method: "DELETE", path: "/api/catalog/public"})
		wantProblem(t, r, 405, "method_not_allowed")
		if r.header.Get("Allow") == "" {
			t.Fatal("405 without Allow")
		}
		// An endpoint whose service is not configured is routed and answers 501 after the checks.
		off := withAPI(t, e, func(c *httpapi.Config) { c.Services.Webhooks, c.WebhookVerifier = nil, nil })
		wantProblem(t, off.do(t, request{method: "POST", path: "/api/webhooks/payment-provider", body: `{}`}), 501, "not_implemented")
	})
}

func TestRequestID(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		r := e.do(t, request{method: "GET", path: "/api/health", header: map[string]string{"X-Request-ID": "abc-123"}})
		if got := r.header.Get("X-Request-ID"); got != "abc-123" {
			t.Fatalf("X-Request-ID = %q, want the caller's", got)
		}
		r = e.do(t, request{method: "GET", path: "/api/nope", header: map[string]string{"X-Request-ID": "bad id with spaces"}})
		id := r.header.Get("X-Request-ID")
		if id == "" || id == "bad id with spaces" || r.json(t)["request_id"] != id {
			t.Fatalf("X-Request-ID = %q, problem request_id = %v", id, r.json(t)["request_id"])
		}
	})
}

func TestRateLimit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, func(c *httpapi.Config) { c.RateLimiter = httpapi.NewMemoryRateLimiter(0.5, 2) })
		me := request{method: "GET", path: "/api/auth/me", bearer: e.keyAll}
		for i := 0; i < 2; i++ {
			r := e.do(t, me)
			if r.status != 200 || r.header.Get("RateLimit") == "" || r.header.Get("RateLimit-Policy") == "" {
				t.Fatalf("request %d: %d RateLimit=%q Policy=%q", i, r.status, r.header.Get("RateLimit"), r.header.Get("RateLimit-Policy"))
			}
		}
		r := e.do(t, me)
		wantProblem(t, r, http.StatusTooManyRequests, "rate_limited")
		if r.header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		// Another credential has its own bucket.
		if r := e.do(t, request{method: "GET", path: "/api/auth/me", bearer: e.keyBob}); r.status != 200 {
			t.Fatalf("other credential: %d", r.status)
		}
	}, migrations()...)
}

var _ = catalog.Default
