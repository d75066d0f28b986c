package main

import (
	"net/http"
	"strings"
	"sync"
	"time"

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

// workerIdle is how long a worker of limitInFlight waits for another
// request before it ends; the next request past the door starts a new one.
const workerIdle = 10 * time.Second

// limitInFlight lets at most n requests (n > 0) through next at once; the
// others wait for a turn in arrival order, and give up when their client
// does. Health checks are never kept waiting: an overloaded server is
// still alive and ready.
//
// Without it, requests that arrive faster than the database answers all
// start at once and wait deep in their handlers (for a connection of the
// pool), each holding its grown stack and what it has allocated so far;
// waiting at the door costs a request little more than its connection.
//
// The requests let through run on at most n worker goroutines, not on
// their connections' own: a request's way through the API grows a
// goroutine's stack to 32 KiB, which a connection's goroutine keeps until
// the collector shrinks it, while one that only waits at the door needs
// 8. When 1,000 requests pile up behind a stall, every connection's
// goroutine would end up holding a grown stack: the runtime's StackInuse
// peaked at 34 MB that way and at 10–13 MB with the workers (entitlements,
// the bench's profiling build, its /debug/pprof/heap?debug=1 read every
// 10 ms). The bench's pile-up (`cd bench && go run . --quick --only
// entitlements`, bench/pileup.go) put tenantkit's VmHWM after three waves
// at 76 → 96 → 101 MB without the workers and 66 → 83 → 91 MB with them
// (the baseline's: 46 → 50 → 51 MB). Handing a request to a worker and
// back costs about 0.7 µs of a request's time on two cores
// (BenchmarkLimitInFlight: 4.65 against 3.93 µs per request without a
// door, each request doing 7 µs of work).
func limitInFlight(n int, next http.Handler) http.Handler {
	if n <= 0 {
		return next
	}
	return &door{next: next, workers: make(chan struct{}, n), handoff: make(chan *turn), idle: workerIdle}
}

// door is limitInFlight's handler.
type door struct {
	next http.Handler
	// workers holds a token per running worker, n at most.
	workers chan struct{}
	// handoff passes a request to an idle worker; blocked senders are
	// served first come, first served.
	handoff chan *turn
	// idle is how long a worker waits for another request (workerIdle).
	idle time.Duration
}

// turn is one request handed to a worker, and what became of it.
type turn struct {
	w http.ResponseWriter
	r *http.Request
	// done receives, once next has returned, the value it panicked with,
	// or nil.
	done chan any
}

func (d *door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/health/") {
		d.next.ServeHTTP(w, r)
		return
	}
	t := turns.Get().(*turn)
	t.w, t.r = w, r
	select {
	case d.handoff <- t: // an idle worker took it
	default:
		select {
		case d.handoff <- t:
		case d.workers <- struct{}{}: // room for one more worker
			go d.work(t)
		case <-r.Context().Done():
			t.w, t.r = nil, nil
			turns.Put(t)
			return // the client is gone: nobody to answer
		}
	}
	// The connection's goroutine waits here while its request runs on
	// the worker, and takes up a panic of next's as if it were its own,
	// so that net/http treats it as it always does (http.ErrAbortHandler).
	v := <-t.done
	t.w, t.r = nil, nil
	turns.Put(t)
	if v != nil {
		panic(v)
	}
}

// turns recycles turns and their channels.
var turns = sync.Pool{New: func() any { return &turn{done: make(chan any, 1)} }}

// work runs t, then the requests handed over to it, until none comes for
// d.idle.
func (d *door) work(t *turn) {
	defer func() { <-d.workers }()
	idle := time.NewTimer(d.idle)
	defer idle.Stop()
	for {
		t.done <- d.serve(t)
		select {
		case t = <-d.handoff: // the next request was waiting
			continue
		default:
		}
		idle.Reset(d.idle)
		select {
		case t = <-d.handoff:
		case <-idle.C:
			return
		}
	}
}

// serve runs next on t and returns what it panicked with, or nil.
func (d *door) serve(t *turn) (panicked any) {
	defer func() { panicked = recover() }()
	d.next.ServeHTTP(t.w, t.r)
	return nil
}
