package main

import (
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/internal/database"
)

// defaultMaxInFlight is --max-in-flight's default: twice the database
// pool, so that a freed connection finds a request ready to use it while
// more would only queue inside database/sql, which serves waiters in no
// order and so lengthens the tail (docs/performance.md).
func defaultMaxInFlight() int {
	return 2 * database.DefaultMaxConns()
}

// limitInFlight lets at most n requests (n > 0) through next at once; the
// others wait for a turn in arrival order, and give up when their client
// does. Health checks are never kept waiting: an overloaded server is
// still alive and ready. Waiting at the door, a request holds little more
// than its connection, where inside its handler it holds a grown stack
// and what it has allocated: the door bounds memory and the tail of a
// pile-up (docs/performance.md).
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
