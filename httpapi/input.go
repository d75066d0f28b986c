package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// What reaches a query must be text the database stores as sent: no NUL
// bytes and no invalid UTF-8 (Postgres refuses both, and Go's JSON decoder
// and Bun would silently turn invalid UTF-8 into U+FFFD), within bounds.
// This file checks the parts of a request that are not a JSON body — the
// path, the query string and the X-Tenant-ID header — before any query;
// DecodeJSON checks bodies the same way.

// tenantHeader names the tenant a request acts for, as problems name it.
const tenantHeader = "X-Tenant-ID"

// tenantHeaderKey is tenantHeader as net/http's Header keys it.
const tenantHeaderKey = "X-Tenant-Id"

// maxQueryValueLen bounds every query parameter value, in characters;
// the longest legitimate one is an email address (254).
const maxQueryValueLen = 256

// What the FieldErrors about text no field may hold (codes
// field.InvalidUTF8 and field.NulByte) say about a value and about an
// object key.
var (
	textMessages = map[string]string{
		field.InvalidUTF8: "must be valid UTF-8 text",
		field.NulByte:     "must not contain NUL (U+0000)",
	}
	keyTextMessages = map[string]string{
		field.InvalidUTF8: "has a key that is not valid UTF-8 text",
		field.NulByte:     "has a key that contains NUL (U+0000)",
	}
)

// textProblem returns the code (textMessages) saying why s cannot be
// stored as text, or "" when it can.
func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return field.InvalidUTF8
	case strings.IndexByte(s, 0) >= 0:
		return field.NulByte
	}
	return ""
}

// routablePath answers 404 to a request whose path holds a control
// character (NUL included) or invalid UTF-8: no route has such a path, and
// no id contains such bytes. Routers never see these paths, which matters:
// bunrouter v1.0.23 indexes a node's static children by their first byte
// and panics on a NUL at the start of a segment below a node that has
// only a parameter child (GET /api/v1/collections/invoices/%00).
func routablePath(next http.Handler) http.Handler {
	return HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if !isRoutable(r.URL.Path) {
			return NewProblem(http.StatusNotFound, CodeNotFound, "no endpoint at this path")
		}
		next.ServeHTTP(w, r)
		return nil
	})
}

// isRoutable reports whether path is valid UTF-8 without control characters.
func isRoutable(path string) bool {
	for i := 0; i < len(path); i++ {
		if c := path[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(path)
}

// PathID returns the {id} path value when it is a well-formed id with the
// given prefix (id.Valid), e.g. PathID(r, id.Tenant, "tenant"). Anything
// else is not the id of any resource: a 404 saying that what is not
// found, before any query.
func PathID(r *http.Request, prefix, what string) (string, error) {
	v := r.PathValue("id")
	if !id.Valid(prefix, v) {
		return "", NewProblem(http.StatusNotFound, CodeNotFound, what+" not found")
	}
	return v, nil
}

// checkQuery holds the query string to the rule request bodies follow:
// names the endpoint does not take are refused, not ignored, so that a
// typo ("?stauts=open") is not silently a different request. It answers
// 400 invalid_request, naming each offending parameter, for a query
// string that does not parse, an unknown or repeated parameter, and a
// value that is not valid UTF-8, holds a NUL or is longer than
// maxQueryValueLen characters. Whether a known value makes sense (a
// status, a limit) is the handler's to say.
func checkQuery(r *http.Request, allowed []string) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return InvalidRequest("the query string is malformed: use name=value pairs joined by &, percent-encoded")
	}
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names) // one answer for one request
	var errs []FieldError
	for _, name := range names {
		values := q[name]
		param := strings.ToValidUTF8(name, "\uFFFD")
		switch {
		case !slices.Contains(allowed, name):
			errs = append(errs, FieldError{Field: param, Code: "unknown_parameter", Message: "is not a query parameter of this endpoint"})
		case len(values) > 1:
			errs = append(errs, FieldError{Field: param, Code: "repeated", Message: "must be given at most once"})
		default:
			if code := textProblem(values[0]); code != "" {
				errs = append(errs, FieldError{Field: param, Code: code, Message: textMessages[code]})
			} else if utf8.RuneCountInString(values[0]) > maxQueryValueLen {
				errs = append(errs, FieldError{Field: param, Code: field.TooLong, Message: "must have at most " + strconv.Itoa(maxQueryValueLen) + " characters"})
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	detail := "request has an invalid query parameter"
	if !slices.ContainsFunc(errs, func(e FieldError) bool { return e.Code != "unknown_parameter" }) {
		detail = "request has an unknown query parameter"
	}
	return InvalidRequest(detail, errs...)
}

// checkTenantHeader refuses an X-Tenant-ID that is not a tenant id with
// 400 invalid_request, before it reaches a query. A well-formed id of a
// tenant the caller is not a member of is for the tenancy service to
// answer (403).
func checkTenantHeader(r *http.Request) error {
	v := r.Header.Values(tenantHeaderKey)
	if len(v) == 0 {
		return nil
	}
	if len(v) != 1 || !id.Valid(id.Tenant, v[0]) {
		return InvalidRequest("X-Tenant-ID is not a tenant id",
			FieldError{Field: tenantHeader, Code: "invalid", Message: "must be one tenant id: ten_ and 26 lower-case letters and digits"})
	}
	return nil
}

// isToken reports whether s is 1 to max characters of [A-Za-z0-9._:-]:
// the request ids and bare Idempotency-Keys tenantkit accepts.
func isToken(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}
