package httpapi_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/httpapi/redislimit"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// TestRateLimitReset checks the RateLimit header's t against what the
// limiter then does, with both limiters: t is the seconds until more quota
// is available (the next token), a 429's Retry-After equals its t, and a
// request t seconds after a 429 goes through.
func TestRateLimitReset(t *testing.T) {
	type limiter struct {
		name string
		// build returns the limiter and a way to let time pass.
		build func(t *testing.T) (httpapi.RateLimiter, func(time.Duration))
		// wait is the seconds one token takes: the t announced while the
		// bucket is short of a whole token.
		wait int
	}
	limiters := []limiter{
		{name: "Memory", wait: 5, build: func(t *testing.T) (httpapi.RateLimiter, func(time.Duration)) {
			// One request every 5 s, bursts of 2: full again 10 s after it
			// was emptied, but the next request is allowed after 5.
			clock := httpapi.NewFakeClock()
			return httpapi.NewMemoryRateLimiterOnClock(0.2, 2, clock), clock.Advance
		}},
		{name: "Redis", wait: 1, build: func(t *testing.T) (httpapi.RateLimiter, func(time.Duration)) {
			// Redis keeps its own time, so this one waits for real: one
			// request a second, bursts of 2.
			return redislimit.New(dbtest.Redis(t), 1, 2), time.Sleep
		}},
	}
	for _, lt := range limiters {
		t.Run(lt.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, db *bun.DB) {
				lim, pass := lt.build(t)
				e := newEnv(t, db, func(cfg *httpapi.Config) { cfg.RateLimiter = lim })
				me := request{method: "GET", path: "/api/auth/me", bearer: e.keyAll}
				wait := lt.wait

				// The first two empty the bucket; while it is short of a whole
				// token, t is the wait for one, not for the bucket to be full.
				for i, wantR := range []int{1, 0} {
					r := e.do(t, me)
					if r.status != http.StatusOK {
						t.Fatalf("request %d: status = %d; %s", i, r.status, r.body)
					}
					wantRateLimit(t, r, wantR, wait)
				}
				r := e.do(t, me)
				wantProblem(t, r, http.StatusTooManyRequests, "rate_limited")
				wantRateLimit(t, r, 0, wait)
				if got := r.header.Get("Retry-After"); got != strconv.Itoa(wait) {
					t.Fatalf("Retry-After = %q, want %d, as t", got, wait)
				}
				if lt.name == "Memory" {
					// A second short of t is still too early, and says so.
					pass(time.Duration(wait-1) * time.Second)
					r = e.do(t, me)
					wantProblem(t, r, http.StatusTooManyRequests, "rate_limited")
					wantRateLimit(t, r, 0, 1)
					if got := r.header.Get("Retry-After"); got != "1" {
						t.Fatalf("Retry-After = %q, want 1, as t", got)
					}
					pass(time.Second)
				} else {
					pass(time.Duration(wait) * time.Second)
				}
				r = e.do(t, me)
				if r.status != http.StatusOK {
					t.Fatalf("request t seconds after the 429: status = %d, want 200; %s", r.status, r.body)
				}
				wantRateLimit(t, r, 0, wait)
			}, migrations()...)
		})
	}
}

// wantRateLimit checks the RateLimit header's r and t.
func wantRateLimit(t *testing.T, r response, remaining, reset int) {
	t.Helper()
	want := fmt.Sprintf(`"default";r=%d;t=%d`, remaining, reset)
	if got := r.header.Get("RateLimit"); got != want {
		t.Fatalf("RateLimit = %q, want %q", got, want)
	}
}
