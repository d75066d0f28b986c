package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// IdempotencyKeyHeader names the request header that makes a POST safe to
// retry.
const IdempotencyKeyHeader = "Idempotency-Key"

// IdempotencyTTL is how long an Idempotency-Key is remembered.
const IdempotencyTTL = 24 * time.Hour

// maxIdempotencyKeyLen bounds a key, in characters (bytes: keys are
// ASCII).
const maxIdempotencyKeyLen = 255

// IdempotencyScope is where a key is unique: per tenant and credential.
type IdempotencyScope struct {
	TenantID   string
	Credential string
	Key        string
}

// StoredResponse is a response kept for replay.
type StoredResponse struct {
	Status      int
	ContentType string
	Location    string
	Body        []byte
}

// Errors an IdempotencyStore returns.
var (
	// ErrIdempotencyKeyReused: the key was used with another request body.
	ErrIdempotencyKeyReused = errors.New("this Idempotency-Key was used with a different request")
	// ErrIdempotencyInProgress: the first request with this key has not finished.
	ErrIdempotencyInProgress = errors.New("a request with this Idempotency-Key is still in progress")
)

// IdempotencyStore runs a request at most once per key. The work fn does
// joins Do's transaction only when the services' stores find that
// transaction in fn's context: a store of your own on Bun begins it with
// tenantkit.NewTransactor(db).InTx, as the built-in one does.
type IdempotencyStore interface {
	// Do runs fn under scope for requestHash and stores fn's response in
	// fn's transaction, so that the work and the record commit together or
	// not at all; while fn runs, another Do of scope gets
	// ErrIdempotencyInProgress at once, and a request that ends without
	// committing (an error, a killed process) leaves the key free. When
	// the key was already used within ttl with the same hash, Do returns
	// the stored response and replayed=true without calling fn. fn's error
	// rolls everything back. Errors: ErrIdempotencyKeyReused,
	// ErrIdempotencyInProgress.
	Do(ctx context.Context, scope IdempotencyScope, requestHash string, ttl time.Duration,
		fn func(ctx context.Context) (StoredResponse, error)) (resp StoredResponse, replayed bool, err error)
}

// errServerFault carries a 5xx response out of the idempotent transaction
// so that it rolls back; the response is still sent to the client.
type errServerFault struct{ resp StoredResponse }

// Error implements error.
func (e *errServerFault) Error() string { return fmt.Sprintf("server fault: status %d", e.resp.Status) }

// idempotent runs handle under the request's Idempotency-Key: the first
// request runs and its response (anything but a 5xx) is stored in the same
// transaction as its effects; a retry with the same body gets that response
// again with Idempotent-Replayed: true; another body is 422; a retry while
// the first is still running is 409 conflict, at once.
func (a *API) idempotent(w http.ResponseWriter, r *http.Request, handle HandlerFunc) error {
	key, err := parseIdempotencyKey(r.Header.Values(IdempotencyKeyHeader))
	if err != nil {
		return InvalidRequest("Idempotency-Key must be a quoted string of 1-255 printable ASCII characters, "+
			`e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324" (or, unquoted, 1-255 letters, digits and ._:-)`,
			FieldError{Field: IdempotencyKeyHeader, Code: "invalid", Message: err.Error()})
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err // *http.MaxBytesError → 413
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sum := sha256.New()
	fmt.Fprintf(sum, "%s %s\n", r.Method, r.URL.Path)
	sum.Write(body)
	hash := hex.EncodeToString(sum.Sum(nil))

	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	scope := IdempotencyScope{TenantID: m.TenantID, Credential: p.Credential.Key, Key: key}

	resp, replayed, err := a.cfg.Services.Idempotency.Do(r.Context(), scope, hash, IdempotencyTTL,
		func(ctx context.Context) (StoredResponse, error) {
			rec := &responseCapture{header: http.Header{}}
			HandlerFunc(handle).ServeHTTP(rec, r.WithContext(ctx))
			out := StoredResponse{Status: rec.statusCode(), ContentType: rec.header.Get("Content-Type"),
				Location: rec.header.Get("Location"), Body: rec.body.Bytes()}
			if out.Status >= 500 {
				return out, &errServerFault{resp: out}
			}
			return out, nil
		})
	var fault *errServerFault
	switch {
	case errors.As(err, &fault):
		resp = fault.resp
	case errors.Is(err, ErrIdempotencyKeyReused):
		return NewProblem(http.StatusUnprocessableEntity, CodeIdempotencyKeyReused, err.Error())
	case errors.Is(err, ErrIdempotencyInProgress):
		return NewProblem(http.StatusConflict, CodeConflict, err.Error())
	case err != nil:
		return err
	}
	h := w.Header()
	if resp.ContentType != "" {
		h.Set("Content-Type", resp.ContentType)
	}
	if resp.Location != "" {
		h.Set("Location", resp.Location)
	}
	if replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
	return nil
}

// responseCapture records a response instead of sending it.
type responseCapture struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header implements http.ResponseWriter.
func (c *responseCapture) Header() http.Header { return c.header }

// WriteHeader implements http.ResponseWriter; the first status wins.
func (c *responseCapture) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

// Write implements http.ResponseWriter.
func (c *responseCapture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}

func (c *responseCapture) statusCode() int {
	if c.status == 0 {
		return http.StatusOK
	}
	return c.status
}

// parseIdempotencyKey returns the key an Idempotency-Key header carries.
// The draft defines the field as a Structured Field Item whose value is a
// String (RFC 8941), e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324": the key
// is the string's content, escapes undone. Parameters after it, which the
// draft defines none of, are parsed and ignored. For compatibility the
// unquoted form tenantkit accepted first, 1-255 letters, digits and ._:-,
// is accepted too and names the same key as its quoted form. The field
// must appear once, and the key must be 1-255 characters long.
func parseIdempotencyKey(values []string) (string, error) {
	if len(values) != 1 {
		return "", errors.New("send one Idempotency-Key header")
	}
	v := strings.Trim(values[0], " \t")
	if !strings.HasPrefix(v, `"`) {
		// The unquoted form tenantkit accepted before it parsed the
		// header as the draft defines it; still accepted.
		if !isToken(v, maxIdempotencyKeyLen) {
			return "", errors.New("not a quoted string")
		}
		return v, nil
	}
	key, rest, err := sfStringPrefix(v)
	if err != nil {
		return "", err
	}
	if err := sfParams(rest); err != nil {
		return "", err
	}
	if key == "" || len(key) > maxIdempotencyKeyLen {
		return "", fmt.Errorf("the key must be 1-%d characters", maxIdempotencyKeyLen)
	}
	return key, nil
}

// sfStringPrefix parses the Structured Field String at the start of s
// (RFC 8941, section 4.2.5) and returns its content and what follows it.
func sfStringPrefix(s string) (value, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, errors.New("not a quoted string")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
			if i == len(s) || (s[i] != '"' && s[i] != '\\') {
				return "", "", errors.New(`a backslash in a quoted string must escape " or \\`)
			}
			b.WriteByte(s[i])
		case c == '"':
			return b.String(), s[i+1:], nil
		case c < 0x20 || c > 0x7e:
			return "", "", errors.New("a quoted string holds only printable ASCII characters")
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated quoted string")
}

// sfParams checks that s is a Structured Field Item's parameters
// (RFC 8941, section 4.2.3.2): any number of ;key or ;key=value, each value a bare
// item. Their meaning is not needed, so nothing is returned.
func sfParams(s string) error {
	for s != "" {
		if s[0] != ';' {
			return errors.New("unexpected characters after the quoted string")
		}
		s = strings.TrimLeft(s[1:], " ")
		n := 0
		for n < len(s) && (n == 0 && isLCAlpha(s[n]) || n == 0 && s[n] == '*' ||
			n > 0 && (isLCAlpha(s[n]) || isDigit(s[n]) || strings.IndexByte("_-.*", s[n]) >= 0)) {
			n++
		}
		if n == 0 {
			return errors.New("malformed parameter after the quoted string")
		}
		s = s[n:]
		if !strings.HasPrefix(s, "=") {
			continue // a parameter without a value is true
		}
		var err error
		if s, err = sfBareItemRest(s[1:]); err != nil {
			return err
		}
	}
	return nil
}

// sfBareItemRest skips the bare item (RFC 8941, section 4.2.3.1: Integer,
// Decimal, String, Token, Byte Sequence or Boolean) at the start of s and
// returns what follows it.
func sfBareItemRest(s string) (string, error) {
	bad := errors.New("malformed parameter value after the quoted string")
	if s == "" {
		return "", bad
	}
	switch c := s[0]; {
	case c == '"':
		_, rest, err := sfStringPrefix(s)
		return rest, err
	case c == '-' || isDigit(c): // Integer: -?1*15DIGIT; Decimal: -?1*12DIGIT "." 1*3DIGIT
		i := 0
		if c == '-' {
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		whole := i - start
		if i == len(s) || s[i] != '.' {
			if whole < 1 || whole > 15 {
				return "", bad
			}
			return s[i:], nil
		}
		i++
		frac := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if whole < 1 || whole > 12 || i-frac < 1 || i-frac > 3 {
			return "", bad
		}
		return s[i:], nil
	case c == '?': // Boolean
		if len(s) < 2 || (s[1] != '0' && s[1] != '1') {
			return "", bad
		}
		return s[2:], nil
	case c == ':': // Byte Sequence
		end := strings.IndexByte(s[1:], ':')
		if end < 0 {
			return "", bad
		}
		if _, err := base64.StdEncoding.DecodeString(s[1 : 1+end]); err != nil {
			return "", bad
		}
		return s[end+2:], nil
	case c == '*' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z': // Token
		i := 1
		for i < len(s) && (isTChar(s[i]) || s[i] == ':' || s[i] == '/') {
			i++
		}
		return s[i:], nil
	}
	return "", bad
}

func isLCAlpha(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool   { return '0' <= c && c <= '9' }

// isTChar reports whether c is a tchar (RFC 9110, section 5.6.2).
func isTChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
