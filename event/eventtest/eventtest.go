// Package eventtest is the conformance suite of event.Store: every
// implementation runs Run against a real backend, so that the Recorder
// and the Log can rely on what the interface documents.
package eventtest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Backend is one event.Store with the transactions it must join.
type Backend struct {
	Store event.Store
	// InTx runs fn in a transaction carried by the context fn receives.
	InTx func(ctx context.Context, fn func(ctx context.Context) error) error
}

// Run checks an event.Store. newBackend is called once per case and must
// return a Store without events (the prune and operator cases span
// tenants).
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"RoundTrip", testRoundTrip},
		{"Isolation", testIsolation},
		{"Filters", testFilters},
		{"Pages", testPages},
		{"JoinsTransaction", testJoinsTx},
		{"Prune", testPrune},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newBackend(t)) })
	}
}

const (
	tenantA = "ten_00000000000000000000000001"
	tenantB = "ten_00000000000000000000000002"
)

var base = time.Date(2026, 11, 21, 9, 30, 0, 123456000, time.UTC)

func newEvent(tenantID, typ, resourceID string, minutes int) event.Event {
	at := base.Add(time.Duration(minutes) * time.Minute)
	return event.Event{
		ID: id.At(id.Event, at), Type: typ, TenantID: tenantID,
		Actor: event.Actor{Type: event.ActorUser, ID: "usr_1", CredentialID: "key_1",
			AuthMethod: "api_key", ClientIP: "192.0.2.1"},
		RequestID: "req_1",
		Resource:  event.Resource{Type: "invoice", ID: resourceID},
		Data:      json.RawMessage(`{"id":"` + resourceID + `","total":1999}`),
		CreatedAt: at,
	}
}

func create(t *testing.T, b Backend, es ...event.Event) {
	t.Helper()
	for i, e := range es {
		// Every other event is created without asking for subscribers:
		// both kinds of insert must store the same event.
		if _, err := b.Store.CreateEvent(context.Background(), e, i%2 == 0); err != nil {
			t.Fatalf("CreateEvent: %v", err)
		}
	}
}

func equal(t *testing.T, got, want event.Event) {
	t.Helper()
	gd, wd := got.Data, want.Data
	got.Data, want.Data = nil, nil
	if !got.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("created_at = %v, want %v", got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	if got.ID != want.ID || got.Type != want.Type || got.TenantID != want.TenantID ||
		got.Actor != want.Actor || got.RequestID != want.RequestID || got.Resource != want.Resource {
		t.Fatalf("event = %+v, want %+v", got, want)
	}
	var g, w any
	if json.Unmarshal(gd, &g) != nil || json.Unmarshal(wd, &w) != nil {
		t.Fatalf("data %s, want %s", gd, wd)
	}
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Fatalf("data %s, want %s", gd, wd)
	}
}

func ids(es []event.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func testRoundTrip(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEvent(tenantA, event.InvoiceCreated, "inv_1", 0)
	platform := newEvent("", "tenant.created", "ten_x", 1)
	create(t, b, e, platform)
	got, err := b.Store.Event(ctx, tenantA, e.ID)
	if err != nil {
		t.Fatalf("Event: %v", err)
	}
	equal(t, got, e)
	got, err = b.Store.Event(ctx, "", platform.ID)
	if err != nil {
		t.Fatalf("Event(platform): %v", err)
	}
	equal(t, got, platform)
	if _, err := b.Store.Event(ctx, tenantA, id.New(id.Event)); !errors.Is(err, event.ErrNotFound) {
		t.Fatalf("Event(missing) = %v, want ErrNotFound", err)
	}
}

func testIsolation(t *testing.T, b Backend) {
	ctx := context.Background()
	a, bb := newEvent(tenantA, event.InvoiceCreated, "inv_1", 0), newEvent(tenantB, event.InvoiceCreated, "inv_2", 0)
	create(t, b, a, bb)
	if _, err := b.Store.Event(ctx, tenantA, bb.ID); !errors.Is(err, event.ErrNotFound) {
		t.Fatalf("tenant A read B's event: %v", err)
	}
	es, _, err := b.Store.Events(ctx, event.Filter{TenantID: tenantA, Limit: 10})
	if err != nil || len(es) != 1 || es[0].ID != a.ID {
		t.Fatalf("A's events = %v, %v; want only %s", ids(es), err, a.ID)
	}
	es, _, err = b.Store.Events(ctx, event.Filter{Limit: 10})
	if err != nil || len(es) != 2 {
		t.Fatalf("every tenant's events = %v, %v; want 2", ids(es), err)
	}
}

func testFilters(t *testing.T, b Backend) {
	ctx := context.Background()
	e1 := newEvent(tenantA, event.InvoiceCreated, "inv_1", 0)
	e2 := newEvent(tenantA, event.InvoicePaid, "inv_1", 10)
	e3 := newEvent(tenantA, event.InvoiceCreated, "inv_2", 20)
	create(t, b, e1, e2, e3)
	tests := []struct {
		name string
		f    event.Filter
		want []string
	}{
		{"All", event.Filter{}, []string{e3.ID, e2.ID, e1.ID}},
		{"Type", event.Filter{Type: event.InvoiceCreated}, []string{e3.ID, e1.ID}},
		{"Resource", event.Filter{ResourceID: "inv_1"}, []string{e2.ID, e1.ID}},
		{"After", event.Filter{CreatedAfter: base}, []string{e3.ID, e2.ID}},
		{"Before", event.Filter{CreatedBefore: base.Add(20 * time.Minute)}, []string{e2.ID, e1.ID}},
		{"Range", event.Filter{CreatedAfter: base, CreatedBefore: base.Add(20 * time.Minute)}, []string{e2.ID}},
		{"TypeAndResource", event.Filter{Type: event.InvoiceCreated, ResourceID: "inv_2"}, []string{e3.ID}},
		{"None", event.Filter{Type: "nothing"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.TenantID, tt.f.Limit = tenantA, 10
			es, more, err := b.Store.Events(ctx, tt.f)
			if err != nil || more || !sameIDs(ids(es), tt.want) {
				t.Fatalf("Events = %v, %v, %v; want %v", ids(es), more, err, tt.want)
			}
		})
	}
}

func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testPages(t *testing.T, b Backend) {
	ctx := context.Background()
	var want []string
	for i := range 5 {
		e := newEvent(tenantA, event.InvoiceCreated, "inv_1", i)
		create(t, b, e)
		want = append([]string{e.ID}, want...)
	}
	var got []string
	f := event.Filter{TenantID: tenantA, Limit: 2}
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		es, more, err := b.Store.Events(ctx, f)
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		got = append(got, ids(es)...)
		if !more {
			break
		}
		f.Before = es[len(es)-1].ID
	}
	if !sameIDs(got, want) {
		t.Fatalf("pages = %v, want %v", got, want)
	}
}

func testJoinsTx(t *testing.T, b Backend) {
	ctx := context.Background()
	kept, dropped := newEvent(tenantA, event.InvoiceCreated, "inv_1", 0), newEvent(tenantA, event.InvoiceCreated, "inv_2", 0)
	boom := errors.New("boom")
	err := b.InTx(ctx, func(ctx context.Context) error {
		if _, err := b.Store.CreateEvent(ctx, dropped, true); err != nil {
			return err
		}
		if _, err := b.Store.Event(ctx, tenantA, dropped.ID); err != nil {
			t.Errorf("event not visible in its own transaction: %v", err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v, want boom", err)
	}
	if err := b.InTx(ctx, func(ctx context.Context) error {
		_, err := b.Store.CreateEvent(ctx, kept, false)
		return err
	}); err != nil {
		t.Fatalf("InTx: %v", err)
	}
	if _, err := b.Store.Event(ctx, tenantA, dropped.ID); !errors.Is(err, event.ErrNotFound) {
		t.Fatalf("rolled-back event read: %v, want ErrNotFound", err)
	}
	if _, err := b.Store.Event(ctx, tenantA, kept.ID); err != nil {
		t.Fatalf("committed event: %v", err)
	}
}

func testPrune(t *testing.T, b Backend) {
	ctx := context.Background()
	old, edge, recent := newEvent(tenantA, event.InvoiceCreated, "inv_1", 0),
		newEvent(tenantB, event.InvoiceCreated, "inv_2", 10), newEvent(tenantA, event.InvoiceCreated, "inv_3", 20)
	create(t, b, old, edge, recent)
	n, err := b.Store.PruneEvents(ctx, base.Add(10*time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("PruneEvents = %d, %v; want 1", n, err)
	}
	es, _, err := b.Store.Events(ctx, event.Filter{Limit: 10})
	if err != nil || !sameIDs(ids(es), []string{recent.ID, edge.ID}) {
		t.Fatalf("after prune: %v, %v; want %v", ids(es), err, []string{recent.ID, edge.ID})
	}
}
