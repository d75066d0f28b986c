package httpapi_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rs/zerolog"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

func TestJWKS(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	check(t, err)
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
		"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
	}}})
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jwks)
	}))
	defer idp.Close()

	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, func(c *httpapi.Config) {
			c.JWT = httpapi.JWTConfig{JWKSURL: idp.URL, Audience: "tenantkit"}
		})
		sign := func(method jwt.SigningMethod, k any, kid string) string {
			tok := jwt.NewWithClaims(method, jwt.MapClaims{
				"email": "bob@acme.test", "aud": "tenantkit", "exp": time.Now().Add(time.Hour).Unix(), "scope": "collections:read",
			})
			tok.Header["kid"] = kid
			s, err := tok.SignedString(k)
			check(t, err)
			return s
		}
		r := e.do(t, request{method: "GET", path: "/api/auth/me", bearer: sign(jwt.SigningMethodRS256, key, "k1")})
		if r.status != 200 || r.json(t)["email"] != "bob@acme.test" {
			t.Fatalf("RS256 from JWKS: %d %s", r.status, r.body)
		}
		other, err := rsa.GenerateKey(rand.Reader, 2048)
		check(t, err)
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/auth/me", bearer: sign(jwt.SigningMethodRS256, other, "k1")}), 401, "unauthenticated")
		// An HS256 token "signed" with the public key must not pass (algorithm confusion).
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/auth/me", bearer: sign(jwt.SigningMethodHS256, key.N.Bytes(), "k1")}), 401, "unauthenticated")
	}, migrations()...)
}

func TestAccessLog(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		var buf bytes.Buffer
		var mu syncWriter
		mu.w = &buf
		e := newEnv(t, db, func(c *httpapi.Config) { c.Logger = zerolog.New(&mu) })
		e.do(t, request{method: "GET", path: "/api/tickets?status=open", bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}})
		mu.mu.Lock()
		line := buf.String()
		mu.mu.Unlock()
		var entry map[string]any
		check(t, json.Unmarshal([]byte(strings.TrimSpace(line)), &entry))
		want := map[string]any{"route": "GET /api/tickets", "status": 200.0, "tenant_id": e.acme.ID, "user_id": e.alice.ID, "method": "GET"}
		for k, v := range want {
			if entry[k] != v {
				t.Errorf("log %s = %v, want %v (line %s)", k, entry[k], v, line)
			}
		}
		if entry["request_id"] == nil || entry["duration_ms"] == nil {
			t.Errorf("log lacks request_id or duration: %s", line)
		}
		if strings.Contains(line, e.keyAll) || strings.Contains(line, "status=open") {
			t.Fatalf("log leaks the key or the query: %s", line)
		}
	}, migrations()...)

}
