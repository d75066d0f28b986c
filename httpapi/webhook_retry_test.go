package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// TestWebhookRetryNowOverHTTP: a real receiver, a real delivery queue
// (River, started as a second replica would) and concurrent retries
// through the API. A pending delivery whose next attempt is an hour away
// is attempted at once when retried, however many retries come at once,
// and delivered once; retries that come while an attempt is at the
// receiver make no second request then, and make the next attempt follow
// at once when that one fails. No delivery is ever at the receiver twice
// at once, and a succeeded delivery's retry is a 409 naming its status.
func TestWebhookRetryNowOverHTTP(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		startDeliveryWorker(t, e)
		rc := newRetryReceiver(t)
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		r := e.do(t, request{method: "POST", path: "/api/webhook-endpoints", bearer: e.keyAll, header: acme,
			body: `{"url":"` + rc.URL + `/hook","event_types":["invoice.paid"]}`})
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		epID := r.json(t)["id"].(string)
		deliveries := "/api/webhook-endpoints/" + epID + "/deliveries"

		t.Run("PendingRetriedAtOnce", func(t *testing.T) {
			rc.set(http.StatusServiceUnavailable, false)
			d := sendTest(t, e, epID)
			first := waitDelivery(t, e, deliveries, d, "the first attempt", func(d delivery) bool { return len(d.Attempts) == 1 })
			if first.Status != "pending" || first.NextAttemptAt == nil || time.Until(*first.NextAttemptAt) < 50*time.Minute {
				t.Fatalf("after a failed attempt: %+v, want pending, next attempt in about an hour", first)
			}
			rc.set(http.StatusOK, false)
			statuses := retryAtOnce(t, e, epID, d, 8)
			for _, s := range statuses {
				if s != "202 pending" && s != "409 succeeded" {
					t.Errorf("retry answered %s, want 202 pending (or 409 succeeded once it is delivered)", s)
				}
			}
			done := waitDelivery(t, e, deliveries, d, "the delivery", func(d delivery) bool { return d.Status == "succeeded" })
			time.Sleep(time.Second) // a second attempt would come by now
			if n, most := rc.counts(d); n != 2 || most != 1 || len(done.Attempts) != 2 {
				t.Fatalf("receiver got %d requests (at most %d at once), delivery has %d attempts; want 2, one at a time, 2",
					n, most, len(done.Attempts))
			}
			r := e.do(t, request{method: "POST", path: deliveries + "/" + d + "/retry", bearer: e.keyAll, header: acme})
			if r.status != http.StatusConflict || r.json(t)["current_status"] != "succeeded" {
				t.Fatalf("retry of a succeeded delivery: %d %s, want 409 current_status succeeded", r.status, r.body)
			}
		})

		t.Run("RetriedWhileAttempting", func(t *testing.T) {
			rc.set(http.StatusServiceUnavailable, true) // the next new delivery's first request waits, then fails
			d := sendTest(t, e, epID)
			select {
			case <-rc.held:
			case <-time.After(30 * time.Second):
				t.Fatal("the delivery never reached the receiver")
			}
			for _, s := range retryAtOnce(t, e, epID, d, 4) {
				if s != "202 pending" {
					t.Errorf("retry during the attempt answered %s, want 202 pending", s)
				}
			}
			rc.set(http.StatusOK, false)
			start := time.Now()
			close(rc.release)
			done := waitDelivery(t, e, deliveries, d, "the delivery", func(d delivery) bool { return d.Status == "succeeded" })
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("the next attempt came %s after the failed one, want at once", took)
			}
			time.Sleep(time.Second)
			if n, most := rc.counts(d); n != 2 || most != 1 || len(done.Attempts) != 2 || done.Attempts[0].HTTPStatus != 503 {
				t.Fatalf("receiver got %d requests (at most %d at once), attempts %+v; want 2, one at a time, a 503 then a 200",
					n, most, done.Attempts)
			}
		})
	})
}

// startDeliveryWorker runs a second App on e's database whose delivery
// queue is started: a replica that delivers, with a schedule whose first
// retry is an hour away.
func startDeliveryWorker(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	if _, err := riverqueue.Migrate(ctx, e.db); err != nil {
		t.Fatalf("riverqueue.Migrate: %v", err)
	}
	app, err := tenantkit.New(e.db, catalog.Default(),
		tenantkit.WithSecretKey([]byte(strings.Repeat("k", 32))), tenantkit.WithWebhookAllow("127.0.0.1"),
		tenantkit.WithOutbound(outbound.WithSchedule(time.Hour, time.Hour), outbound.WithoutJitter()),
		tenantkit.WithDeliveries(riverqueue.Options{Workers: 4, FetchPoll: 50 * time.Millisecond,
			JobTimeout: 20 * time.Second, RescueAfter: time.Minute, DB: dbtest.RiverDB(t, e.db)}))
	if err != nil {
		t.Fatalf("tenantkit.New: %v", err)
	}
	if err := app.Deliveries.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := app.Deliveries.Stop(stop); err != nil {
			t.Errorf("Deliveries.Stop: %v", err)
		}
	})
}

// delivery is a delivery as the API shows it.
type delivery struct {
	ID            string     `json:"id"`
	Status        string     `json:"status"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	Attempts      []struct {
		HTTPStatus int `json:"http_status"`
	} `json:"attempts"`
}

// sendTest makes a test delivery to the endpoint and returns its id.
func sendTest(t *testing.T, e *env, epID string) string {
	t.Helper()
	r := e.do(t, request{method: "POST", path: "/api/webhook-endpoints/" + epID + "/test", bearer: e.keyAll,
		header: map[string]string{"X-Tenant-ID": e.acme.ID}})
	if r.status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.status, r.body)
	}
	return r.json(t)["id"].(string)
}

// waitDelivery polls the endpoint's deliveries until delivery id meets
// cond, and returns it.
func waitDelivery(t *testing.T, e *env, path, id, what string, cond func(delivery) bool) delivery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.do(t, request{method: "GET", path: path, bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}})
		var page struct{ Data []delivery }
		if err := json.Unmarshal(r.body, &page); r.status != http.StatusOK || err != nil {
			t.Fatalf("deliveries: %d %s", r.status, r.body)
		}
		for _, d := range page.Data {
			if d.ID == id && cond(d) {
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s of %s: %s", what, id, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// retryAtOnce sends n retries of the delivery at once, half by the
// endpoint's path and half by the short one, and returns each answer as
// "<status> <delivery status or current_status>".
func retryAtOnce(t *testing.T, e *env, epID, id string, n int) []string {
	t.Helper()
	out := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		path := "/api/webhook-endpoints/deliveries/" + id + "/retry"
		if i%2 == 0 {
			path = "/api/webhook-endpoints/" + epID + "/deliveries/" + id + "/retry"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+e.keyAll)
			req.Header.Set("X-Tenant-ID", e.acme.ID)
			<-start
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				out[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			var body map[string]any
			raw, _ := io.ReadAll(resp.Body)
			_ = json.Unmarshal(raw, &body)
			status := body["status"]
			if resp.StatusCode != http.StatusAccepted {
				status = body["current_status"]
			}
			out[i] = fmt.Sprintf("%d %v", resp.StatusCode, status)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// retryReceiver answers every request with status; when hold is set, the
// first request of a delivery it has not seen waits for release. It
// counts each delivery's requests (by webhook-id) and the most of one
// delivery at once.
type retryReceiver struct {
	*httptest.Server
	held    chan struct{}
	release chan struct{}

	mu     sync.Mutex
	status int
	hold   bool
	n, now map[string]int
	most   map[string]int
}

func newRetryReceiver(t *testing.T) *retryReceiver {
	rc := &retryReceiver{held: make(chan struct{}), release: make(chan struct{}), status: http.StatusOK,
		n: map[string]int{}, now: map[string]int{}, most: map[string]int{}}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(outbound.HeaderID)
		rc.mu.Lock()
		rc.n[id]++
		rc.now[id]++
		rc.most[id] = max(rc.most[id], rc.now[id])
		hold := rc.hold && rc.n[id] == 1
		if hold {
			rc.hold = false
		}
		status := rc.status
		rc.mu.Unlock()
		defer func() { rc.mu.Lock(); rc.now[id]--; rc.mu.Unlock() }()
		if hold {
			close(rc.held)
			<-rc.release
		} else {
			time.Sleep(100 * time.Millisecond) // a window for a second attempt to overlap
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// set makes the receiver answer status from now, holding the next new
// delivery's first request when hold.
func (rc *retryReceiver) set(status int, hold bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.status, rc.hold = status, hold
}

// counts returns the requests of delivery id and the most at once.
func (rc *retryReceiver) counts(id string) (n, most int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.n[id], rc.most[id]
}
