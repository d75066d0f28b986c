package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook"
)

// TestReplicas runs three server processes on one Postgres database, as an
// operator scales the reference server, and drives them at once: whatever
// one replica records, the others act on (replicas are stateless:
// docs/operations.md, "Several replicas").
//
// It needs Postgres (dbtest's rules: skipped unless available, failed when
// TENANTKIT_REQUIRE_POSTGRES=1). The replicas share their rate limiter
// through Redis when one answers (see testRedisURL); without Redis the
// SharedRateLimit case skips, or fails when TENANTKIT_REQUIRE_REDIS=1.
func TestReplicas(t *testing.T) {
	dbURL := dbtest.PostgresURL(t)
	redisURL, redisErr := testRedisURL()
	if redisErr != nil && os.Getenv("TENANTKIT_REQUIRE_REDIS") == "1" {
		t.Fatalf("Redis required (TENANTKIT_REQUIRE_REDIS=1): %v", redisErr)
	}
	secret := newWebhookSecret()

	// The replicas start together on an empty database, all migrating at
	// start: they queue on the migration lock, and each must come up ready.
	args := []string{"--database-url", dbURL, "--webhook-secret", secret}
	if redisErr == nil {
		args = append(args, "--redis-url", redisURL)
	}
	replicas := make([]*serverProc, 3)
	for i := range replicas {
		replicas[i] = launchServerProc(t, freeAddr(t), args...)
	}
	for _, r := range replicas {
		r.mustWaitServing(t)
	}
	for i, r := range replicas {
		if res := mustCallAPI(t, "GET", r.URL()+"/api/health/ready", nil, ""); res.Status != http.StatusOK {
			t.Fatalf("replica %d: ready = %d %v, want 200", i, res.Status, res.Body)
		}
	}

	t.Run("TenantSelectionSeenByAll", func(t *testing.T) {
		acme := mustSeedTenant(t, dbURL, "sel-acme", "sel@acme.test")
		globex := mustSeedTenant(t, dbURL, "sel-globex", "")
		mustExecCLI(t, dbURL, "member", "add", "--tenant", "sel-globex", "--email", "sel@acme.test", "--role", "owner")
		key := mustCreateKey(t, dbURL, "sel@acme.test", "collections:read", "")

		for i, r := range replicas {
			res := mustCallAPI(t, "GET", r.URL()+"/api/tenant/access-matrix", bearer(key), "")
			if res.Status != http.StatusConflict || res.Body["code"] != "tenant_not_selected" {
				t.Fatalf("replica %d before any selection: %d %v, want 409 tenant_not_selected", i, res.Status, res.Body)
			}
		}
		// Each round selects on another replica; every replica must act on
		// the latest choice at once.
		for round, tenantID := range []string{acme, globex, acme} {
			on := replicas[round%len(replicas)]
			res := mustCallAPI(t, "POST", on.URL()+"/api/tenant/select", bearer(key), fmt.Sprintf(`{"tenant_id":%q}`, tenantID))
			if res.Status != http.StatusOK || res.Body["active_tenant_id"] != tenantID {
				t.Fatalf("round %d: select on replica %d = %d %v", round, round%len(replicas), res.Status, res.Body)
			}
			for i, r := range replicas {
				me := mustCallAPI(t, "GET", r.URL()+"/api/auth/me", bearer(key), "")
				if got := me.Body["active_tenant_id"]; me.Status != http.StatusOK || got != tenantID {
					t.Errorf("round %d: replica %d sees active tenant %v (status %d), want %s", round, i, got, me.Status, tenantID)
				}
				matrix := mustCallAPI(t, "GET", r.URL()+"/api/tenant/access-matrix", bearer(key), "")
				if got := matrix.Body["tenant_id"]; matrix.Status != http.StatusOK || got != tenantID {
					t.Errorf("round %d: replica %d acts on tenant %v (status %d), want %s", round, i, got, matrix.Status, tenantID)
				}
			}
		}
	})

	t.Run("WebhookDeliveredToAllAppliedOnce", func(t *testing.T) {
		mustSeedTenant(t, dbURL, "hook", "hook@acme.test")
		key := mustCreateKey(t, dbURL, "hook@acme.test", "collections:read,collections:write", "hook")
		inv := mustCallAPI(t, "POST", replicas[0].URL()+"/api/v1/collections/invoices", bearer(key), invoiceBody("Ada", 4900))
		if inv.Status != http.StatusCreated {
			t.Fatalf("create invoice: %d %v", inv.Status, inv.Body)
		}
		invoiceID := inv.Body["id"].(string)
		eventID := "evt_replicas_" + strconv.FormatInt(time.Now().UnixNano(), 36)
		event := paymentEvent(eventID, invoiceID, 4900)
		headers := mustSignEvent(t, secret, eventID, event)

		// The provider's redeliveries race each other on every replica.
		const perReplica = 3
		results := make([]apiResult, len(replicas)*perReplica)
		errs := make([]error, len(results))
		together(len(results), func(i int) {
			url := replicas[i%len(replicas)].URL() + "/api/webhooks/payment-provider"
			results[i], errs[i] = callAPI(context.Background(), "POST", url, headers, event)
		})
		firsts := 0
		for i, res := range results {
			if errs[i] != nil {
				t.Fatalf("delivery %d: %v", i, errs[i])
			}
			if res.Status != http.StatusOK || res.Body["outcome"] != "applied" {
				t.Errorf("delivery %d: %d %v, want 200 applied", i, res.Status, res.Body)
			}
			if res.Body["duplicate"] == false {
				firsts++
			}
		}
		if firsts != 1 {
			t.Errorf("%d deliveries answered duplicate=false, want exactly 1", firsts)
		}

		got := mustCallAPI(t, "GET", replicas[2].URL()+"/api/v1/collections/invoices/"+invoiceID, bearer(key), "")
		if got.Body["status"] != "paid" || got.Body["amount_paid"] != 4900.0 || got.Body["amount_due"] != 0.0 {
			t.Errorf("invoice after %d deliveries: status %v, amount_paid %v, amount_due %v; want paid, 4900, 0",
				len(results), got.Body["status"], got.Body["amount_paid"], got.Body["amount_due"])
		}
		list := mustCallAPI(t, "GET", replicas[1].URL()+"/api/tenant/notifications?limit=100", bearer(key), "")
		notes := 0
		for _, n := range items(list) {
			if data, _ := n["data"].(map[string]any); n["type"] == webhook.TypePaymentSucceeded && data["event_id"] == eventID {
				notes++
			}
		}
		if notes != 1 {
			t.Errorf("%d payment notifications for the event, want 1", notes)
		}
	})

	t.Run("ConcurrentCreatesNeverPassLimit", func(t *testing.T) {
		tests := []struct {
			name, feature, path, body string
		}{
			{"Tickets", "support.tickets", "/api/tickets", `{"subject":"Printer on fire","description":"It is on fire."}`},
			{"Invoices", "collections.invoices", "/api/v1/collections/invoices", invoiceBody("Ada", 100)},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				const limit, perReplica = 7, 6
				slug := "limit-" + strings.ToLower(tt.name)
				mustSeedTenant(t, dbURL, slug, "owner@"+slug+".test")
				key := mustCreateKey(t, dbURL, "owner@"+slug+".test", "tickets:read,tickets:write,collections:read,collections:write", slug)
				mustExecCLI(t, dbURL, "limit", "set", "--tenant", slug, "--feature", tt.feature, "--limit", strconv.Itoa(limit))

				results := make([]apiResult, len(replicas)*perReplica)
				errs := make([]error, len(results))
				together(len(results), func(i int) {
					url := replicas[i%len(replicas)].URL() + tt.path
					results[i], errs[i] = callAPI(context.Background(), "POST", url, bearer(key), tt.body)
				})
				created := 0
				for i, res := range results {
					switch {
					case errs[i] != nil:
						t.Fatalf("request %d: %v", i, errs[i])
					case res.Status == http.StatusCreated:
						created++
					case res.Status == http.StatusForbidden && res.Body["code"] == "entitlement_limit_exceeded":
					default:
						t.Errorf("request %d: %d %v, want 201 or 403 entitlement_limit_exceeded", i, res.Status, res.Body)
					}
				}
				if created != limit {
					t.Errorf("%d of %d concurrent creates succeeded, want the limit, %d", created, len(results), limit)
				}
				ent := mustCallAPI(t, "GET", replicas[1].URL()+"/api/tenant/entitlements/limit?feature="+tt.feature, bearer(key), "")
				if ent.Body["usage"] != float64(limit) || ent.Body["remaining"] != 0.0 {
					t.Errorf("entitlement after the burst: usage %v, remaining %v; want %d, 0", ent.Body["usage"], ent.Body["remaining"], limit)
				}
				if n := len(items(mustCallAPI(t, "GET", replicas[2].URL()+tt.path+"?limit=100", bearer(key), ""))); n != limit {
					t.Errorf("list holds %d items, want %d", n, limit)
				}
			})
		}
	})

	t.Run("InvoiceNumbersUniqueAndGapless", func(t *testing.T) {
		const perReplica = 8
		mustSeedTenant(t, dbURL, "numbers", "owner@numbers.test")
		key := mustCreateKey(t, dbURL, "owner@numbers.test", "collections:read,collections:write", "numbers")
		results := make([]apiResult, len(replicas)*perReplica)
		errs := make([]error, len(results))
		together(len(results), func(i int) {
			url := replicas[i%len(replicas)].URL() + "/api/v1/collections/invoices"
			results[i], errs[i] = callAPI(context.Background(), "POST", url, bearer(key), invoiceBody(fmt.Sprintf("Customer %d", i), 1000))
		})
		var numbers []string
		for i, res := range results {
			if errs[i] != nil || res.Status != http.StatusCreated {
				t.Fatalf("create %d: %d %v %v", i, res.Status, res.Body, errs[i])
			}
			numbers = append(numbers, res.Body["number"].(string))
		}
		slices.Sort(numbers)
		for i, got := range numbers {
			if want := fmt.Sprintf("INV-%06d", i+1); got != want {
				t.Fatalf("numbers = %v, want INV-000001…INV-%06d with no gap or repeat", numbers, len(results))
			}
		}
		listed := items(mustCallAPI(t, "GET", replicas[0].URL()+"/api/v1/collections/invoices?limit=100", bearer(key), ""))
		if len(listed) != len(results) {
			t.Errorf("list holds %d invoices, want %d", len(listed), len(results))
		}
	})

	t.Run("IdempotencyKeyAcrossReplicas", func(t *testing.T) {
		const perReplica = 2
		mustSeedTenant(t, dbURL, "idem", "owner@idem.test")
		key := mustCreateKey(t, dbURL, "owner@idem.test", "collections:read,collections:write", "idem")
		h := bearer(key, "Idempotency-Key", "order-42")
		body := invoiceBody("Ada", 4200)
		results := make([]apiResult, len(replicas)*perReplica)
		errs := make([]error, len(results))
		together(len(results), func(i int) {
			url := replicas[i%len(replicas)].URL() + "/api/v1/collections/invoices"
			results[i], errs[i] = callAPI(context.Background(), "POST", url, h, body)
		})
		// Each request either creates (once), replays the stored response,
		// or — while the first still runs on another replica — is refused
		// with 409 conflict; none creates a second invoice.
		ids, created, replayed := map[any]bool{}, 0, 0
		for i, res := range results {
			switch {
			case errs[i] != nil:
				t.Fatalf("request %d: %v", i, errs[i])
			case res.Status == http.StatusConflict && res.Body["code"] == "conflict":
				continue
			case res.Status != http.StatusCreated:
				t.Fatalf("request %d: %d %v", i, res.Status, res.Body)
			}
			ids[res.Body["id"]] = true
			if res.Header.Get("Idempotent-Replayed") == "true" {
				replayed++
			} else {
				created++
			}
		}
		if len(ids) != 1 || created != 1 {
			t.Errorf("%d requests with one key gave ids %v, %d created and %d replays; want one id created once",
				len(results), ids, created, replayed)
		}
		// Once the first has finished, a retry on any replica replays it.
		for _, r := range replicas {
			res := mustCallAPI(t, "POST", r.URL()+"/api/v1/collections/invoices", h, body)
			if res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "true" || !ids[res.Body["id"]] {
				t.Errorf("retry on %s: %d replayed=%q id %v, want a replay of %v", r.URL(), res.Status,
					res.Header.Get("Idempotent-Replayed"), res.Body["id"], ids)
			}
		}
		if n := len(items(mustCallAPI(t, "GET", replicas[0].URL()+"/api/v1/collections/invoices", bearer(key), ""))); n != 1 {
			t.Errorf("list holds %d invoices, want 1", n)
		}
	})

	t.Run("SharedRateLimit", func(t *testing.T) {
		if redisErr != nil {
			t.Skipf("no Redis: %v (set TENANTKIT_TEST_REDIS_URL, or TENANTKIT_REQUIRE_REDIS=1 to fail instead)", redisErr)
		}
		// Two more replicas with a small budget: 10 at once, then one every
		// 5 s, so nothing refills while the test runs.
		const burst = 10
		limited := []*serverProc{
			launchServerProc(t, freeAddr(t), "--database-url", dbURL, "--redis-url", redisURL, "--rate-limit", "0.2", "--rate-burst", strconv.Itoa(burst)),
			launchServerProc(t, freeAddr(t), "--database-url", dbURL, "--redis-url", redisURL, "--rate-limit", "0.2", "--rate-burst", strconv.Itoa(burst)),
		}
		for _, r := range limited {
			r.mustWaitServing(t)
		}
		mustSeedTenant(t, dbURL, "rate", "owner@rate.test")
		key := mustCreateKey(t, dbURL, "owner@rate.test", "collections:read", "rate")

		// Alternating replicas spend one shared bucket: the remaining count
		// goes down by one per request, whichever replica answers.
		start := time.Now()
		allowed := 0
		for i := range 3 * burst {
			res := mustCallAPI(t, "GET", limited[i%2].URL()+"/api/auth/me", bearer(key), "")
			switch res.Status {
			case http.StatusOK:
				allowed++
				if got, want := remaining(res.Header), burst-allowed; i < burst && got != want {
					t.Errorf("request %d on replica %d: RateLimit %q, want r=%d", i, i%2, res.Header.Get("RateLimit"), want)
				}
			case http.StatusTooManyRequests:
				if res.Header.Get("Retry-After") == "" || res.Body["code"] != "rate_limited" {
					t.Errorf("request %d: 429 without Retry-After or code rate_limited: %v %v", i, res.Header, res.Body)
				}
			default:
				t.Fatalf("request %d: %d %v", i, res.Status, res.Body)
			}
		}
		refills := int(time.Since(start) / (5 * time.Second))
		if allowed < burst || allowed > burst+refills {
			t.Errorf("%d of %d requests allowed across 2 replicas, want %d (one bucket of %d; each replica alone would allow %d)",
				allowed, 3*burst, burst, burst, burst)
		}
	})
}

// mustSeedTenant creates a tenant on the growth plan through the CLI and,
// when owner is not "", a user with that email owning it; it returns the
// tenant's id.
func mustSeedTenant(tb testing.TB, dbURL, slug, owner string) string {
	tb.Helper()
	ten := mustExecCLI(tb, dbURL, "tenant", "create", "--slug", slug, "--name", slug, "--plan", "growth")
	if owner != "" {
		mustExecCLI(tb, dbURL, "user", "create", "--email", owner, "--name", "Owner of "+slug)
		mustExecCLI(tb, dbURL, "member", "add", "--tenant", slug, "--email", owner, "--role", "owner")
	}
	id, _ := ten["id"].(string)
	return id
}

// testRedisURL returns the Redis the tests share rate limits through,
// TENANTKIT_TEST_REDIS_URL or else db 15 of a local Redis, with an error
// when it does not answer. Buckets are keyed by API key ids, new in every
// run, so runs sharing the db cannot disturb each other, and Redis expires
// each bucket once it has refilled: nothing needs flushing.
func testRedisURL() (string, error) {
	url := os.Getenv("TENANTKIT_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/15"
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return "", fmt.Errorf("TENANTKIT_TEST_REDIS_URL %q: %w", url, err)
	}
	client := redis.NewClient(opts)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		return "", fmt.Errorf("Redis at %s does not answer: %w", url, err)
	}
	return url, nil
}

// together runs fn(0)…fn(n-1) in n goroutines released at the same moment,
// and returns when all have finished.
func together(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

// items returns the data of a list answer.
func items(res apiResult) []map[string]any {
	data, _ := res.Body["data"].([]any)
	out := make([]map[string]any, 0, len(data))
	for _, d := range data {
		if m, ok := d.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// invoiceBody is a one-line USD invoice for customer.
func invoiceBody(customer string, amount int64) string {
	return fmt.Sprintf(`{"customer":{"name":%q,"email":"billing@example.com"},"currency":"USD",`+
		`"line_items":[{"description":"Subscription","quantity":1,"unit_amount":%d,"tax_rate_bps":0}]}`, customer, amount)
}

// paymentEvent is a payment.succeeded event for invoiceID.
func paymentEvent(eventID, invoiceID string, amount int64) string {
	return fmt.Sprintf(`{"id":%q,"type":"payment.succeeded","created_at":%q,"data":{"payment_id":"pay_%s",`+
		`"invoice_id":%q,"amount":%d,"currency":"USD","failure_reason":null}}`,
		eventID, time.Now().UTC().Format(time.RFC3339), eventID, invoiceID, amount)
}

// signEvent returns the Standard Webhooks headers that sign body as
// message id with secret, now.
func signEvent(secret, id, body string) (map[string]string, error) {
	h, err := webhook.Sign(secret, id, time.Now(), []byte(body))
	if err != nil {
		return nil, err
	}
	return map[string]string{webhook.HeaderID: h.ID, webhook.HeaderTimestamp: h.Timestamp, webhook.HeaderSignature: h.Signature}, nil
}

// mustSignEvent is signEvent failing the test on error.
func mustSignEvent(tb testing.TB, secret, id, body string) map[string]string {
	tb.Helper()
	h, err := signEvent(secret, id, body)
	if err != nil {
		tb.Fatalf("sign event: %v", err)
	}
	return h
}

// rateRemainingRE finds r (remaining requests) in a RateLimit header.
var rateRemainingRE = regexp.MustCompile(`;r=(\d+)`)

// remaining returns the r parameter of the RateLimit header, or -1.
func remaining(h http.Header) int {
	m := rateRemainingRE.FindStringSubmatch(h.Get("RateLimit"))
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
