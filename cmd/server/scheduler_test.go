package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// TestSchedulerReplicas runs the collection schedule from two server
// processes on one Postgres database, both ticking every 50 ms, over
// invoices whose due date is long past: every step of the schedule is due
// at once on both replicas, which race for each. Each invoice must end
// with one notification per step and one write-off by dunning. The
// replicas read the real clock; the Go-level tests (the root package's
// TestSchedulersOnTwoApps, billing's dunning tests) drive the schedule day
// by day with a clock they set.
func TestSchedulerReplicas(t *testing.T) {
	dbURL := dbtest.PostgresURL(t)
	// The first process only serves (its scheduler is off), so that every
	// invoice exists before the racing replicas start.
	front := mustStartServerProc(t, freeAddr(t), "--database-url", dbURL, "--scheduler-interval", "0")
	mustExecCLI(t, dbURL, "tenant", "create", "--slug", "dun", "--name", "Dun", "--plan", "enterprise")
	mustExecCLI(t, dbURL, "user", "create", "--email", "owner@dun.test", "--name", "Owner")
	mustExecCLI(t, dbURL, "member", "add", "--tenant", "dun", "--email", "owner@dun.test", "--role", "owner")
	key := mustCreateKey(t, dbURL, "owner@dun.test", "collections:read,collections:write", "dun")

	const invoices = 6
	ids := map[string]bool{}
	for i := range invoices {
		body := fmt.Sprintf(`{"customer":{"name":"Customer %d","email":"c%d@example.com"},"currency":"USD",`+
			`"line_items":[{"description":"Service","quantity":1,"unit_amount":1000}],"due_date":"2020-01-%02d"}`, i, i, i+1)
		res := mustCallAPI(t, "POST", front.URL()+"/api/v1/collections/invoices", bearer(key), body)
		if res.Status != http.StatusCreated || res.Body["overdue"] != true {
			t.Fatalf("create invoice: %d %v, want 201 and overdue", res.Status, res.Body)
		}
		ids[res.Body["id"].(string)] = true
	}
	notYetDue := mustCallAPI(t, "POST", front.URL()+"/api/v1/collections/invoices", bearer(key),
		`{"customer":{"name":"Later","email":"later@example.com"},"currency":"USD",`+
			`"line_items":[{"description":"Service","quantity":1,"unit_amount":1000}],"due_date":"2999-12-31"}`)
	if notYetDue.Status != http.StatusCreated {
		t.Fatalf("create invoice: %d %v", notYetDue.Status, notYetDue.Body)
	}

	args := []string{"--database-url", dbURL, "--scheduler-interval", "50ms"}
	replicas := []*serverProc{launchServerProc(t, freeAddr(t), args...), launchServerProc(t, freeAddr(t), args...)}
	for _, r := range replicas {
		r.mustWaitServing(t)
	}

	// Wait for the schedule to end on every invoice, then stop the
	// replicas: whatever they did, they did before the count below.
	deadline := time.Now().Add(time.Minute)
	for {
		list := mustCallAPI(t, "GET", front.URL()+"/api/v1/collections/invoices?status=uncollectible&limit=100", bearer(key), "")
		if len(items(list)) == invoices {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute %d of %d invoices are written off: %v", len(items(list)), invoices, list.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, r := range replicas {
		r.stop(t)
	}

	for id := range ids {
		inv := mustCallAPI(t, "GET", front.URL()+"/api/v1/collections/invoices/"+id, bearer(key), "")
		if inv.Body["status"] != "uncollectible" || inv.Body["uncollectible_reason"] != "dunning" || inv.Body["overdue"] != false {
			t.Errorf("invoice %s: status %v, uncollectible_reason %v, overdue %v; want uncollectible, dunning, false",
				id, inv.Body["status"], inv.Body["uncollectible_reason"], inv.Body["overdue"])
		}
	}
	later := mustCallAPI(t, "GET", front.URL()+"/api/v1/collections/invoices/"+notYetDue.Body["id"].(string), bearer(key), "")
	if later.Body["status"] != "open" || later.Body["overdue"] != false {
		t.Errorf("invoice not yet due: status %v, overdue %v; want open, false", later.Body["status"], later.Body["overdue"])
	}

	counts := map[string]int{} // invoice id + step → notifications
	total := 0
	for _, n := range items(mustCallAPI(t, "GET", front.URL()+"/api/tenant/notifications?limit=100", bearer(key), "")) {
		data, _ := n["data"].(map[string]any)
		id, _ := data["invoice_id"].(string)
		step, _ := data["step"].(string)
		if !ids[id] {
			t.Errorf("notification %v about an invoice not past due", n)
			continue
		}
		counts[id+" "+step]++
		total++
	}
	for id := range ids {
		for _, st := range billing.Schedule() {
			if n := counts[id+" "+st.Name]; n != 1 {
				t.Errorf("invoice %s: %d %s notifications, want 1", id, n, st.Name)
			}
		}
	}
	if want := invoices * len(billing.Schedule()); total != want {
		t.Errorf("%d collection notifications, want %d", total, want)
	}
}
