package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
)

// requestIDHeader carries the request id in both directions ("X-Request-ID"
// in the docs), spelt as net/http's Header keys it.
const requestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds a client-supplied id: it is echoed in headers, logs
// and problem bodies, so it must stay short.
const maxRequestIDLen = 128

// RequestIDFrom returns the id of the request ctx belongs to, as sent in the
// X-Request-ID response header, or "" outside the API's middleware (Wrap).
// It is kept under the event log's key (event.WithRequestID), so that the
// events of a request carry its id without a second context value. Host
// applications use it to correlate their own logs with tenantkit's.
func RequestIDFrom(ctx context.Context) string { return event.RequestIDFrom(ctx) }

// requestIDOf picks the id of r: the caller's X-Request-ID when it is a
// plausible id (so a trace can span the caller's systems and ours), else a
// fresh "req_<ulid>". accessLog echoes it in the X-Request-ID response
// header and stores it in the context for logs, events and problem bodies.
func requestIDOf(r *http.Request) string {
	if reqID := r.Header.Get(requestIDHeader); validRequestID(reqID) {
		return reqID
	}
	return id.New(id.RequestPrefix)
}

// validRequestID reports whether a client-supplied id is safe to echo: 1–128
// characters of [A-Za-z0-9._:-], which rules out header and log injection.
func validRequestID(s string) bool { return isToken(s, maxRequestIDLen) }
