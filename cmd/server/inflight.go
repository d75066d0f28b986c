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
// A request that finds a turn free runs on its connection's goroutine. One
// that had to wait runs on a goroutine of its own (serveApart): a request's
// path through the API grows a stack to 32 KiB, and a connection's
// goroutine would keep that until the collector shrinks it, so after a
// pile-up of 1,000 every connection held one. In the bench's pile-ups
// (bench/pileup.go, `cd bench && go run . --quick --only entitlements`,
// two runs each) VmHWM after the three waves went from 74 → 91 → 94 and
// 75 → 92 → 98 MB to 67 → 84 → 84 and 66 → 82 → 92 MB. Requests that do
// not wait pay nothing for it. Running every request on n worker
// goroutines instead (tried on 2026-11-28) saved as much, but its two
// hand-offs per request raised server CPU per request against the
// baseline from 1.17× to 1.31× on invoice preview and from 1.12× to 1.21×
// on record payment, throughput from 0.94× to 0.87× and 1.01× to 0.91×
// (`cd bench && go run . --only "invoice preview,record payment"`, one
// run each).
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
		case turns <- struct{}{}: // a turn is free: run here
			defer func() { <-turns }()
			next.ServeHTTP(w, r)
			return
		default:
		}
		select {
		case turns <- struct{}{}: // blocked senders are served first come, first served
		case <-r.Context().Done():
			return // the client is gone: nobody to answer
		}
		defer func() { <-turns }()
		serveApart(w, r, next)
	})
}

// serveApart serves r with next on a goroutine of its own and waits for
// it, passing a panic on to the caller's goroutine (net/http's, which
// recovers it). The stack that next grows goes when that goroutine ends,
// where the connection's goroutine would keep it.
func serveApart(w http.ResponseWriter, r *http.Request, next http.Handler) {
	var panicked any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		next.ServeHTTP(w, r)
	}()
	<-done
	if panicked != nil {
		panic(panicked)
	}
}
