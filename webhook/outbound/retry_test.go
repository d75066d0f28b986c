package outbound_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// TestRetryBringsPendingForward: a pending delivery whose next attempt is
// an hour away is retried: the next attempt is due at once, in a new
// round; once it has succeeded, a retry is a conflict naming the status.
func TestRetryBringsPendingForward(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		f := newFixture(t, db, outbound.WithSchedule(time.Hour, time.Hour))
		rc := newReceiver(t, http.StatusServiceUnavailable, http.StatusOK)
		ep, _ := f.mustCreate(t, tenantA, rc.URL)
		d, err := f.svc.SendTest(ctx, tenantA, ep.ID)
		if err != nil {
			t.Fatalf("SendTest: %v", err)
		}
		f.queue.take()
		if o, err := f.svc.AttemptNumber(ctx, d.ID, 1); err != nil || o.Done {
			t.Fatalf("first attempt = %+v, %v; want a retry", o, err)
		}
		f.queue.take() // attempt 2, an hour away

		f.clock.add(time.Minute)
		now := f.clock.now().Truncate(time.Microsecond)
		got, err := f.svc.Retry(ctx, tenantA, ep.ID, d.ID)
		if err != nil {
			t.Fatalf("Retry of a pending delivery: %v", err)
		}
		if got.Status != outbound.DeliveryPending || got.NextAttemptAt == nil || !got.NextAttemptAt.Equal(now) || len(got.Attempts) != 1 {
			t.Fatalf("retried = %s, next %v, %d attempts; want pending, due %v, 1 attempt", got.Status, got.NextAttemptAt, len(got.Attempts), now)
		}
		want := []outbound.Scheduled{{DeliveryID: d.ID, Number: 2, At: now}}
		if as := f.queue.takeAttempts(); len(as) != 1 || as[0] != want[0] {
			t.Fatalf("enqueued %+v, want %+v", as, want)
		}
		if o, err := f.svc.AttemptNumber(ctx, d.ID, 2); err != nil || !o.Done {
			t.Fatalf("attempt 2 = %+v, %v; want done", o, err)
		}
		_, err = f.svc.Retry(ctx, tenantA, ep.ID, d.ID)
		var se *outbound.StatusError
		if !errors.As(err, &se) || se.CurrentStatus() != outbound.DeliverySucceeded || !errors.Is(err, outbound.ErrConflict) {
			t.Fatalf("Retry of a succeeded delivery = %v, want a conflict with status succeeded", err)
		}
		if reqs, _ := rc.requests(); len(reqs) != 2 {
			t.Fatalf("receiver got %d requests, want 2", len(reqs))
		}
	})
}

// TestRetryWhileAttemptRuns: a retry that comes while an attempt is
// waiting for the receiver makes no second request then; when that attempt
// fails, the next is due at once (not after the schedule's hour), and when
// it succeeds, the delivery is done.
func TestRetryWhileAttemptRuns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		first    int
		requests int
	}{
		{"AttemptFails", http.StatusServiceUnavailable, 2},
		{"AttemptSucceeds", http.StatusOK, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			each(t, func(t *testing.T, db *bun.DB) {
				ctx := context.Background()
				f := newFixture(t, db, outbound.WithSchedule(time.Hour, time.Hour))
				rc := newHeldReceiver(t, tc.first)
				ep, _ := f.mustCreate(t, tenantA, rc.URL)
				d, err := f.svc.SendTest(ctx, tenantA, ep.ID)
				if err != nil {
					t.Fatalf("SendTest: %v", err)
				}
				f.queue.take()
				done := make(chan outbound.Outcome, 1)
				go func() {
					o, err := f.svc.AttemptNumber(ctx, d.ID, 1)
					if err != nil {
						t.Errorf("attempt 1: %v", err)
					}
					done <- o
				}()
				<-rc.arrived // attempt 1 is at the receiver

				f.clock.add(time.Minute)
				now := f.clock.now().Truncate(time.Microsecond)
				if got, err := f.svc.Retry(ctx, tenantA, ep.ID, d.ID); err != nil || got.Status != outbound.DeliveryPending {
					t.Fatalf("Retry during the attempt = %+v, %v; want it pending", got, err)
				}
				close(rc.release)
				o := <-done
				if tc.first == http.StatusOK {
					if !o.Done {
						t.Fatalf("outcome = %+v, want done", o)
					}
				} else if o.Done || !o.RetryAt.Equal(now) {
					t.Fatalf("outcome = %+v, want the next attempt at the retry's %v", o, now)
				}
				f.drive(t) // the retry's own attempt 1 (made already: no request), then attempt 2
				got, err := f.svc.Retry(ctx, tenantA, ep.ID, d.ID)
				var se *outbound.StatusError
				if !errors.As(err, &se) || se.CurrentStatus() != outbound.DeliverySucceeded {
					t.Fatalf("Retry after = %+v, %v; want a conflict: succeeded", got, err)
				}
				if got, _, err := f.svc.Deliveries(ctx, tenantA, ep.ID, 0, ""); err != nil {
					t.Fatalf("Deliveries: %v", err)
				} else if d := deliveryIn(got, d.ID); d.Status != outbound.DeliverySucceeded || len(d.Attempts) != tc.requests {
					t.Fatalf("delivery %s with %d attempts, want succeeded with %d", d.Status, len(d.Attempts), tc.requests)
				}
				if n, most := rc.counts(); n != tc.requests || most != 1 {
					t.Fatalf("receiver got %d requests, at most %d at once; want %d, one at a time", n, most, tc.requests)
				}
			})
		})
	}
}

// deliveryIn returns the delivery id of ds.
func deliveryIn(ds []outbound.Delivery, id string) outbound.Delivery {
	for _, d := range ds {
		if d.ID == id {
			return d
		}
	}
	return outbound.Delivery{}
}

// heldReceiver holds its first request until release is closed, then
// answers it with first; later requests get 200 at once.
type heldReceiver struct {
	*httptest.Server
	arrived chan struct{}
	release chan struct{}

	mu             sync.Mutex
	n, now, atOnce int
}

func newHeldReceiver(t *testing.T, first int) *heldReceiver {
	rc := &heldReceiver{arrived: make(chan struct{}), release: make(chan struct{})}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.n++
		rc.now++
		rc.atOnce = max(rc.atOnce, rc.now)
		n := rc.n
		rc.mu.Unlock()
		defer func() { rc.mu.Lock(); rc.now--; rc.mu.Unlock() }()
		if n == 1 {
			close(rc.arrived)
			<-rc.release
			w.WriteHeader(first)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// counts returns how many requests came and the most at once.
func (rc *heldReceiver) counts() (n, atOnce int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.n, rc.atOnce
}
