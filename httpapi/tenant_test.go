package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestTenantSelection(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, nil)
		matrix := request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyAll}

		wantProblem(t, e.do(t, matrix), http.StatusConflict, "tenant_not_selected")

		t.Run("NonMemberTenant", func(t *testing.T) {
			other := e.newKey("bob@acme.test", "", tenancy.Scopes()...)
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", bearer: other,
				body: `{"tenant_id":"` + e.globex.ID + `"}`})
			wantProblem(t, r, http.StatusNotFound, "not_found")
			r = e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: other,
				header: map[string]string{"X-Tenant-ID": e.globex.ID}})
			wantProblem(t, r, http.StatusForbidden, "forbidden")
		})

		r := e.do(t, request{method: "POST", path: "/api/tenant/select", bearer: e.keyAll,
			body: `{"tenant_id":"` + e.globex.ID + `"}`})
		if r.status != 200 || r.json(t)["active_tenant_id"] != e.globex.ID {
			t.Fatalf("select = %d %s", r.status, r.body)
		}
		if got := e.do(t, matrix).json(t)["tenant_id"]; got != e.globex.ID {
			t.Fatalf("after select, tenant = %v, want %s", got, e.globex.ID)
		}

		t.Run("HeaderOverridesSelection", func(t *testing.T) {
			req := matrix
			req.header = map[string]string{"X-Tenant-ID": e.acme.ID}
			if got := e.do(t, req).json(t)["role"]; got != "owner" {
				t.Fatalf("role with X-Tenant-ID acme = %v, want owner", got)
			}
		})
		t.Run("SelectionIsPerCredential", func(t *testing.T) {
			otherKey := e.newKey("alice@acme.test", "", tenancy.Scopes()...)
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: otherKey}),
				http.StatusConflict, "tenant_not_selected")
		})
		t.Run("VisibleFromAnotherServer", func(t *testing.T) {
			// A second API on the same database, as another replica would be.
			second := newEnvOn(t, e)
			r := second.do(t, matrix)
			if r.status != 200 || r.json(t)["tenant_id"] != e.globex.ID {
				t.Fatalf("second server: %d %s", r.status, r.body)
			}
		})
		t.Run("JWTSessionIDKeepsItsOwnSelection", func(t *testing.T) {
			sid1 := jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c["sid"] = "s1" })
			sid2 := jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c["sid"] = "s2" })
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", bearer: sid1, body: `{"tenant_id":"` + e.acme.ID + `"}`})
			if r.status != 200 {
				t.Fatalf("select: %d %s", r.status, r.body)
			}
			if got := e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: sid1}).json(t)["tenant_id"]; got != e.acme.ID {
				t.Fatalf("sid1 tenant = %v", got)
			}
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: sid2}),
				http.StatusConflict, "tenant_not_selected")
		})
		t.Run("PinnedKey", func(t *testing.T) {
			pinned := e.newKey("alice@acme.test", "acme", tenancy.Scopes()...)
			if got := e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: pinned}).json(t)["tenant_id"]; got != e.acme.ID {
				t.Fatalf("pinned key tenant = %v, want acme", got)
			}
			r := e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: pinned,
				header: map[string]string{"X-Tenant-ID": e.globex.ID}})
			wantProblem(t, r, http.StatusForbidden, "forbidden")
		})
	}, migrations()...)
}

// newEnvOn starts a second API over e's database and data.
func newEnvOn(t *testing.T, e *env) *env {
	t.Helper()
	second := *e
	second.srv = httptest.NewServer(newAPI(t, e).Handler())
	t.Cleanup(second.srv.Close)
	return &second
}

func TestSelectValidation(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tests := []struct {
			name        string
			body        string
			contentType string
			chunked     bool
			status      int
			code        string
		}{
			{"Malformed", `{"tenant_id":`, "application/json", false, 400, "invalid_request"},
			{"UnknownField", `{"tenant_id":"x","extra":1}`, "application/json", false, 400, "invalid_request"},
			{"WrongType", `{"tenant_id":42}`, "application/json", false, 400, "invalid_request"},
			{"Missing", `{}`, "application/json", false, 422, "validation_failed"},
			{"NotJSON", `tenant_id=x`, "application/x-www-form-urlencoded", false, 415, "unsupported_media_type"},
			{"TooLarge", `{"tenant_id":"` + strings.Repeat("x", 2<<20) + `"}`, "application/json", false, 413, "payload_too_large"},
			// Without a Content-Length the cap applies while the body is read.
			{"TooLargeChunked", `{"tenant_id":"` + strings.Repeat("x", 2<<20) + `"}`, "application/json", true, 413, "payload_too_large"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: "/api/tenant/select", bearer: e.keyAll, body: tt.body,
					header: map[string]string{"Content-Type": tt.contentType}, chunked: tt.chunked})
				wantProblem(t, r, tt.status, tt.code)
			})
		}
		t.Run("NothingChanged", func(t *testing.T) {
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyAll}),
				http.StatusConflict, "tenant_not_selected")
		})
	})
}

// TestAccessMatrixEffective checks that effective lists what the caller
// may do with the credential it called with: its role's permissions whose
// scope the credential carries, no more. Each listed (or missing)
// permission is then tried on an endpoint that needs it.
func TestAccessMatrixEffective(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		owner := []string{"billing:preview", "billing:read", "contracts:manage", "contracts:read", "contracts:submit", "entitlements:manage", "entitlements:read",
			"events:read", "invoices:read", "invoices:write", "members:manage", "notifications:read", "settings:manage", "tickets:read", "tickets:write", "webhooks:manage"}
		tests := []struct {
			name   string
			bearer string
			want   []string
		}{
			{"OwnerEveryScope", e.keyAll, owner},
			{"OwnerTicketsReadOnly", e.keyNone, []string{"billing:preview", "billing:read", "contracts:manage", "contracts:read", "contracts:submit", "entitlements:manage",
				"entitlements:read", "members:manage", "notifications:read", "settings:manage", "tickets:read"}},
			{"BillingCollectionsScopes", e.keyBob, []string{"billing:preview", "billing:read", "contracts:read", "contracts:submit", "entitlements:read",
				"invoices:read", "invoices:write", "notifications:read"}},
			{"OwnerNoScopes", jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { delete(c, "scope") }), []string{"billing:preview",
				"billing:read", "contracts:manage", "contracts:read", "contracts:submit", "entitlements:manage", "entitlements:read", "members:manage", "notifications:read", "settings:manage"}},
		}
		// probes are endpoints that need a permission with a scope.
		probes := []struct {
			permission string
			req        request
		}{
			{"tickets:read", request{method: "GET", path: "/api/tickets"}},
			{"tickets:write", request{method: "POST", path: "/api/tickets", body: `{"subject":"s","description":"d"}`}},
			{"invoices:read", request{method: "GET", path: "/api/v1/collections/invoices"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: tt.bearer, header: acme})
				if r.status != http.StatusOK {
					t.Fatalf("access matrix: %d %s", r.status, r.body)
				}
				m := r.json(t)
				var effective []string
				for _, p := range m["effective"].([]any) {
					effective = append(effective, p.(string))
				}
				if !slices.Equal(effective, tt.want) {
					t.Errorf("effective = %v\n     want %v", effective, tt.want)
				}
				if n := len(m["permissions"].([]any)); n != len(owner) {
					t.Errorf("permissions has %d entries, want every one (%d)", n, len(owner))
				}
				if scopes, _ := m["required_scopes"].(map[string]any); scopes["tickets:write"] != "tickets:write" {
					t.Errorf("required_scopes = %v, want tickets:write for tickets:write", m["required_scopes"])
				}
				for _, probe := range probes {
					req := probe.req
					req.bearer, req.header = tt.bearer, acme
					r := e.do(t, req)
					if may := slices.Contains(effective, probe.permission); may != (r.status != http.StatusForbidden) {
						t.Errorf("effective has %s = %v, but %s %s answered %d %s", probe.permission, may, req.method, req.path, r.status, r.body)
					}
				}
			})
		}
	})
}
