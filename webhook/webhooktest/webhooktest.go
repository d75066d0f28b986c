// Package webhooktest is the conformance suite every webhook.Store must
// pass: Run it from a test of your implementation, as webhook's own
// bunstore_test.go does for BunStore on SQLite and Postgres.
package webhooktest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

// Run checks a Store implementation. newStore must return a new, empty
// Store on every call.
func Run(t *testing.T, newStore func(t *testing.T) webhook.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s webhook.Store)
	}{
		{"InsertAndGet", testInsertAndGet},
		{"InsertWithOutcome", testInsertWithOutcome},
		{"DuplicateKeepsFirst", testDuplicateKeepsFirst},
		{"NotFound", testNotFound},
		{"ConcurrentInsert", testConcurrentInsert},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStore(t)) })
	}
}

// received is when the suite's events arrive: UTC, whole microseconds, as
// the Service stores times.
func received() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 123456000, time.UTC) }

func newRecord(id string) webhook.Record {
	return webhook.Record{
		ID: id, Type: webhook.TypePaymentSucceeded,
		Payload:    []byte(`{"id":"` + id + `","type":"payment.succeeded","data":{"note":"caf\u00e9 \\u0000"}}`),
		Outcome:    webhook.OutcomePending,
		ReceivedAt: received(),
	}
}

func mustInsert(tb testing.TB, s webhook.Store, r webhook.Record) bool {
	tb.Helper()
	ok, err := s.Insert(context.Background(), r)
	if err != nil {
		tb.Fatalf("Insert(%s): %v", r.ID, err)
	}
	return ok
}

func mustEvent(tb testing.TB, s webhook.Store, id string) webhook.Record {
	tb.Helper()
	r, err := s.Event(context.Background(), id)
	if err != nil {
		tb.Fatalf("Event(%s): %v", id, err)
	}
	return r
}

func wantRecord(tb testing.TB, got, want webhook.Record) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		tb.Fatalf("record:\n got %+v\nwant %+v", got, want)
	}
}

func testInsertAndGet(t *testing.T, s webhook.Store) {
	r := newRecord("evt_insert")
	if !mustInsert(t, s, r) {
		t.Fatal("Insert of a new id = false, want true")
	}
	wantRecord(t, mustEvent(t, s, r.ID), r)
}

// testInsertWithOutcome checks that a record inserted with its outcome
// (as Service inserts it, after the effect) reads back whole.
func testInsertWithOutcome(t *testing.T, s webhook.Store) {
	processed := received().Add(time.Second)
	unmatched := newRecord("evt_unmatched")
	unmatched.Outcome, unmatched.Reason, unmatched.TenantID, unmatched.InvoiceID, unmatched.ProcessedAt =
		webhook.OutcomeUnmatched, "currency mismatch", "ten_a", "inv_b", &processed
	applied := newRecord("evt_applied")
	applied.Outcome, applied.ProcessedAt = webhook.OutcomeApplied, &processed
	for _, r := range []webhook.Record{unmatched, applied} {
		if !mustInsert(t, s, r) {
			t.Fatalf("Insert(%s) of a new id = false, want true", r.ID)
		}
		wantRecord(t, mustEvent(t, s, r.ID), r)
	}
}

func testDuplicateKeepsFirst(t *testing.T, s webhook.Store) {
	first := newRecord("evt_dup")
	mustInsert(t, s, first)
	second := newRecord("evt_dup")
	second.Type, second.Payload = "other.type", []byte(`{"id":"evt_dup","type":"other.type"}`)
	if mustInsert(t, s, second) {
		t.Fatal("Insert of a recorded id = true, want false")
	}
	wantRecord(t, mustEvent(t, s, first.ID), first)
}

func testNotFound(t *testing.T, s webhook.Store) {
	if _, err := s.Event(context.Background(), "evt_missing"); !errors.Is(err, webhook.ErrNotFound) {
		t.Fatalf("Event(missing) = %v, want ErrNotFound", err)
	}
}

func testConcurrentInsert(t *testing.T, s webhook.Store) {
	const n = 20
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		inserted int
		errs     []error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newRecord("evt_race")
			r.Reason = fmt.Sprint(i)
			ok, err := s.Insert(context.Background(), r)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				inserted++
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("concurrent Insert: %v", errs)
	}
	if inserted != 1 {
		t.Fatalf("%d of %d concurrent inserts of one id succeeded, want 1", inserted, n)
	}
}
