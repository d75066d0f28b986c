package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// TestJWTNumericDates: exp, nbf and iat are RFC 7519 NumericDates, JSON
// numbers; any other JSON value makes the token unauthenticated, as a
// bearer token and as a session cookie.
func TestJWTNumericDates(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tests := []struct {
			name  string
			claim string
			value any
			ok    bool
		}{
			{"NumberExp", "exp", 2099999999, true},
			{"FractionalExp", "exp", 2099999999.5, true},
			{"NumberNbf", "nbf", 1600000000, true},
			{"NumberIat", "iat", 1600000000, true},
			{"StringExp", "exp", "2099999999", false},
			{"StringNbf", "nbf", "1600000000", false},
			{"StringIat", "iat", "1600000000", false},
			{"NullNbf", "nbf", nil, false},
			{"NullIat", "iat", nil, false},
			{"BoolExp", "exp", true, false},
			{"ObjectIat", "iat", map[string]int{"seconds": 1600000000}, false},
		}
		for _, tt := range tests {
			token := jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c[tt.claim] = tt.value })
			t.Run(tt.name+"/Bearer", func(t *testing.T) {
				r := e.do(t, request{method: "GET", path: "/api/auth/me", bearer: token})
				if tt.ok {
					if r.status != http.StatusOK {
						t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
					}
					return
				}
				wantProblem(t, r, http.StatusUnauthorized, "unauthenticated")
			})
			t.Run(tt.name+"/Session", func(t *testing.T) {
				r := e.do(t, request{method: "GET", path: "/api/auth/me",
					cookies: []*http.Cookie{{Name: "tenantkit_session", Value: token}}})
				if tt.ok {
					if r.status != http.StatusOK {
						t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
					}
					return
				}
				wantProblem(t, r, http.StatusUnauthorized, "unauthenticated")
			})
		}
	})
}
