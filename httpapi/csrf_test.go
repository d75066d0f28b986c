package httpapi

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testCSRFKey is a 32-byte key for tests.
var testCSRFKey = []byte("0123456789abcdef0123456789abcdef")

// mustCSRF returns a token issuer with a settable clock.
func mustCSRF(tb testing.TB, clock *fakeClock) *csrfTokens {
	tb.Helper()
	c := newCSRFTokens(testCSRFKey, time.Hour)
	c.now = clock.Now
	return c
}

// tamper flips one bit of the decoded token at byte i.
func tamper(tb testing.TB, token string, i int) string {
	tb.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		tb.Fatal(err)
	}
	raw[i] ^= 1
	return base64.RawURLEncoding.EncodeToString(raw)
}

func TestNewCSRFTokens(t *testing.T) {
	t.Run("DefaultTTL", func(t *testing.T) {
		if c := newCSRFTokens(testCSRFKey, 0); c.ttl != 12*time.Hour {
			t.Errorf("ttl = %v, want 12h", c.ttl)
		}
	})
	t.Run("ShortKeyPanics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("newCSRFTokens with a 31-byte key did not panic")
			}
		}()
		newCSRFTokens(testCSRFKey[:31], time.Hour)
	})
	t.Run("KeyCopied", func(t *testing.T) {
		key := bytes.Clone(testCSRFKey)
		c := newCSRFTokens(key, time.Hour)
		tok, _ := c.issue("s")
		key[0] ^= 1
		if err := c.verify(tok, "s"); err != nil {
			t.Errorf("changing the caller's key slice broke verification: %v", err)
		}
	})
}

func TestCSRFVerify(t *testing.T) {
	clock := newFakeClock()
	c := mustCSRF(t, clock)
	tok, exp := c.issue("session-1")
	if want := clock.Now().Add(time.Hour); !exp.Equal(want) {
		t.Errorf("expires = %v, want %v", exp, want)
	}
	otherKey := newCSRFTokens([]byte("ffffffffffffffffffffffffffffffff"), time.Hour)
	otherKey.now = clock.Now
	foreign, _ := otherKey.issue("session-1")

	tests := []struct {
		name       string
		token      string
		binding    string
		advance    time.Duration
		wantDetail string // "" means valid
	}{
		{name: "Valid", token: tok, binding: "session-1"},
		{name: "ValidJustBeforeExpiry", token: tok, binding: "session-1", advance: time.Hour - time.Second},
		{name: "Missing", token: "", binding: "session-1", wantDetail: "missing CSRF token"},
		{name: "Expired", token: tok, binding: "session-1", advance: time.Hour, wantDetail: "CSRF token expired"},
		{name: "AnotherSession", token: tok, binding: "another session", wantDetail: "CSRF token invalid for this session"},
		{name: "NoSession", token: tok, binding: "", wantDetail: "CSRF token invalid for this session"},
		{name: "OtherKey", token: foreign, binding: "session-1", wantDetail: "CSRF token invalid for this session"},
		{name: "TamperedExpiry", token: tamper(t, tok, 8), binding: "session-1", wantDetail: "CSRF token invalid for this session"},
		{name: "TamperedNonce", token: tamper(t, tok, 12), binding: "session-1", wantDetail: "CSRF token invalid for this session"},
		{name: "TamperedMAC", token: tamper(t, tok, csrfTokenLen-1), binding: "session-1", wantDetail: "CSRF token invalid for this session"},
		{name: "WrongVersion", token: tamper(t, tok, 0), binding: "session-1", wantDetail: "malformed CSRF token"},
		{name: "Truncated", token: tok[:len(tok)-1], binding: "session-1", wantDetail: "malformed CSRF token"},
		{name: "Extended", token: tok + "A", binding: "session-1", wantDetail: "malformed CSRF token"},
		{name: "NotBase64", token: strings.Repeat("*", len(tok)), binding: "session-1", wantDetail: "malformed CSRF token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCSRF(t, newFakeClock())
			c.now = func() time.Time { return clock.Now().Add(tt.advance) }
			err := c.verify(tt.token, tt.binding)
			if tt.wantDetail == "" {
				if err != nil {
					t.Fatalf("verify: %v", err)
				}
				return
			}
			p := mustProblem(t, err, http.StatusForbidden, CodeCSRFFailed)
			if p.Detail != tt.wantDetail {
				t.Errorf("detail = %q, want %q", p.Detail, tt.wantDetail)
			}
		})
	}

	t.Run("TokensDiffer", func(t *testing.T) {
		a, _ := c.issue("session-1")
		b, _ := c.issue("session-1")
		if a == b {
			t.Error("two tokens for one session are equal; the nonce is missing")
		}
	})
}

func TestCSRFCheck(t *testing.T) {
	clock := newFakeClock()
	c := mustCSRF(t, clock)
	tok, _ := c.issue("sess")
	other, _ := c.issue("sess")
	otherSess, _ := c.issue("other-sess")
	const form = "application/x-www-form-urlencoded"

	tests := []struct {
		name        string
		header      string
		cookie      string
		contentType string
		body        string
		wantDetail  string // "" means valid
	}{
		{name: "HeaderAndCookie", header: tok, cookie: tok},
		{name: "HeaderWithoutCookie", header: tok, wantDetail: "missing CSRF cookie: get a token from GET /api/csrf, which sets it"},
		{name: "FormField", contentType: form, body: "name=x&csrf_token=" + tok, cookie: tok},
		{name: "FormFieldWithCharset", contentType: form + "; charset=utf-8", body: "csrf_token=" + tok, cookie: tok},
		{name: "FormFieldWithoutCookie", contentType: form, body: "csrf_token=" + tok, wantDetail: "missing CSRF cookie: get a token from GET /api/csrf, which sets it"},
		{name: "FormFieldCookieMismatch", contentType: form, body: "csrf_token=" + tok, cookie: other, wantDetail: "CSRF token does not match the CSRF cookie"},
		{name: "HeaderWinsOverForm", header: tok, contentType: form, body: "csrf_token=garbage", cookie: tok},
		{name: "Missing", cookie: tok, wantDetail: "missing CSRF token"},
		{name: "CookieOnly", cookie: tok, contentType: "application/json", body: `{"csrf_token":"` + tok + `"}`, wantDetail: "missing CSRF token"},
		{name: "MultipartIgnored", contentType: "multipart/form-data; boundary=x", body: "--x\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n" + tok + "\r\n--x--\r\n", wantDetail: "missing CSRF token"},
		{name: "CookieMismatch", header: tok, cookie: other, wantDetail: "CSRF token does not match the CSRF cookie"},
		{name: "ValidButOtherSession", header: otherSess, cookie: otherSess, wantDetail: "CSRF token invalid for this session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/api/tenant/select", strings.NewReader(tt.body))
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			if tt.header != "" {
				r.Header.Set(csrfHeader, tt.header)
			}
			if tt.cookie != "" {
				r.AddCookie(&http.Cookie{Name: csrfCookieName, Value: tt.cookie})
			}
			err := c.check(r, "sess")
			if tt.wantDetail == "" {
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				return
			}
			p := mustProblem(t, err, http.StatusForbidden, CodeCSRFFailed)
			if p.Detail != tt.wantDetail {
				t.Errorf("detail = %q, want %q", p.Detail, tt.wantDetail)
			}
		})
	}
}

func TestCSRFTokenFromRequestKeepsJSONBody(t *testing.T) {
	const body = `{"tenant_id":"ten_1"}`
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if got := csrfTokenFromRequest(r); got != "" {
		t.Errorf("token = %q, want \"\"", got)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil || string(b) != body {
		t.Errorf("body after csrfTokenFromRequest = %q, %v; want it unread", b, err)
	}
}

func TestCSRFTokenFromRequestFormStillAvailable(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/?csrf_token=fromquery", strings.NewReader("csrf_token=fromform&name=x"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if got := csrfTokenFromRequest(r); got != "fromform" {
		t.Errorf("token = %q, want the form body's (never the query's)", got)
	}
	if got := r.PostFormValue("name"); got != "x" {
		t.Errorf("handler's form field = %q, want x", got)
	}
}

func TestIsSafeMethod(t *testing.T) {
	for method, want := range map[string]bool{
		"GET": true, "HEAD": true, "OPTIONS": true, "TRACE": true,
		"POST": false, "PUT": false, "PATCH": false, "DELETE": false, "CONNECT": false,
	} {
		if got := isSafeMethod(method); got != want {
			t.Errorf("isSafeMethod(%s) = %v, want %v", method, got, want)
		}
	}
}

func TestSetCSRFCookie(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name       string
		tls        bool
		wantSecure bool
	}{
		{name: "PlainHTTP"},
		{name: "TLS", tls: true, wantSecure: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/csrf", nil)
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			rec := httptest.NewRecorder()
			setCSRFCookie(rec, r, "tok", exp)
			cookies := rec.Result().Cookies()
			if len(cookies) != 1 {
				t.Fatalf("got %d cookies, want 1", len(cookies))
			}
			ck := cookies[0]
			if ck.Name != csrfCookieName || ck.Value != "tok" || ck.Path != "/" || !ck.HttpOnly ||
				ck.SameSite != http.SameSiteLaxMode || ck.Secure != tt.wantSecure || !ck.Expires.Equal(exp) {
				t.Errorf("cookie = %+v, want %s=tok Path=/ HttpOnly SameSite=Lax Secure=%v Expires=%v",
					ck, csrfCookieName, tt.wantSecure, exp)
			}
		})
	}
}

// FuzzCSRFVerify checks that no token string panics verify, and that only
// the genuine token passes.
func FuzzCSRFVerify(f *testing.F) {
	// The fuzzing workers each run this setup, so the genuine token must be
	// the same in all of them: a fixed clock and a fixed nonce.
	clock := newFakeClock()
	c := mustCSRF(f, clock)
	payload := make([]byte, csrfPayloadLen)
	payload[0] = csrfVersion
	binary.BigEndian.PutUint64(payload[1:9], uint64(clock.Now().Add(time.Hour).Unix()))
	genuine := base64.RawURLEncoding.EncodeToString(append(payload, c.mac(payload, "sess")...))
	if err := c.verify(genuine, "sess"); err != nil {
		f.Fatalf("hand-made token does not verify: %v", err)
	}
	f.Add(genuine, "sess")
	f.Add(genuine, "other")
	f.Add("", "sess")
	f.Add(genuine[:10], "sess")
	f.Add(strings.Repeat("A", len(genuine)), "sess")
	f.Add(strings.Repeat("_", len(genuine)), "")
	f.Fuzz(func(t *testing.T, token, binding string) {
		err := c.verify(token, binding)
		if err == nil {
			if token != genuine || binding != "sess" {
				t.Fatalf("verify(%q, %q) passed a token that was never issued for it", token, binding)
			}
			return
		}
		var p *Problem
		if !errors.As(err, &p) || p.Status != http.StatusForbidden || p.Code != CodeCSRFFailed {
			t.Fatalf("verify(%q, %q) = %v, want a 403 csrf_failed problem", token, binding, err)
		}
	})
}
