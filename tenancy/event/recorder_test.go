package event

import (
	"context"
	"encoding/json"
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

// knownSub is a KnownSubscriber whose answer is fixed.
type knownSub struct {
	subFunc
	has, known bool
}

func (k knownSub) Subscribed(context.Context, string) (bool, bool) { return k.has, k.known }

// TestRecorderKnownSubscribers: the Store is asked about subscribers only
// when some subscriber cannot tell from the context, and the subscribers
// hear of an event when the answer, whoever gave it, is yes.
func TestRecorderKnownSubscribers(t *testing.T) {
	tests := []struct {
		name         string
		subs         []bool // per subscriber: has (known), as knownSub
		plain        bool   // one more subscriber that cannot tell
		unknown      bool   // the knownSubs do not know
		wantAsked    int
		wantDispatch bool
	}{
		{name: "NoSubscribers", wantAsked: 0, wantDispatch: false},
		{name: "KnownSubscribed", subs: []bool{true}, wantAsked: 0, wantDispatch: true},
		{name: "KnownUnsubscribed", subs: []bool{false}, wantAsked: 0, wantDispatch: false},
		{name: "AnyKnownSubscribed", subs: []bool{false, true}, wantAsked: 0, wantDispatch: true},
		{name: "Unknown", subs: []bool{true}, unknown: true, wantAsked: 1, wantDispatch: true},
		{name: "PlainSubscriber", subs: []bool{false}, plain: true, wantAsked: 1, wantDispatch: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &memStore{}
			r := NewRecorder(store)
			dispatched := false
			sub := subFunc(func(context.Context, Event) error { dispatched = true; return nil })
			for _, has := range tt.subs {
				r.Subscribe(knownSub{subFunc: sub, has: has, known: !tt.unknown})
			}
			if tt.plain {
				r.Subscribe(sub)
			}
			if err := r.Record(context.Background(), "ten_1", InvoicePaid, "invoice", "inv_1", nil); err != nil {
				t.Fatalf("Record: %v", err)
			}
			if len(store.events) != 1 || store.asked != tt.wantAsked || dispatched != tt.wantDispatch {
				t.Fatalf("stored %d, asked %d, dispatched %v; want 1, %d, %v",
					len(store.events), store.asked, dispatched, tt.wantAsked, tt.wantDispatch)
			}
		})
	}
}

// TestRecordDataEncoding holds the data Record stores to the bytes
// encoding/json.Marshal writes: Record encodes with
// segmentio/encoding/json, which must write the same; deliveries sign and
// send these bytes.
func TestRecordDataEncoding(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 11, 12, 345678000, time.UTC)
	type line struct {
		Description string `json:"description"`
		Amount      int64  `json:"amount"`
	}
	tests := []struct {
		name string
		data any
	}{
		{"Struct", struct {
			ID        string            `json:"id"`
			Lines     []line            `json:"line_items"`
			Metadata  map[string]string `json:"metadata"`
			CreatedAt time.Time         `json:"created_at"`
			PaidAt    *time.Time        `json:"paid_at"`
			Memo      string            `json:"memo,omitempty"`
		}{ID: "inv_1", Lines: []line{{"Consulting <hours> & more", 45000}}, Metadata: map[string]string{"b": "2", "a": "1"}, CreatedAt: at}},
		{"Map", map[string]any{"z": nil, "amount": int64(-9007199254740993), "name": "Zoë \u2028 \"quoted\"", "ok": true}},
		{"InvalidUTF8", map[string]string{"s": "a\xffb"}},
		{"Empty", struct{}{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &memStore{}
			if err := NewRecorder(store).Record(context.Background(), "ten_1", InvoiceUpdated, "invoice", "inv_1", tt.data); err != nil {
				t.Fatalf("Record: %v", err)
			}
			want, err := json.Marshal(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(store.events[0].Data); got != string(want) {
				t.Errorf("stored %s, encoding/json writes %s", got, want)
			}
		})
	}
}
