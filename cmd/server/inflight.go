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
