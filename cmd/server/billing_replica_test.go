package main

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// TestBillingAcrossReplicas runs two server processes on one Postgres
// database and moves the clocks of 50 test tenants across three period
// ends through both at once, each replica asked for other times in other
// orders, while both replicas' schedulers tick: every tenant ends with one
// invoice per period ended, and the numbers run 1, 2, 3, … without a gap or
// a repeat. With --platform-grace-days 0, a tenant whose invoice is past
// its due date is refused writes on either replica (402) until the
// operator marks it paid; the payment provider's redeliveries of one
// payment, racing on both replicas, pay a platform invoice once.
func TestBillingAcrossReplicas(t *testing.T) {
	dbURL := dbtest.PostgresURL(t)
	secret := newWebhookSecret()
	args := []string{"--database-url", dbURL, "--webhook-secret", secret,
		"--scheduler-interval", "50ms", "--platform-grace-days", "0", "--rate-limit", "100000", "--rate-burst", "100000"}
	replicas := []*serverProc{launchServerProc(t, freeAddr(t), args...), launchServerProc(t, freeAddr(t), args...)}
	for _, r := range replicas {
		r.mustWaitServing(t)
	}
	created := mustExecCLI(t, dbURL, "operator-key", "create", "--name", "replicas", "--scopes", "operator:read,operator:write")
	op := bearer(created["key"].(string))

	const tenants, periods = 50, 3
	ids := make([]string, tenants)
	var start time.Time
	for i := range ids {
		res := mustCallAPI(t, "POST", replicas[i%2].URL()+"/api/operator/tenants", op,
			fmt.Sprintf(`{"slug":"clock-%02d","name":"Clock %d","plan_id":"starter","test":true}`, i, i))
		if res.Status != http.StatusCreated {
			t.Fatalf("create test tenant %d: %d %v", i, res.Status, res.Body)
		}
		ids[i] = res.Body["id"].(string)
		clock, err := time.Parse(time.RFC3339Nano, res.Body["test_clock"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if clock.After(start) {
			start = clock
		}
	}
	// The stops: an hour into each of the next three months. Replica 0
	// walks them in order, replica 1 jumps to the last then the first: a
	// stop already passed is refused (422), a stop ahead runs what falls
	// due on the way; either way nothing is billed twice.
	y, m, _ := start.Date()
	stops := make([]time.Time, periods)
	for i := range stops {
		stops[i] = time.Date(y, m+time.Month(i+1), 1, 1, 0, 0, 0, time.UTC)
	}
	orders := [][]time.Time{stops, {stops[2], stops[0], stops[1]}}
	var wg sync.WaitGroup
	errs := make(chan error, tenants*2*periods)
	for _, id := range ids {
		for r, order := range orders {
			wg.Go(func() {
				for _, to := range order {
					res, err := callAPI(t.Context(), "POST", replicas[r].URL()+"/api/operator/tenants/"+id+"/clock", op,
						fmt.Sprintf(`{"advance_to":%q}`, to.Format(time.RFC3339)))
					switch {
					case err != nil:
						errs <- err
					case res.Status != http.StatusOK && res.Status != http.StatusUnprocessableEntity:
						errs <- fmt.Errorf("advance %s to %s on replica %d: %d %v", id, to, r, res.Status, res.Body)
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	var numbers []int
	for i, id := range ids {
		res := mustCallAPI(t, "GET", replicas[i%2].URL()+"/api/operator/invoices?limit=100&tenant_id="+id, op, "")
		data, _ := res.Body["data"].([]any)
		if res.Status != http.StatusOK || len(data) != periods {
			t.Fatalf("tenant %s: %d invoices (%d %v), want %d", id, len(data), res.Status, res.Body["code"], periods)
		}
		periodStarts := map[string]bool{}
		for _, d := range data {
			inv := d.(map[string]any)
			numbers = append(numbers, int(inv["number"].(float64)))
			periodStarts[inv["period_start"].(string)] = true
		}
		if len(periodStarts) != periods {
			t.Fatalf("tenant %s: invoices for %d distinct periods, want %d", id, len(periodStarts), periods)
		}
	}
	slices.Sort(numbers)
	for i, n := range numbers {
		if n != i+1 {
			t.Fatalf("invoice numbers %v: want 1..%d, each once", numbers, tenants*periods)
		}
	}

	t.Run("PastDueOnEveryReplica", func(t *testing.T) {
		// The first period's invoice fell due 14 days after its end, and
		// the clock is past that: a write of the tenant is refused on both
		// replicas; paying its open invoices lifts it at once.
		id := ids[0]
		mustExecCLI(t, dbURL, "user", "create", "--email", "owner@clock.test", "--name", "Owner")
		mustExecCLI(t, dbURL, "member", "add", "--tenant", id, "--email", "owner@clock.test", "--role", "owner")
		key := mustCreateKey(t, dbURL, "owner@clock.test", "tickets:read,tickets:write", id)
		ticket := `{"subject":"Printer","description":"It is on fire","priority":"normal"}`
		for i, r := range replicas {
			res := mustCallAPI(t, "POST", r.URL()+"/api/tickets", bearer(key), ticket)
			if res.Status != http.StatusPaymentRequired || res.Body["code"] != "payment_required" {
				t.Fatalf("replica %d, write while past due: %d %v, want 402 payment_required", i, res.Status, res.Body)
			}
			if res := mustCallAPI(t, "GET", r.URL()+"/api/tickets", bearer(key), ""); res.Status != http.StatusOK {
				t.Fatalf("replica %d, read while past due: %d %v, want 200", i, res.Status, res.Body)
			}
		}
		open := mustCallAPI(t, "GET", replicas[0].URL()+"/api/operator/invoices?status=open&tenant_id="+id, op, "")
		for _, d := range open.Body["data"].([]any) {
			pin := d.(map[string]any)["id"].(string)
			if res := mustCallAPI(t, "POST", replicas[1].URL()+"/api/operator/invoices/"+pin+"/mark-paid", op, `{"reference":"wire"}`); res.Status != http.StatusOK {
				t.Fatalf("mark %s paid: %d %v", pin, res.Status, res.Body)
			}
		}
		for i, r := range replicas {
			if res := mustCallAPI(t, "POST", r.URL()+"/api/tickets", bearer(key), ticket); res.Status != http.StatusCreated {
				t.Fatalf("replica %d, write once paid: %d %v, want 201", i, res.Status, res.Body)
			}
		}
	})

	t.Run("ProviderPaysOnce", func(t *testing.T) {
		id := ids[1]
		open := mustCallAPI(t, "GET", replicas[0].URL()+"/api/operator/invoices?status=open&tenant_id="+id, op, "")
		data, _ := open.Body["data"].([]any)
		if len(data) != periods {
			t.Fatalf("tenant %s: %d open invoices, want %d", id, len(data), periods)
		}
		inv := data[0].(map[string]any)
		pin, total := inv["id"].(string), int64(inv["total"].(float64))
		eventID := "evt_pin_" + pin
		event := paymentEvent(eventID, pin, total)
		headers := mustSignEvent(t, secret, eventID, event)
		results := make([]apiResult, 6)
		errs := make([]error, len(results))
		together(len(results), func(i int) {
			results[i], errs[i] = callAPI(t.Context(), "POST", replicas[i%2].URL()+"/api/webhooks/payment-provider", headers, event)
		})
		firsts := 0
		for i, res := range results {
			if errs[i] != nil || res.Status != http.StatusOK || res.Body["outcome"] != "applied" {
				t.Fatalf("delivery %d: %v %d %v, want 200 applied", i, errs[i], res.Status, res.Body)
			}
			if res.Body["duplicate"] == false {
				firsts++
			}
		}
		if firsts != 1 {
			t.Errorf("%d deliveries answered duplicate=false, want exactly 1", firsts)
		}
		paid := mustCallAPI(t, "GET", replicas[1].URL()+"/api/operator/invoices?status=paid&tenant_id="+id, op, "")
		got, _ := paid.Body["data"].([]any)
		if len(got) != 1 || got[0].(map[string]any)["id"] != pin || got[0].(map[string]any)["amount_paid"] != float64(total) {
			t.Fatalf("paid invoices of %s: %v, want %s paid %d once", id, paid.Body, pin, total)
		}
	})
}
