package event

import (
	"context"
	"errors"
	"testing"
	"time"
)

// memStore is an event Store in memory, for the Recorder's own tests.
type memStore struct {
	events []Event
	err    error
	// unsubscribed makes CreateEvent report every event without subscribers.
	unsubscribed bool
	// asked counts the CreateEvent calls that asked about subscribers.
	asked int
}

func (m *memStore) CreateEvent(_ context.Context, e Event, ask bool) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	m.events = append(m.events, e)
	if ask {
		m.asked++
	}
	return ask && !m.unsubscribed, nil
}
func (m *memStore) Event(context.Context, string, string) (Event, error) { return Event{}, ErrNotFound }
func (m *memStore) Events(context.Context, Filter) ([]Event, bool, error) {
	return m.events, false, nil
}
func (m *memStore) PruneEvents(context.Context, time.Time) (int64, error) { return 0, nil }

// subFunc is a Subscriber made of a function.
type subFunc func(ctx context.Context, e Event) error

func (f subFunc) Dispatch(ctx context.Context, e Event) error { return f(ctx, e) }

type ctxKey struct{}

func TestRecorderSubscribers(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		store := &memStore{}
		r := NewRecorder(store)
		var got []Event
		r.Subscribe(subFunc(func(ctx context.Context, e Event) error {
			if ctx.Value(ctxKey{}) != "tx" {
				t.Errorf("subscriber got another context")
			}
			if len(store.events) != 1 {
				t.Errorf("subscriber called before the event was stored")
			}
			got = append(got, e)
			return nil
		}))
		ctx := context.WithValue(context.Background(), ctxKey{}, "tx")
		if err := r.Record(ctx, "ten_1", InvoicePaid, "invoice", "inv_1", map[string]int{"total": 1}); err != nil {
			t.Fatalf("Record: %v", err)
		}
		if len(got) != 1 || got[0].ID != store.events[0].ID || got[0].Type != InvoicePaid || string(got[0].Data) != `{"total":1}` {
			t.Fatalf("subscriber got %+v, want the stored event %+v", got, store.events)
		}
	})
	t.Run("ErrFailsRecord", func(t *testing.T) {
		r := NewRecorder(&memStore{})
		boom := errors.New("boom")
		r.Subscribe(subFunc(func(context.Context, Event) error { return boom }))
		if err := r.Record(context.Background(), "ten_1", InvoicePaid, "invoice", "inv_1", nil); !errors.Is(err, boom) {
			t.Fatalf("Record = %v, want the subscriber's error", err)
		}
	})
	t.Run("UnsubscribedSkipsSubscribers", func(t *testing.T) {
		store := &memStore{unsubscribed: true}
		r := NewRecorder(store)
		r.Subscribe(subFunc(func(context.Context, Event) error {
			t.Errorf("subscriber called for an event its store reported unsubscribed")
			return nil
		}))
		if err := r.Record(context.Background(), "ten_1", InvoicePaid, "invoice", "inv_1", nil); err != nil || len(store.events) != 1 {
			t.Fatalf("Record = %v with %d events stored, want nil and 1", err, len(store.events))
		}
	})
	t.Run("StoreErrSkipsSubscribers", func(t *testing.T) {
		r := NewRecorder(&memStore{err: errors.New("down")})
		r.Subscribe(subFunc(func(context.Context, Event) error {
			t.Errorf("subscriber called for an event that was not stored")
			return nil
		}))
		if err := r.Record(context.Background(), "ten_1", InvoicePaid, "invoice", "inv_1", nil); err == nil {
			t.Fatalf("Record = nil, want the store's error")
		}
	})
}

// TestRecorderAsksWithSubscribers: the Store is asked about subscribers
// only when the Recorder has some to tell.
func TestRecorderAsksWithSubscribers(t *testing.T) {
	for _, tt := range []struct {
		name      string
		subs      int
		wantAsked int
	}{
		{name: "NoSubscribers", subs: 0, wantAsked: 0},
		{name: "Subscribers", subs: 2, wantAsked: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := &memStore{}
			r := NewRecorder(store)
			dispatched := 0
			for range tt.subs {
				r.Subscribe(subFunc(func(context.Context, Event) error { dispatched++; return nil }))
			}
			if err := r.Record(context.Background(), "ten_1", InvoicePaid, "invoice", "inv_1", nil); err != nil {
				t.Fatalf("Record: %v", err)
			}
			if len(store.events) != 1 || store.asked != tt.wantAsked || dispatched != tt.subs {
				t.Fatalf("stored %d, asked %d, dispatched %d; want 1, %d, %d",
					len(store.events), store.asked, dispatched, tt.wantAsked, tt.subs)
			}
		})
	}
}
