package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"
)

// CSRF protection: a session cookie is an ambient credential that a
// browser attaches to requests other sites trigger, so every unsafe request
// it authenticates must also carry a token the other site cannot know. The
// tokens are signed (HMAC) and bound to the session, so one stolen from or
// planted in another session is useless, and are also set as a cookie that
// must come back with the token (double submit).
const (
	csrfCookieName = "tenantkit_csrf" // cookie holding the caller's current token
	csrfHeader     = "X-CSRF-Token"   // where API clients send the token
	csrfFormField  = "csrf_token"     // where HTML forms send it
)

// Token layout before base64url encoding: version (1 byte) | expiry, Unix
// seconds (8, big endian) | nonce (16) | HMAC-SHA256 of the preceding bytes
// and the binding (32).
const (
	csrfVersion    byte = 1
	csrfNonceLen        = 16
	csrfPayloadLen      = 1 + 8 + csrfNonceLen
	csrfTokenLen        = csrfPayloadLen + sha256.Size
	minCSRFKeyLen       = 32 // 256-bit HMAC key
	defaultCSRFTTL      = 12 * time.Hour
)

// csrfMACLabel separates CSRF MACs from anything else the same key might
// sign, so that no other signed value can pass for a CSRF token.
const csrfMACLabel = "tenantkit csrf v1\x00"

// csrfTokens issues and verifies CSRF tokens with one secret key.
type csrfTokens struct {
	key []byte
	ttl time.Duration
	now func() time.Time // the clock; replaced in tests
}

// newCSRFTokens returns a token issuer signing with key, whose tokens live
// for ttl (12 hours when ttl <= 0). Keys shorter than minCSRFKeyLen (32
// bytes) would make tokens forgeable, so they panic: configuration is
// checked before this is called.
func newCSRFTokens(key []byte, ttl time.Duration) *csrfTokens {
	if len(key) < minCSRFKeyLen {
		panic(fmt.Sprintf("httpapi: CSRF key must be at least %d bytes, got %d", minCSRFKeyLen, len(key)))
	}
	if ttl <= 0 {
		ttl = defaultCSRFTTL
	}
	return &csrfTokens{key: append([]byte(nil), key...), ttl: ttl, now: time.Now}
}

// issue returns a fresh token bound to binding (an identifier of the
// session, e.g. its "sid" claim, or "" when the caller has no session yet)
// and the time it expires.
func (c *csrfTokens) issue(binding string) (token string, expires time.Time) {
	exp := c.now().Add(c.ttl).Unix()
	buf := make([]byte, csrfPayloadLen, csrfTokenLen)
	buf[0] = csrfVersion
	binary.BigEndian.PutUint64(buf[1:9], uint64(exp))
	_, _ = rand.Read(buf[9:csrfPayloadLen]) // crypto/rand.Read never fails (it crashes the program instead)
	buf = append(buf, c.mac(buf, binding)...)
	return base64.RawURLEncoding.EncodeToString(buf), time.Unix(exp, 0).UTC()
}

// mac signs a token payload together with its binding. The binding comes
// last, after the fixed-length payload, so no two (payload, binding) pairs
// produce the same input.
func (c *csrfTokens) mac(payload []byte, binding string) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(csrfMACLabel))
	m.Write(payload)
	m.Write([]byte(binding))
	return m.Sum(nil)
}

// verify checks that token was issued by c for binding and has not expired.
// Failures are 403 csrf_failed *Problems saying what is wrong: missing,
// malformed, invalid for this session (forged, tampered or another
// session's), or expired.
func (c *csrfTokens) verify(token, binding string) error {
	if token == "" {
		return csrfFailed("missing CSRF token")
	}
	if len(token) != base64.RawURLEncoding.EncodedLen(csrfTokenLen) {
		return csrfFailed("malformed CSRF token")
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != csrfTokenLen || raw[0] != csrfVersion {
		return csrfFailed("malformed CSRF token")
	}
	// The MAC is checked before the expiry so that "expired" is only ever
	// said of a genuine token.
	if subtle.ConstantTimeCompare(raw[csrfPayloadLen:], c.mac(raw[:csrfPayloadLen], binding)) != 1 {
		return csrfFailed("CSRF token invalid for this session")
	}
	exp := int64(binary.BigEndian.Uint64(raw[1:9]))
	if c.now().Unix() >= exp {
		return csrfFailed("CSRF token expired")
	}
	return nil
}

// check enforces CSRF protection on one request authenticated by the session
// cookie. It is only for unsafe methods (POST, PUT, PATCH, DELETE): callers
// skip safe ones (see isSafeMethod), which must not change state, and
// requests with a bearer credential, which browsers never attach on their
// own. Both halves of the double submit are required: the token from the
// request (csrfTokenFromRequest) and the CSRF cookie GET /api/csrf set,
// which must be equal; and the token must verify against binding, so one
// issued to another session (or to no session) is refused even when a
// matching cookie was planted.
func (c *csrfTokens) check(r *http.Request, binding string) error {
	token := csrfTokenFromRequest(r)
	if token == "" {
		return csrfFailed("missing CSRF token")
	}
	cookie, err := r.Cookie(csrfCookieName)
	if err != nil || cookie.Value == "" {
		return csrfFailed("missing CSRF cookie: get a token from GET /api/csrf, which sets it")
	}
	if subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(token)) != 1 {
		return csrfFailed("CSRF token does not match the CSRF cookie")
	}
	return c.verify(token, binding)
}

// csrfFailed is the 403 answer to a failed CSRF check.
func csrfFailed(detail string) *Problem {
	return NewProblem(http.StatusForbidden, CodeCSRFFailed, detail)
}

// isSafeMethod reports whether method is one RFC 9110 defines as safe
// (read-only), which CSRF checks skip.
func isSafeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// csrfTokenFromRequest returns the CSRF token a request carries: the
// X-CSRF-Token header, else, for application/x-www-form-urlencoded bodies
// only, the csrf_token form field. Other bodies are left unread, so a JSON
// handler still gets its body; a form body is parsed into r.PostForm, where
// the handler finds it. Tokens in the query string are ignored: URLs end up
// in logs and Referer headers.
func csrfTokenFromRequest(r *http.Request) string {
	if t := strings.TrimSpace(r.Header.Get(csrfHeader)); t != "" {
		return t
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return ""
	}
	if err := r.ParseForm(); err != nil {
		return ""
	}
	return strings.TrimSpace(r.PostForm.Get(csrfFormField))
}

// setCSRFCookie stores token in the CSRF cookie until expires. HttpOnly
// because clients get the token from GET /api/csrf, never from the cookie;
// SameSite=Lax keeps it off cross-site subrequests; Secure when served over
// TLS.
func setCSRFCookie(w http.ResponseWriter, r *http.Request, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name:     csrfCookieName,
		Value:    token,
		Path:     "/",
		Expires:  expires,
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteLaxMode,
	})
}
