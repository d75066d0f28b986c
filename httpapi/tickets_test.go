package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestTickets(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		globex := map[string]string{"X-Tenant-ID": e.globex.ID}
		create := func(t *testing.T, body string, header map[string]string) response {
			t.Helper()
			return e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, body: body, header: header})
		}

		r := create(t, `{"subject":"Printer on fire","description":"It is on fire.","priority":"urgent","tags":["Hardware","hardware"," Office Floor "]}`, acme)
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		tk := r.json(t)
		if tk["status"] != "open" || tk["priority"] != "urgent" || tk["number"] != float64(1) ||
			tk["requester"].(map[string]any)["id"] != e.alice.ID || fmt.Sprint(tk["tags"]) != "[hardware office-floor]" {
			t.Fatalf("ticket = %v", tk)
		}
		if r.header.Get("Location") != "/api/tickets/"+tk["id"].(string) {
			t.Fatalf("Location = %q", r.header.Get("Location"))
		}

		t.Run("Get", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: "/api/tickets/" + tk["id"].(string), bearer: e.keyAll, header: acme})
			if r.status != 200 || r.json(t)["id"] != tk["id"] {
				t.Fatalf("get: %d %s", r.status, r.body)
			}
		})
		t.Run("OtherTenantGets404", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: "/api/tickets/" + tk["id"].(string), bearer: e.keyAll, header: globex})
			wantProblem(t, r, http.StatusNotFound, "not_found")
			list := e.do(t, request{method: "GET", path: "/api/tickets", bearer: e.keyAll, header: globex}).json(t)
			if n := len(list["data"].([]any)); n != 0 {
				t.Fatalf("globex sees %d of acme's tickets", n)
			}
		})
		t.Run("Validation", func(t *testing.T) {
			r := create(t, `{"subject":"","description":"x","priority":"whenever","tags":["ok","`+string(make([]byte, 0))+`"]}`, acme)
			wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
			fields := map[string]bool{}
			for _, fe := range r.json(t)["errors"].([]any) {
				fields[fe.(map[string]any)["field"].(string)] = true
			}
			for _, want := range []string{"subject", "priority", "tags[1]"} {
				if !fields[want] {
					t.Errorf("errors %v lack field %q", fields, want)
				}
			}
			wantProblem(t, create(t, `{"subject":"a","description":"b","priority":3}`, acme), 400, "invalid_request")
		})
		t.Run("FiltersAndPagination", func(t *testing.T) {
			for i := 0; i < 44; i++ {
				prio := []string{"low", "normal", "high"}[i%3]
				if r := create(t, fmt.Sprintf(`{"subject":"s%d","description":"d","priority":%q}`, i, prio), acme); r.status != 201 {
					t.Fatalf("create %d: %d %s", i, r.status, r.body)
				}
			}
			seen := map[string]bool{}
			var sizes []int
			path := "/api/tickets"
			for {
				page := e.do(t, request{method: "GET", path: path, bearer: e.keyAll, header: acme}).json(t)
				data := page["data"].([]any)
				sizes = append(sizes, len(data))
				for _, d := range data {
					id := d.(map[string]any)["id"].(string)
					if seen[id] {
						t.Fatalf("ticket %s on two pages", id)
					}
					seen[id] = true
				}
				if page["has_more"] != true {
					if page["next_cursor"] != nil {
						t.Fatalf("last page has next_cursor %v", page["next_cursor"])
					}
					break
				}
				path = "/api/tickets?cursor=" + page["next_cursor"].(string)
			}
			if fmt.Sprint(sizes) != "[20 20 5]" {
				t.Fatalf("page sizes = %v, want [20 20 5]", sizes)
			}
			high := e.do(t, request{method: "GET", path: "/api/tickets?priority=high&limit=100", bearer: e.keyAll, header: acme}).json(t)
			for _, d := range high["data"].([]any) {
				if d.(map[string]any)["priority"] != "high" {
					t.Fatalf("priority filter returned %v", d)
				}
			}
			if n := len(high["data"].([]any)); n != 14 {
				t.Fatalf("high tickets = %d, want 14", n)
			}
			mine := e.do(t, request{method: "GET", path: "/api/tickets?requester=me&status=open&limit=100", bearer: e.keyAll, header: acme}).json(t)
			if n := len(mine["data"].([]any)); n != 45 {
				t.Fatalf("requester=me = %d, want 45", n)
			}
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/tickets?cursor=garbage!", bearer: e.keyAll, header: acme}), 400, "invalid_request")
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/tickets?limit=101", bearer: e.keyAll, header: acme}), 400, "invalid_request")
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/tickets?status=lost", bearer: e.keyAll, header: acme}), 422, "validation_failed")
		})
		t.Run("ModuleDisabled", func(t *testing.T) {
			ctx := context.Background()
			_, _, err := e.svc.Modules.Toggle(ctx, e.globex.ID, tenancy.RoleOwner, catalog.ModuleTickets, false)
			check(t, err)
			wantProblem(t, create(t, `{"subject":"a","description":"b"}`, globex), http.StatusForbidden, "module_disabled")
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/tickets", bearer: e.keyAll, header: globex}), http.StatusForbidden, "module_disabled")
			_, _, err = e.svc.Modules.Toggle(ctx, e.globex.ID, tenancy.RoleOwner, catalog.ModuleTickets, true)
			check(t, err)
		})
	})
}

func TestTicketLimitUnderConcurrency(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		limit := int64(10)
		check(t, e.svc.Entitlements.SetLimit(context.Background(), "acme", catalog.FeatureTickets, &limit))
		const n = 30
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll,
					header: map[string]string{"X-Tenant-ID": e.acme.ID},
					body:   fmt.Sprintf(`{"subject":"s%d","description":"d"}`, i)}).status
			}()
		}
		wg.Wait()
		counts := map[int]int{}
		for _, s := range statuses {
			counts[s]++
		}
		if counts[201] != 10 || counts[403] != n-10 {
			t.Fatalf("statuses = %v, want 10×201 and %d×403", counts, n-10)
		}
		list := e.do(t, request{method: "GET", path: "/api/tickets?limit=100", bearer: e.keyAll,
			header: map[string]string{"X-Tenant-ID": e.acme.ID}}).json(t)
		if got := len(list["data"].([]any)); got != 10 {
			t.Fatalf("tickets stored = %d, want 10", got)
		}
	})
}

func TestIdempotentCreate(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		post := func(key, body string) response {
			return e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, body: body,
				header: map[string]string{"X-Tenant-ID": e.acme.ID, "Idempotency-Key": key}})
		}
		body := `{"subject":"once","description":"only once"}`
		first := post("k1", body)
		if first.status != 201 || first.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first: %d replayed=%q", first.status, first.header.Get("Idempotent-Replayed"))
		}
		again := post("k1", body)
		if again.status != 201 || again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
			t.Fatalf("replay: %d replayed=%q body %s", again.status, again.header.Get("Idempotent-Replayed"), again.body)
		}
		wantProblem(t, post("k1", `{"subject":"other","description":"body"}`), 422, "idempotency_key_reused")
		wantProblem(t, post("bad key!", body), 400, "invalid_request")

		// A validation failure is remembered too, and consumes nothing.
		if r := post("k2", `{"subject":""}`); r.status != 422 {
			t.Fatalf("invalid: %d", r.status)
		}

		// Concurrent duplicates make one ticket; a duplicate arriving while
		// the first runs is a 409.
		var wg sync.WaitGroup
		results := make([]response, 10)
		for i := range results {
			wg.Add(1)
			go func() { defer wg.Done(); results[i] = post("k3", `{"subject":"race","description":"d"}`) }()
		}
		wg.Wait()
		ids := map[string]bool{}
		for _, r := range results {
			if r.status == http.StatusConflict {
				wantProblem(t, r, http.StatusConflict, "conflict")
				continue
			}
			if r.status != 201 {
				t.Fatalf("concurrent duplicate: %d %s", r.status, r.body)
			}
			ids[r.json(t)["id"].(string)] = true
		}
		if len(ids) != 1 {
			t.Fatalf("concurrent duplicates created %d tickets", len(ids))
		}
		list := e.do(t, request{method: "GET", path: "/api/tickets", bearer: e.keyAll,
			header: map[string]string{"X-Tenant-ID": e.acme.ID}}).json(t)
		if n := len(list["data"].([]any)); n != 2 {
			t.Fatalf("tickets = %d, want 2 (k1 and k3)", n)
		}
		// Keys are per credential: another key's k1 is a new request.
		other := e.newKey("alice@acme.test", "", tenancy.Scopes()...)
		r := e.do(t, request{method: "POST", path: "/api/tickets", bearer: other, body: body,
			header: map[string]string{"X-Tenant-ID": e.acme.ID, "Idempotency-Key": "k1"}})
		if r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("other credential: %d replayed=%q", r.status, r.header.Get("Idempotent-Replayed"))
		}
	})
}
