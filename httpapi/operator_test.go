package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	opkey "github.com/tenantkit/tenantkit/tenancy/operator"
)

// opEnv is an env with an operator key that may read and write.
type opEnv struct {
	*env
	key string
}

func eachOpEnv(t *testing.T, fn func(t *testing.T, o opEnv)) {
	eachEnv(t, func(t *testing.T, e *env) {
		_, key := newOperatorKey(t, e, opkey.ScopeRead, opkey.ScopeWrite)
		fn(t, opEnv{env: e, key: key})
	})
}

// call sends an operator request.
func (o opEnv) call(t *testing.T, method, path, body string) response {
	t.Helper()
	return o.do(t, request{method: method, path: path, body: body, bearer: o.key})
}

// mustCall sends an operator request and fails unless it answers status.
func (o opEnv) mustCall(t *testing.T, status int, method, path, body string) map[string]any {
	t.Helper()
	r := o.call(t, method, path, body)
	if r.status != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, r.body)
	}
	if status == http.StatusNoContent {
		return nil
	}
	return r.json(t)
}

// listIDs returns the "id" (or another key's) values of a list's data.
func listIDs(t *testing.T, body map[string]any, key string) []string {
	t.Helper()
	var out []string
	for _, item := range body["data"].([]any) {
		out = append(out, item.(map[string]any)[key].(string))
	}
	return out
}

func TestOperatorTenants(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		created := o.mustCall(t, http.StatusCreated, "POST", "/api/operator/tenants", `{"slug":"initech","name":"Initech","plan_id":"starter"}`)
		tid := created["id"].(string)
		if created["slug"] != "initech" || created["plan_id"] != "starter" || created["seats"] != float64(3) || !id.Valid(id.Tenant, tid) {
			t.Fatalf("created tenant: %v", created)
		}
		t.Run("Location", func(t *testing.T) {
			r := o.call(t, "POST", "/api/operator/tenants", `{"slug":"hooli","name":"Hooli","plan_id":"free"}`)
			if r.status != http.StatusCreated || r.header.Get("Location") != "/api/operator/tenants/"+r.json(t)["id"].(string) {
				t.Fatalf("status %d, Location %q", r.status, r.header.Get("Location"))
			}
		})
		t.Run("ErrSlugTaken", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/tenants", `{"slug":"initech","name":"Other","plan_id":"starter"}`), http.StatusConflict, "conflict")
		})
		t.Run("ErrInvalid", func(t *testing.T) {
			r := o.call(t, "POST", "/api/operator/tenants", `{"slug":"Not A Slug","name":"","plan_id":"gold"}`)
			wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
			if got := strings.Join(errorFields(t, r), ","); got != "name,plan_id,slug" {
				t.Fatalf("fields %s, want name,plan_id,slug", got)
			}
		})
		t.Run("ErrUnknownField", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/tenants", `{"slug":"x","name":"X","plan_id":"free","seats":9}`), http.StatusBadRequest, "invalid_request")
		})
		t.Run("Get", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tenants/"+tid, "")
			if got["id"] != tid || got["name"] != "Initech" {
				t.Fatalf("get: %v", got)
			}
			wantProblem(t, o.call(t, "GET", "/api/operator/tenants/"+id.New(id.Tenant), ""), http.StatusNotFound, "not_found")
			wantProblem(t, o.call(t, "GET", "/api/operator/tenants/acme", ""), http.StatusNotFound, "not_found")
		})
		t.Run("List", func(t *testing.T) {
			all := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tenants", "")
			if got := strings.Join(listIDs(t, all, "slug"), ","); got != "hooli,initech,globex,acme" {
				t.Fatalf("tenants newest first: %s", got)
			}
			page := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tenants?limit=3", "")
			if page["has_more"] != true || len(listIDs(t, page, "id")) != 3 {
				t.Fatalf("page: %v", page)
			}
			rest := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tenants?limit=3&cursor="+page["next_cursor"].(string), "")
			if got := strings.Join(listIDs(t, rest, "slug"), ","); got != "acme" || rest["has_more"] != false {
				t.Fatalf("second page: %v", rest)
			}
			found := o.mustCall(t, http.StatusOK, "GET", "/api/operator/tenants?q=GLOB", "")
			if got := strings.Join(listIDs(t, found, "slug"), ","); got != "globex" {
				t.Fatalf("q=GLOB: %s", got)
			}
			wantProblem(t, o.call(t, "GET", "/api/operator/tenants?q="+strings.Repeat("x", 201), ""), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "GET", "/api/operator/tenants?status=open", ""), http.StatusBadRequest, "invalid_request")
		})
		t.Run("ChangePlan", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "PATCH", "/api/operator/tenants/"+tid, `{"plan_id":"enterprise"}`)
			if got["plan_id"] != "enterprise" || got["seats"] != float64(50) {
				t.Fatalf("after the plan change: %v, want enterprise with its 50 included seats", got)
			}
			got = o.mustCall(t, http.StatusOK, "PATCH", "/api/operator/tenants/"+tid, `{"seats":60}`)
			if got["seats"] != float64(60) {
				t.Fatalf("after the seats change: %v", got)
			}
			wantProblem(t, o.call(t, "PATCH", "/api/operator/tenants/"+tid, `{}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "PATCH", "/api/operator/tenants/"+tid, `{"plan_id":"gold"}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "PATCH", "/api/operator/tenants/"+tid, `{"seats":0}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "PATCH", "/api/operator/tenants/"+id.New(id.Tenant), `{"seats":5}`), http.StatusNotFound, "not_found")
		})
		t.Run("Limits", func(t *testing.T) {
			path := "/api/operator/tenants/" + o.acme.ID + "/limits/support.tickets"
			got := o.mustCall(t, http.StatusOK, "PUT", path, `{"limit":7}`)
			if got["tenant_id"] != o.acme.ID || got["feature"] != "support.tickets" || got["limit"] != float64(7) || got["remaining"] != float64(7) {
				t.Fatalf("after limit 7: %v", got)
			}
			if got := o.mustCall(t, http.StatusOK, "PUT", path, `{"unlimited":true}`); got["limit"] != nil {
				t.Fatalf("after unlimited: %v", got)
			}
			if got := o.mustCall(t, http.StatusOK, "PUT", path, `{"limit":null}`); got["limit"] != float64(200) {
				t.Fatalf("after clearing: %v, want the growth plan's 200", got)
			}
			// The tenant sees what the operator set.
			o.mustCall(t, http.StatusOK, "PUT", path, `{"limit":9}`)
			r := o.do(t, request{method: "GET", path: "/api/tenant/entitlements/limit?feature=support.tickets", bearer: o.keyAll,
				header: map[string]string{"X-Tenant-ID": o.acme.ID}})
			if r.status != http.StatusOK || r.json(t)["limit"] != float64(9) {
				t.Fatalf("tenant's view: %d %s", r.status, r.body)
			}
			for _, body := range []string{`{}`, `{"unlimited":false}`, `{"limit":3,"unlimited":true}`, `{"limit":-1}`} {
				wantProblem(t, o.call(t, "PUT", path, body), http.StatusUnprocessableEntity, "validation_failed")
			}
			wantProblem(t, o.call(t, "PUT", path, `{"limit":"lots"}`), http.StatusBadRequest, "invalid_request")
			wantProblem(t, o.call(t, "PUT", path, `{"limit":1.5}`), http.StatusBadRequest, "invalid_request")
			wantProblem(t, o.call(t, "PUT", "/api/operator/tenants/"+o.acme.ID+"/limits/nope", `{"limit":1}`), http.StatusNotFound, "not_found")
			wantProblem(t, o.call(t, "PUT", "/api/operator/tenants/"+id.New(id.Tenant)+"/limits/seats", `{"limit":1}`), http.StatusNotFound, "not_found")
		})
	})
}

func TestOperatorUsersAndMembers(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		tenant := o.mustCall(t, http.StatusCreated, "POST", "/api/operator/tenants", `{"slug":"initech","name":"Initech","plan_id":"free"}`)
		members := "/api/operator/tenants/" + tenant["id"].(string) + "/members"
		newUser := func(email string) string {
			u := o.mustCall(t, http.StatusCreated, "POST", "/api/operator/users", fmt.Sprintf(`{"email":%q,"name":"Someone"}`, email))
			return u["id"].(string)
		}
		ann, bob, cat := newUser("Ann@Initech.test"), newUser("bob@initech.test"), newUser("cat@initech.test")

		t.Run("Users", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", "/api/operator/users", `{"email":"ann@initech.test","name":"Ann"}`), http.StatusConflict, "conflict")
			wantProblem(t, o.call(t, "POST", "/api/operator/users", `{"email":"nope","name":"Ann"}`), http.StatusUnprocessableEntity, "validation_failed")
			got := o.mustCall(t, http.StatusOK, "GET", "/api/operator/users?q=initech.test&limit=2", "")
			if ids := strings.Join(listIDs(t, got, "email"), ","); ids != "cat@initech.test,bob@initech.test" || got["has_more"] != true {
				t.Fatalf("users: %v", got)
			}
		})
		t.Run("Add", func(t *testing.T) {
			m := o.mustCall(t, http.StatusCreated, "POST", members, fmt.Sprintf(`{"user_id":%q,"role":"owner"}`, ann))
			if m["user_id"] != ann || m["email"] != "ann@initech.test" || m["role"] != "owner" || m["tenant_id"] != tenant["id"] {
				t.Fatalf("member: %v", m)
			}
			o.mustCall(t, http.StatusCreated, "POST", members, `{"email":"BOB@initech.test","role":"member"}`)
			wantProblem(t, o.call(t, "POST", members, fmt.Sprintf(`{"user_id":%q,"role":"admin"}`, ann)), http.StatusConflict, "conflict")
			wantProblem(t, o.call(t, "POST", members, fmt.Sprintf(`{"user_id":%q}`, cat)), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", members, `{"role":"member"}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", members, fmt.Sprintf(`{"user_id":%q,"email":"x@y.test","role":"member"}`, cat)), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", members, fmt.Sprintf(`{"user_id":%q,"role":"king"}`, cat)), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", members, fmt.Sprintf(`{"user_id":%q,"role":"member"}`, id.New(id.User))), http.StatusNotFound, "not_found")
		})
		t.Run("SeatsFull", func(t *testing.T) {
			r := o.call(t, "POST", members, fmt.Sprintf(`{"user_id":%q,"role":"member"}`, cat))
			wantProblem(t, r, http.StatusForbidden, "entitlement_limit_exceeded")
			p := r.json(t)
			if p["limit"] != float64(2) || p["usage"] != float64(2) || p["resets_at"] != nil {
				t.Fatalf("seat problem: %v, want limit 2, usage 2 and no resets_at", p)
			}
		})
		t.Run("List", func(t *testing.T) {
			got := o.mustCall(t, http.StatusOK, "GET", members+"?limit=1", "")
			if ids := listIDs(t, got, "user_id"); len(ids) != 1 || ids[0] != bob || got["has_more"] != true {
				t.Fatalf("first page: %v", got)
			}
			rest := o.mustCall(t, http.StatusOK, "GET", members+"?limit=1&cursor="+url.QueryEscape(got["next_cursor"].(string)), "")
			if ids := listIDs(t, rest, "user_id"); len(ids) != 1 || ids[0] != ann || rest["has_more"] != false {
				t.Fatalf("second page: %v", rest)
			}
			wantProblem(t, o.call(t, "GET", "/api/operator/tenants/"+id.New(id.Tenant)+"/members", ""), http.StatusNotFound, "not_found")
		})
		t.Run("LastOwner", func(t *testing.T) {
			wantProblem(t, o.call(t, "PATCH", members+"/"+ann, `{"role":"admin"}`), http.StatusConflict, "conflict")
			r := o.call(t, "DELETE", members+"/"+ann, "")
			wantProblem(t, r, http.StatusConflict, "conflict")
			if d := r.json(t)["detail"].(string); !strings.Contains(d, "owner") {
				t.Fatalf("detail %q does not say why", d)
			}
		})
		t.Run("SetRole", func(t *testing.T) {
			m := o.mustCall(t, http.StatusOK, "PATCH", members+"/"+bob, `{"role":"owner"}`)
			if m["role"] != "owner" || m["user_id"] != bob {
				t.Fatalf("after promoting: %v", m)
			}
			o.mustCall(t, http.StatusOK, "PATCH", members+"/"+ann, `{"role":"billing"}`)
			wantProblem(t, o.call(t, "PATCH", members+"/"+bob, `{}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "PATCH", members+"/"+cat, `{"role":"admin"}`), http.StatusNotFound, "not_found")
			wantProblem(t, o.call(t, "PATCH", members+"/ann", `{"role":"admin"}`), http.StatusNotFound, "not_found")
		})
		t.Run("RemoveFreesASeat", func(t *testing.T) {
			o.mustCall(t, http.StatusNoContent, "DELETE", members+"/"+ann, "")
			wantProblem(t, o.call(t, "DELETE", members+"/"+ann, ""), http.StatusNotFound, "not_found")
			o.mustCall(t, http.StatusCreated, "POST", members, fmt.Sprintf(`{"user_id":%q,"role":"member"}`, cat))
		})
	})
}

func TestOperatorAPIKeys(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		keys := "/api/operator/tenants/" + o.acme.ID + "/api-keys"
		created := o.mustCall(t, http.StatusCreated, "POST", keys,
			fmt.Sprintf(`{"user_id":%q,"scopes":["tickets:read"],"name":"helpdesk"}`, o.bob.ID))
		secret, keyID := created["key"].(string), created["id"].(string)
		if !strings.HasPrefix(secret, "tk_") || created["tenant_id"] != o.acme.ID || created["user_id"] != o.bob.ID ||
			created["name"] != "helpdesk" || !strings.HasPrefix(secret, created["prefix"].(string)) {
			t.Fatalf("created key: %v", created)
		}
		t.Run("WorksOnTheTenantAPI", func(t *testing.T) {
			r := o.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: secret})
			if r.status != http.StatusOK || r.json(t)["tenant_id"] != o.acme.ID {
				t.Fatalf("tenant API with the new key: %d %s", r.status, r.body)
			}
		})
		t.Run("NotTheOperatorAPI", func(t *testing.T) {
			wantProblem(t, o.do(t, request{method: "GET", path: keys, bearer: secret}), http.StatusForbidden, "insufficient_scope")
		})
		t.Run("ErrNotMember", func(t *testing.T) {
			r := o.call(t, "POST", "/api/operator/tenants/"+o.globex.ID+"/api-keys", fmt.Sprintf(`{"user_id":%q,"scopes":["tickets:read"]}`, o.bob.ID))
			wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
			if got := strings.Join(errorFields(t, r), ","); got != "user_id" {
				t.Fatalf("fields %s, want user_id", got)
			}
		})
		t.Run("ErrInvalid", func(t *testing.T) {
			wantProblem(t, o.call(t, "POST", keys, fmt.Sprintf(`{"user_id":%q,"scopes":["operator:read"]}`, o.bob.ID)), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", keys, fmt.Sprintf(`{"user_id":%q,"scopes":[]}`, o.bob.ID)), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", keys, `{"scopes":["tickets:read"]}`), http.StatusUnprocessableEntity, "validation_failed")
			wantProblem(t, o.call(t, "POST", "/api/operator/tenants/"+id.New(id.Tenant)+"/api-keys",
				fmt.Sprintf(`{"user_id":%q,"scopes":["tickets:read"]}`, o.bob.ID)), http.StatusNotFound, "not_found")
		})
		t.Run("ListWithoutSecrets", func(t *testing.T) {
			o.mustCall(t, http.StatusCreated, "POST", keys, `{"email":"alice@acme.test","scopes":["collections:read"]}`)
			r := o.call(t, "GET", keys, "")
			if r.status != http.StatusOK || strings.Contains(string(r.body), secret) || strings.Contains(string(r.body), `"key"`) {
				t.Fatalf("list: %d %s", r.status, r.body)
			}
			var list struct {
				Data []map[string]any `json:"data"`
			}
			if err := json.Unmarshal(r.body, &list); err != nil || len(list.Data) != 2 || list.Data[1]["id"] != keyID {
				t.Fatalf("list: %s (%v), want the two keys pinned to acme, newest first", r.body, err)
			}
		})
		t.Run("Revoke", func(t *testing.T) {
			o.mustCall(t, http.StatusNoContent, "DELETE", "/api/operator/api-keys/"+keyID, "")
			wantProblem(t, o.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: secret}), http.StatusUnauthorized, "unauthenticated")
			o.mustCall(t, http.StatusNoContent, "DELETE", "/api/operator/api-keys/"+keyID, "")
			wantProblem(t, o.call(t, "DELETE", "/api/operator/api-keys/"+id.New(id.APIKey), ""), http.StatusNotFound, "not_found")
			wantProblem(t, o.call(t, "DELETE", "/api/operator/api-keys/nope", ""), http.StatusNotFound, "not_found")
			got := o.mustCall(t, http.StatusOK, "GET", keys, "")
			if item := got["data"].([]any)[1].(map[string]any); item["revoked_at"] == nil {
				t.Fatalf("revoked key listed without revoked_at: %v", item)
			}
		})
	})
}

// TestOperatorIdempotency: the creating POSTs honour Idempotency-Key, per
// operator key.
func TestOperatorIdempotency(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		_, other := newOperatorKey(t, o.env, opkey.ScopeWrite)
		idem := `"op-1"`
		post := func(key, path, body string) response {
			return o.do(t, request{method: "POST", path: path, body: body, bearer: key, header: map[string]string{"Idempotency-Key": idem}})
		}
		const body = `{"slug":"initech","name":"Initech","plan_id":"starter"}`
		first := post(o.key, "/api/operator/tenants", body)
		again := post(o.key, "/api/operator/tenants", body)
		if first.status != http.StatusCreated || again.status != http.StatusCreated || again.header.Get("Idempotent-Replayed") != "true" ||
			again.json(t)["id"] != first.json(t)["id"] {
			t.Fatalf("replay: %d %s then %d %s (replayed %q)", first.status, first.body, again.status, again.body, again.header.Get("Idempotent-Replayed"))
		}
		wantProblem(t, post(o.key, "/api/operator/tenants", `{"slug":"hooli","name":"Hooli","plan_id":"starter"}`), http.StatusUnprocessableEntity, "idempotency_key_reused")
		// Another operator key's "op-1" is its own: the request runs, and
		// the slug is taken.
		wantProblem(t, post(other, "/api/operator/tenants", body), http.StatusConflict, "conflict")

		idem = `"op-2"`
		members := "/api/operator/tenants/" + first.json(t)["id"].(string) + "/members"
		add := fmt.Sprintf(`{"user_id":%q,"role":"owner"}`, o.alice.ID)
		if r1, r2 := post(o.key, members, add), post(o.key, members, add); r1.status != http.StatusCreated || r2.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("member replay: %d then %d (replayed %q)", r1.status, r2.status, r2.header.Get("Idempotent-Replayed"))
		}
	})
}

// TestOperatorSeatsConcurrent: members added at once never take more
// seats than the tenant has (run with -race, on SQLite and Postgres).
func TestOperatorSeatsConcurrent(t *testing.T) {
	eachOpEnv(t, func(t *testing.T, o opEnv) {
		tenant := o.mustCall(t, http.StatusCreated, "POST", "/api/operator/tenants", `{"slug":"initech","name":"Initech","plan_id":"starter"}`)
		members := "/api/operator/tenants/" + tenant["id"].(string) + "/members"
		const workers = 10
		users := make([]string, workers)
		for i := range users {
			users[i] = o.mustCall(t, http.StatusCreated, "POST", "/api/operator/users", fmt.Sprintf(`{"email":"u%d@initech.test","name":"U"}`, i))["id"].(string)
		}
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			statuses = map[int]int{}
		)
		for _, u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := o.call(t, "POST", members, fmt.Sprintf(`{"user_id":%q,"role":"member"}`, u))
				mu.Lock()
				statuses[r.status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if statuses[http.StatusCreated] != 3 || statuses[http.StatusForbidden] != workers-3 {
			t.Fatalf("%d concurrent adds to 3 seats answered %v; want 3 × 201 and %d × 403", workers, statuses, workers-3)
		}
		got := o.mustCall(t, http.StatusOK, "GET", members, "")
		if n := len(listIDs(t, got, "user_id")); n != 3 {
			t.Fatalf("members after the race: %d, want 3", n)
		}
	})
}

// operatorHeaderCases are TestResponseHeaders's requests to the operator
// API, one per route.
func operatorHeaderCases(t *testing.T, e *env) map[string]struct {
	req        request
	wantStatus int
	cacheable  bool
} {
	_, key := newOperatorKey(t, e, opkey.ScopeRead, opkey.ScopeWrite)
	tenant := "/api/operator/tenants/" + e.acme.ID
	op := func(method, path, body string) request {
		return request{method: method, path: path, body: body, bearer: key}
	}
	return map[string]struct {
		req        request
		wantStatus int
		cacheable  bool
	}{
		"GET /api/operator/tenants":                       {req: op("GET", "/api/operator/tenants", ""), wantStatus: 200},
		"POST /api/operator/tenants":                      {req: op("POST", "/api/operator/tenants", `{"slug":"hdr","name":"H","plan_id":"free"}`), wantStatus: 201},
		"GET /api/operator/tenants/{id}":                  {req: op("GET", tenant, ""), wantStatus: 200},
		"PATCH /api/operator/tenants/{id}":                {req: op("PATCH", tenant, `{"seats":12}`), wantStatus: 200},
		"PUT /api/operator/tenants/{id}/limits/{feature}": {req: op("PUT", tenant+"/limits/seats", `{"limit":20}`), wantStatus: 200},
		"GET /api/operator/users":                         {req: op("GET", "/api/operator/users", ""), wantStatus: 200},
		"POST /api/operator/users":                        {req: op("POST", "/api/operator/users", `{"email":"hdr@x.test","name":"H"}`), wantStatus: 201},
		"GET /api/operator/tenants/{id}/members":          {req: op("GET", tenant+"/members", ""), wantStatus: 200},
		"POST /api/operator/tenants/{id}/members": {req: op("POST", "/api/operator/tenants/"+e.globex.ID+"/members",
			`{"email":"bob@acme.test","role":"member"}`), wantStatus: 201},
		"PATCH /api/operator/tenants/{id}/members/{user_id}":  {req: op("PATCH", tenant+"/members/"+e.bob.ID, `{"role":"admin"}`), wantStatus: 200},
		"DELETE /api/operator/tenants/{id}/members/{user_id}": {req: op("DELETE", tenant+"/members/"+id.New(id.User), ""), wantStatus: 404},
		"GET /api/operator/tenants/{id}/api-keys":             {req: op("GET", tenant+"/api-keys", ""), wantStatus: 200},
		"POST /api/operator/tenants/{id}/api-keys": {req: op("POST", tenant+"/api-keys",
			`{"email":"bob@acme.test","scopes":["tickets:read"]}`), wantStatus: 201},
		"DELETE /api/operator/api-keys/{id}":                {req: op("DELETE", "/api/operator/api-keys/"+id.New(id.APIKey), ""), wantStatus: 404},
		"DELETE /api/operator/users/{id}/sessions":          {req: op("DELETE", "/api/operator/users/"+id.New(id.User)+"/sessions", ""), wantStatus: 404},
		"GET /api/operator/contract-requests":               {req: op("GET", "/api/operator/contract-requests", ""), wantStatus: 200},
		"POST /api/operator/contract-requests/{id}/approve": {req: op("POST", "/api/operator/contract-requests/"+id.New(id.Contract)+"/approve", ""), wantStatus: 404},
		"POST /api/operator/contract-requests/{id}/reject": {req: op("POST", "/api/operator/contract-requests/"+id.New(id.Contract)+"/reject",
			`{"reason":"no"}`), wantStatus: 404},
		"GET /api/operator/invoices":                 {req: op("GET", "/api/operator/invoices", ""), wantStatus: 200},
		"POST /api/operator/invoices/{id}/void":      {req: op("POST", "/api/operator/invoices/"+id.New(id.PlatformInvoice)+"/void", ""), wantStatus: 404},
		"POST /api/operator/invoices/{id}/mark-paid": {req: op("POST", "/api/operator/invoices/"+id.New(id.PlatformInvoice)+"/mark-paid", `{"reference":"wire"}`), wantStatus: 404},
		"POST /api/operator/tenants/{id}/clock":      {req: op("POST", tenant+"/clock", `{"advance_to":"2099-01-01T00:00:00Z"}`), wantStatus: 422},
		"GET /api/operator/tickets":                  {req: op("GET", "/api/operator/tickets", ""), wantStatus: 200},
		"GET /api/operator/tickets/{id}":             {req: op("GET", "/api/operator/tickets/"+id.New(id.Ticket), ""), wantStatus: 404},
		"PATCH /api/operator/tickets/{id}":           {req: op("PATCH", "/api/operator/tickets/"+id.New(id.Ticket), `{"status":"open"}`), wantStatus: 404},
		"POST /api/operator/tickets/{id}/replies":    {req: op("POST", "/api/operator/tickets/"+id.New(id.Ticket)+"/replies", `{"body":"hi"}`), wantStatus: 404},
		"GET /api/operator/payment-events":           {req: op("GET", "/api/operator/payment-events", ""), wantStatus: 200},
		"POST /api/operator/payment-events/{id}/apply": {req: op("POST", "/api/operator/payment-events/evt_none/apply",
			`{"invoice_id":"`+id.New(id.Invoice)+`"}`), wantStatus: 404},
		"POST /api/operator/payment-events/{id}/dismiss": {req: op("POST", "/api/operator/payment-events/evt_none/dismiss",
			`{"reason":"no"}`), wantStatus: 404},
	}
}
