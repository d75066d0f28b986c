package httpapi_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook"
	webhookstore "github.com/tenantkit/tenantkit/webhook/bunstore"
	"github.com/uptrace/bun"
)

// The payment webhook's guarantees over HTTP: exactly once under
// concurrency and across server instances, nothing half done after a
// fault, and the same invoice whatever the order of events.

// TestWebhookConcurrentDeliveries: 20 simultaneous deliveries of one event
// apply it once; every one is acknowledged.
func TestWebhookConcurrentDeliveries(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		inv := e.mustCreateInvoice(t, 5000)
		body := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 1250, "USD")
		acks := deliverConcurrently(t, body, []*env{e}, 20)
		if acks.first != 1 || acks.duplicate != 19 {
			t.Fatalf("%d first deliveries and %d duplicates, want 1 and 19", acks.first, acks.duplicate)
		}
		if got, want := e.invoiceState(t, inv), (invoiceState{paid: 1250, due: 3750, status: "open"}); got != want {
			t.Fatalf("invoice = %+v, want %+v", got, want)
		}
		if n := e.paymentNotifications(t, inv); n != 1 {
			t.Fatalf("%d notifications, want 1", n)
		}
	})
}

// acks counts the answers to concurrent deliveries.
type acks struct{ first, duplicate int }

// deliverConcurrently sends body n times at once, spread over the servers
// of envs in turn, and fails the test unless every answer is a 200.
func deliverConcurrently(t *testing.T, body string, envs []*env, n int) acks {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		got   acks
		fails []string
		start = make(chan struct{})
	)
	for i := range n {
		e := envs[i%len(envs)]
		header := signed(t, webhookSecret, body)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := e.post(webhookPath, body, header)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				fails = append(fails, err.Error())
			case r.status != http.StatusOK:
				fails = append(fails, fmt.Sprintf("%d %s", r.status, r.body))
			case strings.Contains(string(r.body), `"duplicate":true`):
				got.duplicate++
			default:
				got.first++
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(fails) > 0 {
		t.Fatalf("%d of %d deliveries failed: %v", len(fails), n, fails)
	}
	return got
}

// TestWebhookTwoInstances: two API instances — each with its own
// connection pool, as two server processes would have — share one
// database; an event delivered to both, one after the other or at once,
// applies once.
func TestWebhookTwoInstances(t *testing.T) {
	for name, newURL := range map[string]func(testing.TB) string{"sqlite": dbtest.SQLiteURL, "postgres": dbtest.PostgresURL} {
		t.Run(name, func(t *testing.T) {
			url := newURL(t)
			a := newEnv(t, openDB(t, url, true), nil)
			b := *a
			b.db = openDB(t, url, false)
			b.svc = newTenancy(b.db)
			b.srv = httptest.NewServer(newAPI(t, &b).Handler())
			t.Cleanup(b.srv.Close)

			inv := a.mustCreateInvoice(t, 3000)
			first := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 1000, "USD")
			wantAck(t, a.deliver(t, first), false, "applied")
			wantAck(t, b.deliver(t, first), true, "applied")

			second := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 500, "USD")
			got := deliverConcurrently(t, second, []*env{a, &b}, 20)
			if got.first != 1 || got.duplicate != 19 {
				t.Fatalf("%d first deliveries and %d duplicates over two instances, want 1 and 19", got.first, got.duplicate)
			}
			want := invoiceState{paid: 1500, due: 1500, status: "open"}
			for _, e := range []*env{a, &b} {
				if got := e.invoiceState(t, inv); got != want {
					t.Fatalf("invoice = %+v, want %+v", got, want)
				}
			}
			if n := a.paymentNotifications(t, inv); n != 2 {
				t.Fatalf("%d notifications, want 2", n)
			}
		})
	}
}

// openDB opens url with its own pool, migrating it when asked.
func openDB(t *testing.T, url string, migrate bool) *bun.DB {
	t.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, url, database.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if migrate {
		if _, err := database.Migrate(ctx, db, migrations()...); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// flakyStore fails Insert, the inbox write after the effect, while
// failures remain: the payment and the notification are written by then.
type flakyStore struct {
	webhook.Store
	failures atomic.Int32
}

func (s *flakyStore) Insert(ctx context.Context, r webhook.Record) (bool, error) {
	if s.failures.Add(-1) >= 0 {
		return false, database.Wrap(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET})
	}
	return s.Store.Insert(ctx, r)
}

// TestWebhookTransientFailure: a database fault in the middle of an event
// answers 5xx and leaves nothing behind; the provider's retry then applies
// the event, once.
func TestWebhookTransientFailure(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		store := &flakyStore{Store: webhookstore.New(e.db)}
		store.failures.Store(1)
		flaky := withAPI(t, e, func(c *httpapi.Config) { c.Services.Webhooks = newWebhooks(e, store) })
		inv := e.mustCreateInvoice(t, 800)
		body := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 800, "USD")

		r := flaky.deliver(t, body)
		if r.status < 500 {
			t.Fatalf("delivery during a fault: %d %s, want 5xx", r.status, r.body)
		}
		wantProblem(t, r, http.StatusServiceUnavailable, "not_ready")
		if got, want := e.invoiceState(t, inv), (invoiceState{paid: 0, due: 800, status: "open"}); got != want {
			t.Fatalf("after the fault invoice = %+v, want %+v", got, want)
		}
		if n := e.paymentNotifications(t, inv); n != 0 {
			t.Fatalf("after the fault %d notifications, want 0", n)
		}
		if n := inboxSize(t, e.db); n != 0 {
			t.Fatalf("after the fault the inbox holds %d events, want 0", n)
		}

		wantAck(t, flaky.deliver(t, body), false, "applied")
		wantAck(t, flaky.deliver(t, body), true, "applied")
		if got, want := e.invoiceState(t, inv), (invoiceState{paid: 800, due: 0, status: "paid"}); got != want {
			t.Fatalf("after the retry invoice = %+v, want %+v", got, want)
		}
		if n := e.paymentNotifications(t, inv); n != 1 {
			t.Fatalf("after the retry %d notifications, want 1", n)
		}
	})
}

// TestWebhookOrderIndependence: the same events end in the same invoice
// whatever order they arrive in.
func TestWebhookOrderIndependence(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		type step struct {
			typ    string
			amount int64
		}
		tests := []struct {
			name  string
			total int64
			steps []step
			want  invoiceState
		}{
			{"TwoPartialsAndARefund", 1000,
				[]step{{webhook.TypePaymentSucceeded, 600}, {webhook.TypePaymentSucceeded, 400}, {webhook.TypePaymentRefunded, 300}},
				invoiceState{paid: 700, due: 300, status: "open"}},
			{"FailureAndFullRefundAroundASuccess", 1000,
				[]step{{webhook.TypePaymentFailed, 1000}, {webhook.TypePaymentSucceeded, 1000}, {webhook.TypePaymentRefunded, 1000}},
				invoiceState{paid: 0, due: 1000, status: "open"}},
			{"FailureThenSuccess", 1000,
				[]step{{webhook.TypePaymentFailed, 1000}, {webhook.TypePaymentSucceeded, 1000}},
				invoiceState{paid: 1000, due: 0, status: "paid"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				for _, order := range permutations(len(tt.steps)) {
					inv := e.mustCreateInvoice(t, tt.total)
					for _, i := range order {
						s := tt.steps[i]
						wantAck(t, e.deliver(t, paymentEvent(newEventID(), s.typ, inv, s.amount, "USD")), false, "applied")
					}
					if got := e.invoiceState(t, inv); got != tt.want {
						t.Fatalf("order %v: invoice = %+v, want %+v", order, got, tt.want)
					}
				}
			})
		}
	})
}

// permutations returns every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}
