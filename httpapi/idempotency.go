package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"

	"github.com/tenantkit/tenantkit/internal/idempotency"
)

// IdempotencyKeyHeader names the request header that makes a POST safe to
// retry.
const IdempotencyKeyHeader = "Idempotency-Key"

// IdempotencyTTL is how long an Idempotency-Key is remembered.
const IdempotencyTTL = 24 * time.Hour

var idempotencyKeyRE = regexp.MustCompile(`^[A-Za-z0-9._:\-]{1,255}$`)

// IdempotencyScope is where a key is unique: per tenant and credential.
type IdempotencyScope = idempotency.Scope

// StoredResponse is a response kept for replay.
type StoredResponse = idempotency.Response

// Errors an IdempotencyStore returns.
var (
	// ErrIdempotencyKeyReused: the key was used with another request body.
	ErrIdempotencyKeyReused = idempotency.ErrKeyReused
	// ErrIdempotencyInProgress: the first request with this key has not finished.
	ErrIdempotencyInProgress = idempotency.ErrInProgress
)

// IdempotencyStore runs a request at most once per key.
type IdempotencyStore interface {
	// Do claims scope for requestHash and runs fn in the same transaction
	// as the claim, storing fn's response with it, so that the work and the
	// record commit together or not at all. When the key was already used
	// within ttl with the same hash, Do returns the stored response and
	// replayed=true without calling fn. fn's error rolls everything back.
	// Errors: ErrIdempotencyKeyReused, ErrIdempotencyInProgress.
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
// again with Idempotent-Replayed: true; another body is 422; a concurrent
// retry waits for the first and then replays it.
func (a *API) idempotent(w http.ResponseWriter, r *http.Request, handle handlerFunc) error {
	key := r.Header.Get(IdempotencyKeyHeader)
	if !idempotencyKeyRE.MatchString(key) {
		return invalidRequest("Idempotency-Key must be 1-255 characters of letters, digits and ._:-",
			FieldError{Field: IdempotencyKeyHeader, Code: "invalid", Message: "malformed idempotency key"})
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

	resp, replayed, err := a.cfg.Idempotency.Do(r.Context(), scope, hash, IdempotencyTTL,
		func(ctx context.Context) (StoredResponse, error) {
			rec := &responseCapture{header: http.Header{}}
			handlerFunc(handle).ServeHTTP(rec, r.WithContext(ctx))
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
