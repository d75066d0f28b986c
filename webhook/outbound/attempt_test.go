package outbound_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// TestAttemptTimesOut: a receiver that holds the request past the
// attempt's timeout (WithTimeout, 200 ms here) fails the attempt after
// that timeout, not after DefaultTimeout: recorded as failed, without an
// HTTP status, "timed out after 200ms", and due again by the schedule.
// The retry, answered at once, succeeds.
func TestAttemptTimesOut(t *testing.T) {
	const timeout = 200 * time.Millisecond
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db, outbound.WithTimeout(timeout))
		var hang atomic.Bool
		var hits atomic.Int64
		hang.Store(true)
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			_, _ = io.Copy(io.Discard, r.Body) // so that the server notices the client hang up
			if hang.Load() {
				select {
				case <-r.Context().Done(): // the client gave up
				case <-time.After(5 * time.Second):
				}
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(rc.Close)
		ep, _ := f.mustCreate(t, tenantA, rc.URL+"/hook", event.InvoicePaid)
		f.record(t, tenantA, event.InvoicePaid)
		ids := f.queue.take()
		if len(ids) != 1 {
			t.Fatalf("%d deliveries enqueued, want 1", len(ids))
		}
		ctx := context.Background()
		start := time.Now()
		o, err := f.svc.Attempt(ctx, ids[0])
		took := time.Since(start)
		if err != nil {
			t.Fatalf("Attempt: %v", err)
		}
		if took < timeout || took > 10*timeout {
			t.Fatalf("the attempt took %s, want about the %s timeout", took, timeout)
		}
		at := f.clock.now().Truncate(time.Microsecond)
		if o.Done || !o.RetryAt.Equal(at.Add(time.Millisecond)) {
			t.Fatalf("outcome = %+v, want a retry at %s (the schedule's first delay)", o, at.Add(time.Millisecond))
		}
		ds, _, err := f.svc.Deliveries(ctx, tenantA, ep.ID, 0, "")
		if err != nil || len(ds) != 1 {
			t.Fatalf("Deliveries = %v, %v", ds, err)
		}
		d := ds[0]
		if d.Status != outbound.DeliveryPending || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(o.RetryAt) || len(d.Attempts) != 1 {
			t.Fatalf("delivery = %+v, want pending, next attempt at %s, one attempt", d, o.RetryAt)
		}
		a := d.Attempts[0]
		if a.Status != outbound.DeliveryFailed || a.HTTPStatus != 0 || a.Response != "timed out after 200ms" ||
			a.LatencyMS < timeout.Milliseconds() || a.LatencyMS > 10*timeout.Milliseconds() {
			t.Fatalf("attempt = %+v, want failed, HTTP 0, timed out after 200ms, latency about 200", a)
		}
		if n := hits.Load(); n != 1 {
			t.Fatalf("the receiver got %d requests, want 1 (the timeout is the answer's, not the connection's)", n)
		}

		hang.Store(false)
		if o, err := f.svc.Attempt(ctx, ids[0]); err != nil || !o.Done {
			t.Fatalf("retry = %+v, %v; want done", o, err)
		}
		ds, _, _ = f.svc.Deliveries(ctx, tenantA, ep.ID, 0, "")
		if d := ds[0]; d.Status != outbound.DeliverySucceeded || len(d.Attempts) != 2 || d.Attempts[1].HTTPStatus != http.StatusNoContent {
			t.Fatalf("after the retry: %+v, want succeeded on the second attempt", d)
		}
	})
}

// rebindingDNS answers one name with addresses the test changes.
type rebindingDNS struct {
	mu     sync.Mutex
	name   string
	answer []netip.Addr
}

func (r *rebindingDNS) set(addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answer = r.answer[:0]
	for _, a := range addrs {
		r.answer = append(r.answer, netip.MustParseAddr(a))
	}
}

func (r *rebindingDNS) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if host != r.name {
		return nil, errors.New("no such host")
	}
	return append([]netip.Addr(nil), r.answer...), nil
}

// TestDNSRebindingRefusedAtDelivery: an endpoint whose host name resolved
// to a public address when it was registered, and resolves to loopback or
// the cloud metadata address when it is delivered to (DNS rebinding), is
// never reached: every attempt fails as blocked and is recorded, and the
// receiver listening on 127.0.0.1 at the URL's port sees no connection.
// The server has no allow list.
func TestDNSRebindingRefusedAtDelivery(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		var conns atomic.Int64
		rc := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		rc.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		rc.StartTLS()
		t.Cleanup(rc.Close)
		_, port, _ := net.SplitHostPort(rc.Listener.Addr().String())

		dns := &rebindingDNS{name: "hooks.rebind.test"}
		guard, err := outbound.NewGuard()
		if err != nil {
			t.Fatal(err)
		}
		outbound.SetLookup(guard, dns.lookup)
		f := newFixture(t, db, outbound.WithGuard(guard), outbound.WithTimeout(2*time.Second))
		url := "https://hooks.rebind.test:" + port + "/hook"

		dns.set("127.0.0.1")
		_, _, err = f.svc.CreateEndpoint(context.Background(), tenantA, outbound.CreateEndpointInput{URL: url})
		var ie *field.InvalidError
		if !errors.As(err, &ie) || !strings.Contains(ie.Fields["url"], "127.0.0.1") {
			t.Fatalf("CreateEndpoint while the name resolves to loopback = %v, want refused on url", err)
		}
		dns.set("93.184.216.34")
		ep, _ := f.mustCreate(t, tenantA, url)

		for _, tt := range []struct {
			name, addr string
		}{
			{"Loopback", "127.0.0.1"},
			{"Metadata", "169.254.169.254"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				dns.set(tt.addr)
				d, err := f.svc.SendTest(context.Background(), tenantA, ep.ID)
				if err != nil {
					t.Fatalf("SendTest: %v", err)
				}
				f.drive(t)
				got := mustDelivery(t, f, ep.ID, d.ID)
				if got.Status != outbound.DeliveryFailed || len(got.Attempts) != 4 {
					t.Fatalf("delivery %s with %d attempts, want failed after 4 (1 + the schedule's 3)", got.Status, len(got.Attempts))
				}
				for _, a := range got.Attempts {
					if a.Status != outbound.DeliveryFailed || a.HTTPStatus != 0 ||
						!strings.HasPrefix(a.Response, "blocked: ") || !strings.Contains(a.Response, tt.addr) {
						t.Errorf("attempt %d = %+v, want failed, HTTP 0, blocked naming %s", a.Number, a, tt.addr)
					}
				}
				if n := conns.Load(); n != 0 {
					t.Fatalf("the receiver saw %d connections, want none", n)
				}
			})
		}
	})
}

// mustDelivery returns the delivery id of endpoint endpointID of tenantA.
func mustDelivery(t *testing.T, f *fixture, endpointID, id string) outbound.Delivery {
	t.Helper()
	ds, _, err := f.svc.Deliveries(context.Background(), tenantA, endpointID, 100, "")
	if err != nil {
		t.Fatalf("Deliveries: %v", err)
	}
	for _, d := range ds {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no delivery %s among %d", id, len(ds))
	return outbound.Delivery{}
}
