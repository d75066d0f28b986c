package tenantkit_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/outbound"
	"github.com/tenantkit/tenantkit/outbound/riverqueue"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/event"
)

// TestDeliveryRetriedUntilSuccess runs the whole path of an outbound
// webhook on a real App with its delivery queue started: a module toggled
// records an event, the event's delivery is enqueued in its transaction,
// and the queue attempts it against a receiver on 127.0.0.1 that answers
// 500 three times, then 200. The delivery must succeed once, after four
// recorded attempts, each carrying the same webhook-id and a signature
// that verifies with the Standard Webhooks library and by hand.
func TestDeliveryRetriedUntilSuccess(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := tenantkit.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		rc := newScriptedReceiver(t, 500, 500, 500, 200)
		app, err := tenantkit.New(db, catalog.Default(),
			tenantkit.WithSecretKey([]byte(strings.Repeat("s", outbound.KeyBytes))),
			tenantkit.WithWebhookAllow("127.0.0.1"),
			tenantkit.WithOutbound(outbound.WithSchedule(20*time.Millisecond, 40*time.Millisecond, 80*time.Millisecond)),
			tenantkit.WithDeliveries(riverqueue.Options{Workers: 2, FetchPoll: 50 * time.Millisecond}))
		if err != nil {
			t.Fatal(err)
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

		ten, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatal(err)
		}
		ep, secret, err := app.Outbound.CreateEndpoint(ctx, ten.ID, outbound.CreateEndpointInput{
			URL: rc.URL + "/hooks", EventTypes: []string{event.ModuleToggled}})
		if err != nil {
			t.Fatalf("CreateEndpoint: %v", err)
		}
		if _, changed, err := app.Tenancy.Modules.Toggle(ctx, ten.ID, tenancy.RoleOwner, catalog.ModuleReminders, false); err != nil || !changed {
			t.Fatalf("Toggle = changed %v, %v; want a change", changed, err)
		}

		var d outbound.Delivery
		deadline := time.Now().Add(30 * time.Second)
		for {
			ds, _, err := app.Outbound.Deliveries(ctx, ten.ID, ep.ID, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != 1 {
				t.Fatalf("%d deliveries of one event, want 1", len(ds))
			}
			if d = ds[0]; d.Status != outbound.DeliveryPending {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("delivery still pending after 30s: %+v", d)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if d.Status != outbound.DeliverySucceeded || d.EventType != event.ModuleToggled || len(d.Attempts) != 4 {
			t.Fatalf("delivery %s of %s with %d attempts, want succeeded module.toggled with 4", d.Status, d.EventType, len(d.Attempts))
		}
		for i, want := range []int{500, 500, 500, 200} {
			if a := d.Attempts[i]; a.Number != i+1 || a.HTTPStatus != want || (a.Status == outbound.DeliverySucceeded) != (want == 200) {
				t.Errorf("attempt %d = %+v, want HTTP %d", i+1, a, want)
			}
		}

		time.Sleep(200 * time.Millisecond) // a fifth request would show by now
		reqs := rc.received()
		if len(reqs) != 4 {
			t.Fatalf("receiver got %d requests, want 4", len(reqs))
		}
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil {
			t.Fatalf("secret %q: %v", secret, err)
		}
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range reqs {
			id, ts, sig := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), r.header.Get("webhook-signature")
			if id != d.ID {
				t.Errorf("request %d: webhook-id %q, want the delivery's %q", i+1, id, d.ID)
			}
			if err := wh.Verify(r.body, r.header); err != nil {
				t.Errorf("request %d: Standard Webhooks verification: %v", i+1, err)
			}
			mac := hmac.New(sha256.New, key)
			mac.Write([]byte(id + "." + ts + "." + string(r.body)))
			if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); sig != want {
				t.Errorf("request %d: webhook-signature %q, want %q (HMAC-SHA256 of id.timestamp.body)", i+1, sig, want)
			}
			var payload struct {
				Type string `json:"type"`
				Data struct {
					ID       string `json:"id"`
					TenantID string `json:"tenant_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal(r.body, &payload); err != nil || payload.Type != event.ModuleToggled ||
				payload.Data.ID != d.EventID || payload.Data.TenantID != ten.ID {
				t.Errorf("request %d: body %s (%v), want the module.toggled event %s of %s", i+1, r.body, err, d.EventID, ten.ID)
			}
		}
	})
}

// scriptedReceiver is a webhook receiver on 127.0.0.1 answering the
// statuses of its script in turn, then 200, and keeping every request.
type scriptedReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	script []int
	reqs   []receivedRequest
}

// receivedRequest is what a receiver was sent.
type receivedRequest struct {
	header http.Header
	body   []byte
}

func newScriptedReceiver(t *testing.T, statuses ...int) *scriptedReceiver {
	t.Helper()
	rc := &scriptedReceiver{script: statuses}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, receivedRequest{header: r.Header.Clone(), body: body})
		status := http.StatusOK
		if len(rc.script) > 0 {
			status, rc.script = rc.script[0], rc.script[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// received returns the requests so far.
func (rc *scriptedReceiver) received() []receivedRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]receivedRequest(nil), rc.reqs...)
}
