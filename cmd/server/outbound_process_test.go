package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// hookReceiver is a webhook receiver on a fixed loopback address that
// answers 204 at once and counts the requests of each webhook-id. It
// listens only from start: until then, deliveries to it are refused.
type hookReceiver struct {
	addr string
	srv  *http.Server

	mu  sync.Mutex
	ids map[string]int
}

func newHookReceiver(tb testing.TB) *hookReceiver {
	tb.Helper()
	rc := &hookReceiver{addr: freeAddr(tb), ids: map[string]int{}}
	rc.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rc.mu.Lock()
		rc.ids[r.Header.Get("webhook-id")]++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	tb.Cleanup(func() { _ = rc.srv.Close() })
	return rc
}

// URL is the endpoint URL deliveries go to.
func (rc *hookReceiver) URL() string { return "http://" + rc.addr + "/hooks" }

// mustStart starts listening on the receiver's address.
func (rc *hookReceiver) mustStart(tb testing.TB) {
	tb.Helper()
	ln, err := net.Listen("tcp", rc.addr)
	if err != nil {
		tb.Fatalf("receiver listen on %s: %v", rc.addr, err)
	}
	go func() { _ = rc.srv.Serve(ln) }()
}

// seen returns how many requests came for each webhook-id.
func (rc *hookReceiver) seen() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make(map[string]int, len(rc.ids))
	for id, n := range rc.ids {
		out[id] = n
	}
	return out
}

// mustCreateEndpoint registers url for module.toggled events of the key's
// tenant through server and returns the endpoint's id.
func mustCreateEndpoint(tb testing.TB, server, key, url string) string {
	tb.Helper()
	res := mustCallAPI(tb, "POST", server+"/api/webhook-endpoints", bearer(key),
		fmt.Sprintf(`{"url":%q,"event_types":["module.toggled"]}`, url))
	if res.Status != http.StatusCreated {
		tb.Fatalf("create endpoint: %d %v", res.Status, res.Body)
	}
	return res.Body["id"].(string)
}

// mustToggle switches the reminders module of the key's tenant: one
// module.toggled event.
func mustToggle(tb testing.TB, server, key string, enabled bool) {
	tb.Helper()
	res := mustCallAPI(tb, "PATCH", server+"/api/tenant/entitlements/toggle", bearer(key),
		fmt.Sprintf(`{"module":"collections.reminders","enabled":%t}`, enabled))
	if res.Status != http.StatusOK || res.Body["changed"] != true {
		tb.Fatalf("toggle: %d %v, want 200 changed", res.Status, res.Body)
	}
}

// deliveryRow is one delivery as the database holds it, with its
// attempts counted.
type deliveryRow struct {
	ID        string `bun:"id"`
	EventID   string `bun:"event_id"`
	Status    string `bun:"status"`
	Attempts  int    `bun:"attempts"`
	Succeeded int    `bun:"succeeded"`
}

// mustDeliveryRows reads every delivery of the database at dbURL.
func mustDeliveryRows(tb testing.TB, dbURL string) []deliveryRow {
	tb.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var rows []deliveryRow
	err = db.NewRaw(`SELECT d.id, d.event_id, d.status,
		(SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts,
		(SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.status = 'succeeded') AS succeeded
		FROM webhook_deliveries d ORDER BY d.id`).Scan(ctx, &rows)
	if err != nil {
		tb.Fatalf("read deliveries: %v", err)
	}
	return rows
}

// mustEventIDs reads the ids of the events of type typ.
func mustEventIDs(tb testing.TB, dbURL, typ string) map[string]bool {
	tb.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, dbURL, database.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var ids []string
	if err := db.NewRaw(`SELECT id FROM events WHERE type = ?`, typ).Scan(ctx, &ids); err != nil {
		tb.Fatalf("read events: %v", err)
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// checkAllDelivered fails the test unless every event of events has one
// delivery, succeeded with exactly one succeeded attempt, and the
// receiver got every delivery's webhook-id exactly once.
func checkAllDelivered(t *testing.T, rows []deliveryRow, events map[string]bool, seen map[string]int) {
	t.Helper()
	byEvent := map[string]int{}
	for _, d := range rows {
		byEvent[d.EventID]++
		if d.Status != "succeeded" || d.Succeeded != 1 {
			t.Errorf("delivery %s: %s with %d succeeded attempts of %d, want succeeded once", d.ID, d.Status, d.Succeeded, d.Attempts)
		}
		if n := seen[d.ID]; n != 1 {
			t.Errorf("delivery %s: the receiver got it %d times, want once", d.ID, n)
		}
	}
	for id := range events {
		if byEvent[id] != 1 {
			t.Errorf("event %s: %d deliveries, want 1", id, byEvent[id])
		}
	}
	if len(rows) != len(events) || len(seen) != len(rows) {
		t.Errorf("%d events, %d deliveries, %d webhook-ids received; want them equal", len(events), len(rows), len(seen))
	}
}

// waitDelivered polls until every delivery of the database has succeeded
// and the receiver got want webhook-ids, or fails after limit.
func waitDelivered(t *testing.T, dbURL string, rc *hookReceiver, want int, limit time.Duration) []deliveryRow {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		rows := mustDeliveryRows(t, dbURL)
		done := 0
		for _, d := range rows {
			if d.Status == "succeeded" {
				done++
			}
		}
		if len(rows) == want && done == want && len(rc.seen()) == want {
			return rows
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %d deliveries, %d succeeded, %d webhook-ids received; want %d", limit, len(rows), done, len(rc.seen()), want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestDeliveriesSurviveKill: events are created while their receiver is
// down (nothing listens on its port), so every delivery's attempts fail;
// the server is killed with SIGKILL while it retries them, and started
// again; then the receiver comes up on the same port. Every event must be
// delivered, once. The server retries on a short schedule
// (--webhook-retry-base 200ms: 0.2, 0.4, 0.8, 1.6, 3.2, 6.4 s …); a job
// the kill caught mid-attempt waits for River's rescue
// (--webhook-rescue-after 16s, the shortest allowed, plus the rescuer's
// 30 s interval).
func TestDeliveriesSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a server process")
	}
	databases(t, func(t *testing.T, dbURL string) {
		const events = 20
		rc := newHookReceiver(t)
		proc := mustStartServerProc(t, freeAddr(t), "--database-url", dbURL, "--scheduler-interval", "0",
			"--webhook-allow-hosts", "127.0.0.1", "--webhook-retry-base", "200ms", "--webhook-rescue-after", "16s")
		mustSeedTenant(t, dbURL, "acme", "owner@acme.test")
		key := mustCreateKey(t, dbURL, "owner@acme.test", "collections:read", "acme")
		epID := mustCreateEndpoint(t, proc.URL(), key, rc.URL())
		for i := range events {
			mustToggle(t, proc.URL(), key, i%2 == 1)
		}

		// Kill the server once it is retrying: every delivery has failed
		// at least once, and it is still working on them.
		deadline := time.Now().Add(30 * time.Second)
		for {
			rows := mustDeliveryRows(t, dbURL)
			tried := 0
			for _, d := range rows {
				if d.Attempts > 0 {
					tried++
				}
			}
			if len(rows) == events && tried == events {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 30s %d of %d deliveries attempted", tried, len(rows))
			}
			time.Sleep(20 * time.Millisecond)
		}
		proc.mustKill(t)
		killed := time.Now()
		for _, d := range mustDeliveryRows(t, dbURL) {
			if d.Status != "pending" || d.Succeeded != 0 {
				t.Fatalf("delivery %s is %s with %d succeeded attempts while the receiver is down", d.ID, d.Status, d.Succeeded)
			}
		}
		proc.mustLaunch(t)
		proc.mustWaitServing(t)
		rc.mustStart(t)

		rows := waitDelivered(t, dbURL, rc, events, 2*time.Minute)
		t.Logf("%d events delivered %s after the kill", events, time.Since(killed).Round(100*time.Millisecond))
		checkAllDelivered(t, rows, mustEventIDs(t, dbURL, "module.toggled"), rc.seen())
		res := mustCallAPI(t, "GET", proc.URL()+"/api/webhook-endpoints/"+epID+"/deliveries?limit=100", bearer(key), "")
		if ds := items(res); res.Status != http.StatusOK || len(ds) != events {
			t.Fatalf("GET deliveries: %d with %d deliveries, want 200 with %d", res.Status, len(ds), events)
		}
	})
}

// TestDeliveryReplicas: two server processes on one Postgres database,
// four delivery workers each, deliver 1,000 events to one receiver. None
// is lost (every delivery succeeded; the receiver got every webhook-id)
// and none succeeded twice (one succeeded attempt per delivery). The
// receiver answers at once, so no attempt times out and it must see each
// webhook-id once. Postgres only: the replicas' race for jobs is on
// SKIP LOCKED there; SQLite serialises its writers (and its two-process
// rescue is covered in outbound/riverqueue).
func TestDeliveryReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 deliveries through two server processes")
	}
	dbURL := dbtest.PostgresURL(t)
	const tenants, perTenant = 4, 250
	rc := newHookReceiver(t)
	rc.mustStart(t)
	args := []string{"--database-url", dbURL, "--scheduler-interval", "0", "--rate-limit", "0",
		"--webhook-allow-hosts", "127.0.0.1", "--webhook-workers", "4", "--webhook-retry-base", "1s"}
	replicas := []*serverProc{launchServerProc(t, freeAddr(t), args...), launchServerProc(t, freeAddr(t), args...)}
	for _, r := range replicas {
		r.mustWaitServing(t)
	}
	keys := make([]string, tenants)
	for i := range keys {
		slug := fmt.Sprintf("t%d", i)
		mustSeedTenant(t, dbURL, slug, "owner@"+slug+".test")
		keys[i] = mustCreateKey(t, dbURL, "owner@"+slug+".test", "collections:read", slug)
		mustCreateEndpoint(t, replicas[i%2].URL(), keys[i], rc.URL())
	}

	start := time.Now()
	together(tenants, func(i int) {
		for j := range perTenant {
			mustToggle(t, replicas[j%2].URL(), keys[i], j%2 == 1)
		}
	})
	created := time.Since(start)
	rows := waitDelivered(t, dbURL, rc, tenants*perTenant, time.Minute)
	t.Logf("%d events created in %s, all delivered %s after the first (%.0f deliveries/s over 2 replicas)",
		tenants*perTenant, created.Round(time.Millisecond), time.Since(start).Round(time.Millisecond),
		float64(tenants*perTenant)/time.Since(start).Seconds())
	time.Sleep(500 * time.Millisecond) // a second request of a delivery would show by now
	checkAllDelivered(t, rows, mustEventIDs(t, dbURL, "module.toggled"), rc.seen())
}
