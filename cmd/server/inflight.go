package main

import (
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/internal/database"
)

// defaultMaxInFlight is --max-in-flight's default: twice the database
// pool (database.DefaultMaxConns, max(8, 4×CPUs) connections), so that a
// connection freed finds a request ready to use it while as many others
// decode their input or write their answer. Fewer would leave connections
// idle; more would only wait for a connection inside database/sql, which
// hands a freed one to a random waiter, not the longest: at 64 in flight
// that put tenantkit's p99 at 1.85–2.41× the baseline's, at 16 0.90–1.31×
// (database.openPostgres has the runs).
func defaultMaxInFlight() int {
	return 2 * database.DefaultMaxConns()
}

// limitInFlight lets at most n requests (n > 0) through next at once; the
// others wait for a turn in arrival order, and give up when their client
// does. Health checks are never kept waiting: an overloaded server is
// still alive and ready.
//
// Without it, requests that arrive faster than the database answers all
// start at once and wait deep in their handlers (for a connection of the
// pool), each holding its grown stack and what it has allocated so far;
// waiting at the door costs a request little more than its connection.
// In the bench's fixed-rate run of GET invoice, when requests piled up
// (p99 ~0.8 s), peak RSS was 99 MB without the limit and 87 MB with it
// (one --quick run each, so a rough figure).
//
// A request let through runs on its connection's goroutine, whose stack
// it grows (to 16 KiB since 2026-11-28, 32 KiB before: docs/operations.md,
// Memory), and the goroutine keeps that until the collector shrinks it:
// after a pile-up of 1,000, every connection holds one. The two
// experiments below ran with 32 KiB stacks. Running
// the requests on n worker goroutines instead (tried on 2026-11-28) kept
// the stacks at 10–13 MB where they reached 34 MB, and the bench's pile-up
// (bench/pileup.go) at 66 → 83 → 91 MB after three waves where it reached
// 76 → 96 → 101, but the two hand-offs per request cost more than they
// did in a microbenchmark: server CPU per request against the baseline
// went from 1.17× to 1.31× on invoice preview and from 1.12× to 1.21× on
// record payment, throughput from 0.94× to 0.87× and 1.01× to 0.91×
// (`cd bench && go run . --only "invoice preview,record payment"`, one
// run each). Throughput is the goal that is short; the RSS of a pile-up
// stays over 64 MB either way.
//
// Also tried and dropped (2026-11-28): running only the requests that had
// to wait on a goroutine of their own, which costs nothing when none
// waits. Pile-ups peaked 7–10 MB lower (67 → 84 → 84 and 66 → 82 → 92 MB
// after three waves, against 74 → 91 → 94 and 75 → 92 → 98; `cd bench &&
// go run . --quick --only entitlements`, two runs each), but in the next
// full run (`cd bench && go run .`) p99 at 64 in flight, where most
// requests wait, was worse on 7 of 11 endpoints (mean ratio 1.19× against
// 1.16×, misses on create ticket 1.38× and invoice preview 1.32×) and p99
// at half rate missed on 4 endpoints against 1: within the machine's
// noise, but all the same way, for a saving that leaves the goal missed.
func limitInFlight(n int, next http.Handler) http.Handler {
	if n <= 0 {
		return next
	}
	turns := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/health/") {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case turns <- struct{}{}: // blocked senders are served first come, first served
		case <-r.Context().Done():
			return // the client is gone: nobody to answer
		}
		defer func() { <-turns }()
		next.ServeHTTP(w, r)
	})
}
