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
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
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
			tenantkit.WithDeliveries(riverqueue.Options{Workers: 2, FetchPoll: 50 * time.Millisecond, DB: dbtest.RiverDB(t, db)}))
		if err != nil {
			t.Fatal(err)
		}
		startDeliveries(t, ctx, app)

		ten, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatal(err)
		}
		ep, secret := toggleWithEndpoint(t, ctx, app, ten.ID, rc.URL+"/hooks")

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

// TestFailingEndpointDisabledAndTenantNotified runs an endpoint whose
// receiver always answers 503 on a real App (its own notifications, event
// log and delivery queue): once its attempts have failed for longer than
// the disable window (WithDisableAfter, 400 ms here for the 3 days of a
// production server), the queue disables it, records one
// webhook_endpoint.disabled event, and the tenant finds the notice in
// GET /api/tenant/notifications; the receiver hears nothing more.
func TestFailingEndpointDisabledAndTenantNotified(t *testing.T) {
	const window = 400 * time.Millisecond
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := tenantkit.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		var hits atomic.Int64
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		t.Cleanup(rc.Close)
		retries := make([]time.Duration, 100)
		for i := range retries {
			retries[i] = 50 * time.Millisecond
		}
		app, err := tenantkit.New(db, catalog.Default(),
			tenantkit.WithSecretKey([]byte(strings.Repeat("s", outbound.KeyBytes))),
			tenantkit.WithWebhookAllow("127.0.0.1"),
			tenantkit.WithOutbound(outbound.WithSchedule(retries...), outbound.WithDisableAfter(window)),
			tenantkit.WithDeliveries(riverqueue.Options{Workers: 2, FetchPoll: 50 * time.Millisecond, DB: dbtest.RiverDB(t, db)}))
		if err != nil {
			t.Fatal(err)
		}
		api, err := httpapi.New(ctx, app.HTTPConfig())
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api.Handler())
		t.Cleanup(srv.Close)
		startDeliveries(t, ctx, app)

		ten, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Tenancy.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "ann@acme.example", Name: "Ann"}); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Tenancy.Members.Add(ctx, "acme", "ann@acme.example", tenancy.RoleOwner); err != nil {
			t.Fatal(err)
		}
		_, key, err := app.Tenancy.Keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: "ann@acme.example", Tenant: "acme",
			Scopes: []tenancy.Scope{tenancy.ScopeCollectionsRead}})
		if err != nil {
			t.Fatal(err)
		}
		ep, _ := toggleWithEndpoint(t, ctx, app, ten.ID, rc.URL+"/hooks")

		deadline := time.Now().Add(20 * time.Second)
		for {
			got, err := app.Outbound.Endpoint(ctx, ten.ID, ep.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Enabled {
				ep = got
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("endpoint still enabled after 20s and %d requests: %+v", hits.Load(), got)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if ep.DisabledReason != outbound.DisabledFailing || ep.FailingSince == nil {
			t.Fatalf("endpoint = %+v, want disabled for failing, with failing_since", ep)
		}
		ds, _, err := app.Outbound.Deliveries(ctx, ten.ID, ep.ID, 0, "")
		if err != nil || len(ds) != 1 {
			t.Fatalf("Deliveries = %v, %v; want one", ds, err)
		}
		d := ds[0]
		if d.Status != outbound.DeliveryFailed || len(d.Attempts) < 2 {
			t.Fatalf("delivery %s with %d attempts, want failed after several", d.Status, len(d.Attempts))
		}
		first, last := d.Attempts[0], d.Attempts[len(d.Attempts)-1]
		if span := last.AttemptedAt.Sub(first.AttemptedAt); span < window || !first.AttemptedAt.Equal(*ep.FailingSince) {
			t.Fatalf("attempts from %s to %s (%s), failing since %s; want the window %s spanned from failing_since",
				first.AttemptedAt, last.AttemptedAt, span, ep.FailingSince, window)
		}
		for _, a := range d.Attempts {
			if a.Status != outbound.DeliveryFailed || a.HTTPStatus != http.StatusServiceUnavailable {
				t.Errorf("attempt %d = %+v, want failed with 503", a.Number, a)
			}
		}

		es, _, err := app.Events.List(ctx, ten.ID, event.Filter{Type: event.WebhookEndpointDisabled})
		if err != nil || len(es) != 1 || es[0].Resource.ID != ep.ID || es[0].Resource.Type != "webhook_endpoint" {
			t.Fatalf("webhook_endpoint.disabled events = %+v, %v; want one about %s", es, err, ep.ID)
		}

		req, _ := http.NewRequest("GET", srv.URL+"/api/tenant/notifications", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list struct {
			Data []tenancy.Notification `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /api/tenant/notifications: %d, %v", resp.StatusCode, err)
		}
		var notices []tenancy.Notification
		for _, n := range list.Data {
			if n.Type == outbound.NotificationEndpointDisabled {
				notices = append(notices, n)
			}
		}
		if len(notices) != 1 || notices[0].Data["endpoint_id"] != ep.ID || notices[0].ReadAt != nil ||
			!strings.Contains(notices[0].Body, rc.URL+"/hooks") {
			t.Fatalf("notifications = %+v; want one unread %s about %s", list.Data, outbound.NotificationEndpointDisabled, ep.ID)
		}

		n := hits.Load()
		time.Sleep(300 * time.Millisecond) // six retries' worth of the schedule
		if got := hits.Load(); got != n || int(n) != len(d.Attempts) {
			t.Fatalf("the receiver got %d requests, then %d; want %d (one per attempt, none after the disable)", n, got, len(d.Attempts))
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

// toggleWithEndpoint gives the tenant an endpoint at url for module
// toggles, then switches the tenant's reminders module off: one
// module.toggled event for the endpoint. It returns the endpoint and its
// secret.
func toggleWithEndpoint(t *testing.T, ctx context.Context, app *tenantkit.App, tenantID, url string) (outbound.Endpoint, string) {
	t.Helper()
	ep, secret, err := app.Outbound.CreateEndpoint(ctx, tenantID, outbound.CreateEndpointInput{
		URL: url, EventTypes: []string{event.ModuleToggled}})
	if err != nil {
		t.Fatalf("CreateEndpoint: %v", err)
	}
	if _, changed, err := app.Tenancy.Modules.Toggle(ctx, tenantID, tenancy.RoleOwner, catalog.ModuleReminders, false); err != nil || !changed {
		t.Fatalf("Toggle = changed %v, %v; want a change", changed, err)
	}
	return ep, secret
}

// startDeliveries starts app's delivery queue for the test and stops it
// when the test ends.
func startDeliveries(t *testing.T, ctx context.Context, app *tenantkit.App) {
	t.Helper()
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
