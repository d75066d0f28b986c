package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestCSRF(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		session := func(sid string) *http.Cookie {
			return &http.Cookie{Name: "tenantkit_session", Value: jwtFor(t, "alice@acme.test", func(c jwt.MapClaims) { c["sid"] = sid })}
		}
		// tokenFor fetches a CSRF token as the browser of a session would.
		tokenFor := func(t *testing.T, c *http.Cookie) (string, *http.Cookie) {
			t.Helper()
			var cookies []*http.Cookie
			if c != nil {
				cookies = append(cookies, c)
			}
			r := e.do(t, request{method: "GET", path: "/api/csrf", cookies: cookies})
			m := r.json(t)
			if r.status != 200 || m["header"] != "X-CSRF-Token" || m["token"] == "" || m["expires_at"] == nil {
				t.Fatalf("csrf = %d %s", r.status, r.body)
			}
			var csrfCookie *http.Cookie
			for _, ck := range (&http.Response{Header: r.header}).Cookies() {
				if ck.Name == "tenantkit_csrf" {
					csrfCookie = ck
				}
			}
			if csrfCookie == nil || !csrfCookie.HttpOnly || csrfCookie.SameSite != http.SameSiteLaxMode {
				t.Fatalf("csrf cookie = %+v, want HttpOnly SameSite=Lax", csrfCookie)
			}
			return m["token"].(string), csrfCookie
		}
		body := `{"tenant_id":"` + e.acme.ID + `"}`
		s1 := session("s1")

		t.Run("CookieWithoutToken", func(t *testing.T) {
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: body, cookies: []*http.Cookie{s1}})
			wantProblem(t, r, http.StatusForbidden, "csrf_failed")
		})
		t.Run("CookieWithToken", func(t *testing.T) {
			token, ck := tokenFor(t, s1)
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: body,
				cookies: []*http.Cookie{s1, ck}, header: map[string]string{"X-CSRF-Token": token}})
			if r.status != http.StatusOK {
				t.Fatalf("status = %d, want 200; %s", r.status, r.body)
			}
		})
		t.Run("HeaderWithoutCookie", func(t *testing.T) {
			// The double submit needs both halves: a valid token alone is
			// refused.
			token, _ := tokenFor(t, s1)
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: body,
				cookies: []*http.Cookie{s1}, header: map[string]string{"X-CSRF-Token": token}})
			wantProblem(t, r, http.StatusForbidden, "csrf_failed")
		})
		t.Run("CookieMismatch", func(t *testing.T) {
			// Two valid tokens of the same session, one in the header and
			// the other in the cookie.
			token, _ := tokenFor(t, s1)
			_, ck := tokenFor(t, s1)
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: body,
				cookies: []*http.Cookie{s1, ck}, header: map[string]string{"X-CSRF-Token": token}})
			wantProblem(t, r, http.StatusForbidden, "csrf_failed")
		})
		t.Run("FormField", func(t *testing.T) {
			// An HTML form sends the token in the csrf_token field. The check
			// passes; this JSON endpoint then refuses the form body itself.
			token, ck := tokenFor(t, s1)
			form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: "csrf_token=" + token,
				cookies: []*http.Cookie{s1, ck}, header: form})
			wantProblem(t, r, http.StatusUnsupportedMediaType, "unsupported_media_type")
			r = e.do(t, request{method: "POST", path: "/api/tenant/select", body: "csrf_token=" + token,
				cookies: []*http.Cookie{s1}, header: form})
			wantProblem(t, r, http.StatusForbidden, "csrf_failed")
			r = e.do(t, request{method: "POST", path: "/api/tenant/select", body: "csrf_token=" + token[1:] + "A",
				cookies: []*http.Cookie{s1, ck}, header: form})
			wantProblem(t, r, http.StatusForbidden, "csrf_failed")
		})
		t.Run("TokenFromAnotherSession", func(t *testing.T) {
			token, ck := tokenFor(t, session("s2"))
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: body,
				cookies: []*http.Cookie{s1, ck}, header: map[string]string{"X-CSRF-Token": token}})
			wantProblem(t, r, http.StatusForbidden, "csrf_failed")
		})
		t.Run("AnonymousToken", func(t *testing.T) {
			// A token fetched before the session existed, with its cookie.
			token, ck := tokenFor(t, nil)
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: body,
				cookies: []*http.Cookie{s1, ck}, header: map[string]string{"X-CSRF-Token": token}})
			wantProblem(t, r, http.StatusForbidden, "csrf_failed")
		})
		t.Run("SafeMethodNeedsNoToken", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: "/api/auth/me", cookies: []*http.Cookie{s1}})
			if r.status != 200 {
				t.Fatalf("status = %d; %s", r.status, r.body)
			}
		})
		t.Run("BearerNeedsNoToken", func(t *testing.T) {
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", body: body, bearer: e.keyAll})
			if r.status != 200 {
				t.Fatalf("status = %d; %s", r.status, r.body)
			}
			r = e.do(t, request{method: "POST", path: "/api/tenant/select", body: body, bearer: jwtFor(t, "alice@acme.test", nil)})
			if r.status != 200 {
				t.Fatalf("status = %d; %s", r.status, r.body)
			}
		})
	})
}
