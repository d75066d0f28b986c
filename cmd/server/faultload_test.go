package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// faultLoad drives a server the way a careful client does while it
// crashes: a few workers create tickets and invoices, each with its own
// Idempotency-Key, and deliver payment events, each with its own event
// id; every request is retried with the same key or id, on connection
// errors, 5xx and 409 (the first attempt still running), until it is
// acknowledged. It records what was acknowledged, so the test can check
// the database against it afterwards.
type faultLoad struct {
	base, key, secret string
	// invoiceID is the invoice the payment events pay, one minor unit each.
	invoiceID string
	// prefix makes this run's keys and event ids unique.
	prefix string

	stopping chan struct{} // closed: finish the current operation, start no other
	wg       sync.WaitGroup

	mu sync.Mutex
	// tickets and invoices map each acknowledged Idempotency-Key to the id
	// the server created for it.
	tickets, invoices map[string]string
	// events holds the acknowledged event ids.
	events map[string]bool
	// acks counts acknowledged operations (replays included).
	acks int
	// retries counts the attempts that were not acknowledged, by cause.
	retries map[string]int
	// violations are answers a correct server never gives.
	violations []string
}

// startFaultLoad starts workers goroutines driving the API at base with key.
// ctx bounds every operation: one not acknowledged by then is a violation.
func startFaultLoad(ctx context.Context, base, key, secret, invoiceID string, workers int) *faultLoad {
	l := &faultLoad{
		base: base, key: key, secret: secret, invoiceID: invoiceID,
		prefix:   fmt.Sprintf("fault%d", time.Now().UnixNano()),
		stopping: make(chan struct{}),
		tickets:  map[string]string{}, invoices: map[string]string{}, events: map[string]bool{},
		retries: map[string]int{},
	}
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.work(ctx, w)
		}()
	}
	return l
}

// stop lets every worker finish its operation and waits for them.
func (l *faultLoad) stop() {
	close(l.stopping)
	l.wg.Wait()
}

// acknowledged is how many operations have been acknowledged so far.
func (l *faultLoad) acknowledged() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acks
}

// mustProgress waits until n more operations have been acknowledged.
func (l *faultLoad) mustProgress(tb testing.TB, n int, within time.Duration) {
	tb.Helper()
	target := l.acknowledged() + n
	deadline := time.Now().Add(within)
	for l.acknowledged() < target {
		if time.Now().After(deadline) {
			tb.Fatalf("load stalled: %d operations acknowledged, want %d within %v (retries %v)",
				l.acknowledged(), target, within, l.retryCounts())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// retryCounts returns a copy of the retries by cause.
func (l *faultLoad) retryCounts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.retries))
	for k, v := range l.retries {
		out[k] = v
	}
	return out
}

// work is one worker: ticket, invoice, payment event, round and round;
// every fourth operation is sent once more after its acknowledgement, to
// check that it is replayed rather than repeated.
func (l *faultLoad) work(ctx context.Context, worker int) {
	for n := 0; ; n++ {
		select {
		case <-l.stopping:
			return
		default:
		}
		id := fmt.Sprintf("%s-w%d-%d", l.prefix, worker, n)
		again := n%4 == 3
		switch n % 3 {
		case 0:
			body := fmt.Sprintf(`{"subject":"Outage %s","description":"Seen during the fault test."}`, id)
			l.create(ctx, "/api/tickets", id, body, l.tickets, again)
		case 1:
			l.create(ctx, "/api/v1/collections/invoices", id, invoiceBody("Customer "+id, 1500), l.invoices, again)
		case 2:
			l.pay(ctx, "evt_"+strings.ReplaceAll(id, "-", "_"), again)
		}
	}
}

// create POSTs body to path under Idempotency-Key key until it is
// acknowledged with a 201, and records the id; with again, it sends the
// same request once more and expects the same id, replayed.
func (l *faultLoad) create(ctx context.Context, path, key, body string, into map[string]string, again bool) {
	header := func() map[string]string { return bearer(l.key, "Idempotency-Key", key) }
	for attempt := range 1 + boolInt(again) {
		res, ok := l.untilAcknowledged(ctx, path, header, body, http.StatusCreated)
		if !ok {
			return
		}
		id, _ := res.Body["id"].(string)
		l.mu.Lock()
		l.acks++
		switch first, seen := into[key]; {
		case id == "":
			l.violatef("%s with key %s: 201 without an id: %v", path, key, res.Body)
		case seen && first != id:
			l.violatef("%s with key %s created twice: %s, then %s", path, key, first, id)
		case !seen:
			into[key] = id
		}
		if attempt > 0 && res.Header.Get("Idempotent-Replayed") != "true" {
			l.violatef("%s with key %s: the repeat was not marked Idempotent-Replayed", path, key)
		}
		l.mu.Unlock()
	}
}

// pay delivers a signed payment event of one minor unit until it is
// acknowledged; with again, it delivers it once more and expects it to be
// recognised as a duplicate.
func (l *faultLoad) pay(ctx context.Context, eventID string, again bool) {
	body := paymentEvent(eventID, l.invoiceID, 1)
	header := func() map[string]string {
		h, err := signEvent(l.secret, eventID, body)
		if err != nil {
			l.mu.Lock()
			l.violatef("sign %s: %v", eventID, err)
			l.mu.Unlock()
		}
		return h
	}
	for attempt := range 1 + boolInt(again) {
		res, ok := l.untilAcknowledged(ctx, "/api/webhooks/payment-provider", header, body, http.StatusOK)
		if !ok {
			return
		}
		l.mu.Lock()
		l.acks++
		l.events[eventID] = true
		if res.Body["outcome"] != "applied" {
			l.violatef("event %s: outcome %v, want applied", eventID, res.Body["outcome"])
		}
		if attempt > 0 && res.Body["duplicate"] != true {
			l.violatef("event %s delivered again: duplicate %v, want true", eventID, res.Body["duplicate"])
		}
		l.mu.Unlock()
	}
}

// untilAcknowledged sends the request until it gets want, retrying what a
// client should retry; anything else, or no acknowledgement before ctx
// ends, is recorded as a violation.
func (l *faultLoad) untilAcknowledged(ctx context.Context, path string, header func() map[string]string, body string, want int) (apiResult, bool) {
	for {
		res, err := callAPI(ctx, "POST", l.base+path, header(), body)
		var cause string
		switch {
		case err == nil && res.Status == want:
			return res, true
		case err != nil:
			cause = "no answer"
		case res.Status == http.StatusServiceUnavailable:
			cause = fmt.Sprintf("%d %v", res.Status, res.Body["code"])
		case res.Status >= 500:
			// Still worth a retry, but a fault of the database must be
			// told apart from a bug: 503 not_ready (docs/api.md).
			cause = fmt.Sprintf("%d %v", res.Status, res.Body["code"])
			l.mu.Lock()
			l.violatef("POST %s: %d %v during a fault, want 503 not_ready (request %v)", path, res.Status, res.Body["code"], res.Body["request_id"])
			l.mu.Unlock()
		case res.Status == http.StatusConflict && res.Body["code"] == "conflict":
			cause = "409 conflict (in progress)"
		default:
			l.mu.Lock()
			l.violatef("POST %s: %d %v", path, res.Status, res.Body)
			l.mu.Unlock()
			return res, false
		}
		l.mu.Lock()
		l.retries[cause]++
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			l.mu.Lock()
			l.violatef("POST %s never acknowledged: last %s", path, cause)
			l.mu.Unlock()
			return res, false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// violatef records a violation; l.mu must be held.
func (l *faultLoad) violatef(format string, args ...any) {
	l.violations = append(l.violations, fmt.Sprintf(format, args...))
}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
