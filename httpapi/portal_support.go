package httpapi

import (
	"fmt"
	"net/http"
)

// What a browser front end on the same services (package portal)
// shares with the API: the CSRF tokens of GET /api/csrf, the session
// cookie's verification and the one error table.

// CSRF issues and checks the signed double-submit tokens that unsafe
// requests authenticated by the session cookie must carry. The API's own
// (API.CSRF) is the one to share, so that a token from GET /api/csrf is
// good for a form and the other way round.
type CSRF struct{ t *csrfTokens }

// CSRF returns the API's CSRF token issuer.
func (a *API) CSRF() *CSRF { return &CSRF{t: a.csrf} }

// NewCSRF returns a CSRF token issuer signing with key (at least 32
// bytes, the same on every replica); its tokens live 12 hours.
func NewCSRF(key []byte) (*CSRF, error) {
	if len(key) < minCSRFKeyLen {
		return nil, fmt.Errorf("httpapi: CSRF key must be at least %d bytes", minCSRFKeyLen)
	}
	return &CSRF{t: newCSRFTokens(key, 0)}, nil
}

// Token returns the CSRF token for a form of the session named binding
// (Principal.SessionBinding, "" before sign-in). It keeps the token of the
// request's CSRF cookie while that one is still good for binding, so that
// several open pages share one; else it issues a new one and sets the
// cookie on w.
func (c *CSRF) Token(w http.ResponseWriter, r *http.Request, binding string) string {
	if ck, err := r.Cookie(csrfCookieName); err == nil && c.t.verify(ck.Value, binding) == nil {
		return ck.Value
	}
	token, expires := c.t.issue(binding)
	setCSRFCookie(w, r, token, expires)
	return token
}

// Check verifies an unsafe request of the session named binding: its
// X-CSRF-Token header or form field csrf_token must equal the CSRF cookie
// and be a token issued for binding that has not expired. It answers a
// 403 csrf_failed *Problem saying what is wrong.
func (c *CSRF) Check(r *http.Request, binding string) error { return c.t.check(r, binding) }

// ProblemFor maps err as the API answers it: a *Problem as is, any
// domain's *field.InvalidError as 422 with its field errors, the domain
// sentinels by the one error table, and anything else as an opaque 500.
func ProblemFor(err error) *Problem { return problemFor(err) }
