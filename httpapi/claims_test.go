package httpapi_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// signRaw signs payload, the claims' JSON exactly as given, with
// jwtSecret (HS256). Encoding a map would turn invalid UTF-8 into U+FFFD,
// which a provider's token need not do.
func signRaw(payload string) string {
	enc := base64.RawURLEncoding
	unsigned := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(payload))
	m := hmac.New(sha256.New, jwtSecret)
	m.Write([]byte(unsigned))
	return unsigned + "." + enc.EncodeToString(m.Sum(nil))
}

// claimsJSON is a valid claims set of alice's, with each claim of over
// (raw JSON values) replacing or adding to the defaults; a nil value
// leaves the claim out.
func claimsJSON(over map[string]*string) string {
	now := time.Now()
	claims := []string{"sub", "email", "iss", "aud", "iat", "exp", "scope", "sid"}
	values := map[string]string{
		"sub": `"idp|alice@acme.test"`, "email": `"alice@acme.test"`, "iss": `"https://idp.test"`, "aud": `"tenantkit"`,
		"iat": fmt.Sprint(now.Unix()), "exp": fmt.Sprint(now.Add(time.Hour).Unix()),
		"scope": `"collections:read collections:write tickets:read tickets:write"`, "sid": `"sess-1"`,
	}
	var b strings.Builder
	b.WriteString("{")
	for _, name := range claims {
		v := values[name]
		if o, ok := over[name]; ok {
			if o == nil {
				continue
			}
			v = *o
		}
		if b.Len() > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%s", name, v)
	}
	b.WriteString("}")
	return b.String()
}

func raw(s string) *string { return &s }

// TestClaimsAreInput: the claims of a correctly signed token are input
// like any other. A claim tenantkit reads that holds NUL, invalid UTF-8,
// too many characters or a JSON value of the wrong type makes the token
// unauthenticated (401), as a bearer token and as a session cookie, and
// never reaches a query.
func TestClaimsAreInput(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		long := func(n int) *string { return raw(`"` + strings.Repeat("a", n) + `"`) }
		tests := []struct {
			name string
			over map[string]*string
			ok   bool
		}{
			{"Valid", nil, true},
			{"ValidLongest", map[string]*string{"sid": long(255), "scope": raw(`"` + strings.Repeat("tickets:read ", 78) + `"`)}, true},
			{"SIDNul", map[string]*string{"sid": raw(`"a\u0000b"`)}, false},
			{"SubNul", map[string]*string{"email": nil, "sub": raw(`"usr_\u0000"`)}, false},
			{"EmailNul", map[string]*string{"email": raw(`"alice@acme.test\u0000"`)}, false},
			{"ScopeNul", map[string]*string{"scope": raw(`"tickets:read\u0000"`)}, false},
			{"IssNul", map[string]*string{"iss": raw(`"https://idp.test\u0000"`)}, false},
			{"AudNul", map[string]*string{"aud": raw(`["tenantkit","x\u0000"]`)}, false},
			{"SIDInvalidUTF8", map[string]*string{"sid": raw("\"a\xffb\"")}, false},
			{"EmailInvalidUTF8", map[string]*string{"email": raw("\"alice\xc3@acme.test\"")}, false},
			{"ScopeInvalidUTF8", map[string]*string{"scope": raw("\"tickets:read \xfe\"")}, false},
			{"SIDLoneSurrogate", map[string]*string{"sid": raw(`"\ud800"`)}, false},
			{"SIDTooLong", map[string]*string{"sid": long(256)}, false},
			{"SubTooLong", map[string]*string{"email": nil, "sub": long(256)}, false},
			{"EmailTooLong", map[string]*string{"email": raw(`"` + strings.Repeat("a", 250) + `@acme.test"`)}, false},
			{"ScopeTooLong", map[string]*string{"scope": long(1025)}, false},
			{"AudTooLong", map[string]*string{"aud": raw(`["tenantkit",` + *long(1025) + `]`)}, false},
			{"SIDNumber", map[string]*string{"sid": raw(`5`)}, false},
			{"SIDNull", map[string]*string{"sid": raw(`null`)}, true},
			{"SubArray", map[string]*string{"email": nil, "sub": raw(`["usr_1"]`)}, false},
			{"EmailObject", map[string]*string{"email": raw(`{"address":"alice@acme.test"}`)}, false},
			{"ScopeBool", map[string]*string{"scope": raw(`true`)}, false},
			{"ScopeArray", map[string]*string{"scope": raw(`["tickets:read"]`)}, false},
			{"IssNumber", map[string]*string{"iss": raw(`7`)}, false},
			{"AudNumber", map[string]*string{"aud": raw(`7`)}, false},
		}
		for _, tt := range tests {
			token := signRaw(claimsJSON(tt.over))
			for _, via := range []string{"Bearer", "Session"} {
				t.Run(tt.name+"/"+via, func(t *testing.T) {
					req := request{method: "POST", path: "/api/tenant/select", body: `{"tenant_id":"` + e.acme.ID + `"}`}
					if via == "Bearer" {
						req.bearer = token
					} else {
						req.cookies = []*http.Cookie{{Name: "tenantkit_session", Value: token}}
						csrf := e.do(t, request{method: "GET", path: "/api/csrf", cookies: req.cookies})
						if tok, ok := csrf.json(t)["token"].(string); ok {
							req.header = map[string]string{"X-CSRF-Token": tok}
						}
						for _, c := range (&http.Response{Header: csrf.header}).Cookies() {
							if c.Name == "tenantkit_csrf" {
								req.cookies = append(req.cookies, c)
							}
						}
					}
					r := e.do(t, req)
					if tt.ok {
						if r.status != http.StatusOK {
							t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
						}
						return
					}
					wantProblem(t, r, http.StatusUnauthorized, "unauthenticated")
				})
			}
		}
	})
}
