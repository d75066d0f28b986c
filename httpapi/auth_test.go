package httpapi_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tenantkit/tenantkit/tenancy"
)

// authEndpoints are the endpoints that need a credential.
var authEndpoints = []struct{ method, path string }{
	{"GET", "/api/auth/me"},
	{"GET", "/api/v1/collections/invoices"},
	{"POST", "/api/v1/collections/invoices"},
	{"POST", "/api/tenant/select"},
	{"GET", "/api/tenant/access-matrix"},
	{"GET", "/api/tenant/entitlements/limit"},
	{"PATCH", "/api/tenant/entitlements/toggle"},
	{"GET", "/api/tenant/notifications"},
	{"POST", "/api/tenant/notifications/ntf_01jd0000000000000000000000/read"},
	{"POST", "/api/tenant/notifications/read-all"},
	{"GET", "/api/tickets"},
	{"POST", "/api/tickets"},
	{"GET", "/api/contract-requests"},
	{"POST", "/api/contract-requests"},
	{"POST", "/api/contract-requests/ccr_01jd0000000000000000000000/cancel"},
	{"POST", "/api/invoices/preview"},
}

func TestAuthRequired(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		revoked := e.newKey("alice@acme.test", "", tenancy.Scopes()...)
		k, _, err := e.svc.Keys.Authenticate(context.Background(), revoked)
		check(t, err)
		check(t, e.svc.Keys.Revoke(context.Background(), k.ID))

		expired := jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() })
		notYet := jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() })
		wrongIssuer := jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c["iss"] = "https://evil.test" })
		wrongAudience := jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c["aud"] = "other" })
		unknownUser := jwtFor(t, "nobody@acme.test", nil)
		forged, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"email": "alice@acme.test", "iss": "https://idp.test", "aud": "tenantkit", "exp": time.Now().Add(time.Hour).Unix(),
		}).SignedString([]byte("another-secret-another-secret-another!"))
		check(t, err)
		header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
		payload := base64.RawURLEncoding.EncodeToString([]byte(`{"email":"alice@acme.test","iss":"https://idp.test","aud":"tenantkit","exp":4102444800}`))
		algNone := header + "." + payload + "."

		creds := []struct{ name, bearer string }{
			{"None", ""},
			{"RevokedKey", revoked},
			{"UnknownKey", "tk_" + strings.Repeat("A", 43)},
			{"ExpiredJWT", expired},
			{"NotYetValidJWT", notYet},
			{"WrongIssuer", wrongIssuer},
			{"WrongAudience", wrongAudience},
			{"UnknownUser", unknownUser},
			{"ForgedJWT", forged},
			{"AlgNoneJWT", algNone},
			{"Garbage", "not-a-token"},
		}
		for _, c := range creds {
			for _, ep := range authEndpoints {
				t.Run(c.name+"/"+ep.method+ep.path, func(t *testing.T) {
					r := e.do(t, request{method: ep.method, path: ep.path, bearer: c.bearer})
					wantProblem(t, r, http.StatusUnauthorized, "unauthenticated")
					if got := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
						t.Fatalf("WWW-Authenticate = %q, want Bearer", got)
					}
				})
			}
		}
	})
}

func TestPublicEndpointsNeedNoCredential(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, path := range []string{"/api/csrf", "/api/catalog/public", "/api/health", "/api/health/ready", "/api/health/live"} {
			t.Run(path, func(t *testing.T) {
				r := e.do(t, request{method: "GET", path: path})
				if r.status != http.StatusOK {
					t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
				}
				if r.header.Get("X-Request-ID") == "" {
					t.Fatal("no X-Request-ID")
				}
			})
		}
	})
}

func TestMe(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("APIKey", func(t *testing.T) {
			m := e.do(t, request{method: "GET", path: "/api/auth/me", bearer: e.keyBob}).json(t)
			if m["id"] != e.bob.ID || m["email"] != "bob@acme.test" || m["auth_method"] != "api_key" {
				t.Fatalf("me = %v", m)
			}
			if m["active_tenant_id"] != e.acme.ID {
				t.Fatalf("active_tenant_id = %v, want the only membership %s", m["active_tenant_id"], e.acme.ID)
			}
			tenants := m["tenants"].([]any)
			if len(tenants) != 1 || tenants[0].(map[string]any)["role"] != "billing" {
				t.Fatalf("tenants = %v", tenants)
			}
		})
		t.Run("JWTWithSeveralTenants", func(t *testing.T) {
			m := e.do(t, request{method: "GET", path: "/api/auth/me", bearer: jwtFor(t, "alice@acme.test", nil)}).json(t)
			if m["auth_method"] != "jwt" || m["active_tenant_id"] != nil || len(m["tenants"].([]any)) != 2 {
				t.Fatalf("me = %v", m)
			}
			if len(m["scopes"].([]any)) != 4 {
				t.Fatalf("scopes = %v", m["scopes"])
			}
		})
		t.Run("Session", func(t *testing.T) {
			cookie := &http.Cookie{Name: "tenantkit_session", Value: jwtFor(t, "alice@acme.test", nil)}
			m := e.do(t, request{method: "GET", path: "/api/auth/me", cookies: []*http.Cookie{cookie}}).json(t)
			if m["auth_method"] != "session" {
				t.Fatalf("auth_method = %v, want session", m["auth_method"])
			}
		})
	})
}

func TestScopeAndRole(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tests := []struct {
			name   string
			req    request
			status int
			code   string
		}{
			// Scope checks come before the tenant: a key without the scope
			// is refused whatever its user may do.
			{"MissingReadScope", request{method: "GET", path: "/api/v1/collections/invoices", bearer: e.keyNone,
				header: map[string]string{"X-Tenant-ID": e.acme.ID}}, 403, "insufficient_scope"},
			{"MissingWriteScope", request{method: "POST", path: "/api/tickets", bearer: e.keyBob, body: `{}`}, 403, "insufficient_scope"},
			{"JWTWithoutScope", request{method: "GET", path: "/api/tickets",
				bearer: jwtFor(t, "bob@acme.test", func(c jwt.MapClaims) { c["scope"] = "collections:read" })}, 403, "insufficient_scope"},
			// alice is a plain member of globex: members may not read invoices.
			{"RoleLacksPermission", request{method: "GET", path: "/api/v1/collections/invoices", bearer: e.keyAll,
				header: map[string]string{"X-Tenant-ID": e.globex.ID}}, 403, "forbidden"},
			{"RoleLacksContracts", request{method: "GET", path: "/api/contract-requests", bearer: e.keyAll,
				header: map[string]string{"X-Tenant-ID": e.globex.ID}}, 403, "forbidden"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantProblem(t, e.do(t, tt.req), tt.status, tt.code)
			})
		}
		t.Run("OwnerPassesTheChecks", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyAll,
				header: map[string]string{"X-Tenant-ID": e.acme.ID}})
			m := r.json(t)
			if r.status != 200 || m["role"] != "owner" || m["tenant_id"] != e.acme.ID {
				t.Fatalf("access matrix = %d %v", r.status, m)
			}
			if len(m["effective"].([]any)) != len(m["permissions"].([]any)) {
				t.Fatalf("owner's effective permissions %v are not all of %v", m["effective"], m["permissions"])
			}
		})
		t.Run("MemberMatrix", func(t *testing.T) {
			m := e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyAll,
				header: map[string]string{"X-Tenant-ID": e.globex.ID}}).json(t)
			if m["role"] != "member" || len(m["roles"].([]any)) != 5 {
				t.Fatalf("access matrix = %v", m)
			}
			for _, p := range m["effective"].([]any) {
				if p == "invoices:read" {
					t.Fatalf("member has invoices:read: %v", m["effective"])
				}
			}
		})
	})
}
