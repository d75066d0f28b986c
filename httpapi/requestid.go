package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy/event"
)

// requestIDHeader carries the request id in both directions.
const requestIDHeader = "X-Request-ID"

// maxRequestIDLen bounds a client-supplied id: it is echoed in headers, logs
// and problem bodies, so it must stay short.
const maxRequestIDLen = 128

// requestIDKey is the context key of the request id; an unexported type so
// no other package can collide with it.
type requestIDKey struct{}

// contextWithRequestID returns ctx carrying the request id reqID.
func contextWithRequestID(ctx context.Context, reqID string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, reqID)
}

// RequestIDFrom returns the id of the request ctx belongs to, as sent in the
// X-Request-ID response header, or "" outside the requestID middleware. Host
// applications use it to correlate their own logs with tenantkit's.
func RequestIDFrom(ctx context.Context) string {
	reqID, _ := ctx.Value(requestIDKey{}).(string)
	return reqID
}

// requestID gives every request an id: the caller's X-Request-ID when it is
// a plausible id (so a trace can span the caller's systems and ours), else a
// fresh "req_<ulid>". The id is echoed in the X-Request-ID response header
// and stored in the context for logs and problem bodies. It must run before
// accessLog so that the access log line carries the id.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqID := r.Header.Get(requestIDHeader)
		if !validRequestID(reqID) {
			reqID = id.New(id.RequestPrefix)
		}
		w.Header().Set(requestIDHeader, reqID)
		ctx := event.WithRequestID(contextWithRequestID(r.Context(), reqID), reqID)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// validRequestID reports whether a client-supplied id is safe to echo: 1–128
// characters of [A-Za-z0-9._:-], which rules out header and log injection.
func validRequestID(s string) bool {
	if len(s) == 0 || len(s) > maxRequestIDLen {
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
