package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/event"
)

// logFields collects what the access log line needs but only later
// middleware knows: the route template (from the route table), the tenant
// and the caller. accessLog puts one per request in the context; the
// middleware that learns a value fills it in. All writes happen on the
// request's goroutine before the handler returns, so no lock is needed.
type logFields struct {
	route        string // route template, e.g. "GET /api/v1/collections/invoices/{id}"
	tenantID     string
	userID       string
	credentialID string // id of the API key or session, never the secret itself
	clientIP     string // client address as resolved behind trusted proxies; "" logs the peer address
	// metrics are the route's instruments (metrics.instrument counts the
	// request with them); nil when no route took it or metrics are off.
	metrics *routeMetrics
}

// logFieldsKey is the context key of the request's *logFields.
type logFieldsKey struct{}

// logFieldsFrom returns the request's log fields for filling in. Outside
// accessLog it returns a throwaway value, so callers never check for nil and
// handlers work the same when mounted without logging.
func logFieldsFrom(ctx context.Context) *logFields {
	if f, ok := ctx.Value(logFieldsKey{}).(*logFields); ok {
		return f
	}
	return &logFields{}
}

// NameRoute records the route template of a request that a handler
// outside the route table serves (the portal's pages, mounted under
// Wrap), so that the access log line, the request metrics and the trace
// name it, as "GET /portal/invoices/{id}", rather than "unmatched". method
// and path form the template as the route table's rows do; path must be
// a pattern, never the request's own path, which may carry ids and
// secrets and would grow the metrics' label space without bound.
func NameRoute(r *http.Request, method, path string) {
	f := logFieldsFrom(r.Context())
	f.route = method + " " + path
	nameSpan(r.Context(), method, path)
}

// accessLog gives every request its id (requestIDOf), echoed in the
// X-Request-ID response header, and logs one line per request after it
// completes: method, route
// template, status, bytes, duration, request id, tenant, user, credential and
// client IP. Paths, query strings, headers and bodies are never logged: they
// may hold secrets and personal data, and the route template says which
// endpoint ran.
//
// It also puts a request-scoped logger into the context, which adds the
// request id to every line, so handlers log with zerolog.Ctx(r.Context()).
// It must run before recoverer, so a recovered panic is logged with its
// final status of 500.
func accessLog(logger zerolog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			reqID := requestIDOf(r)
			fields := &logFields{}
			rec := &statusRecorder{ResponseWriter: w} // metrics.instrument reuses it
			w.Header().Set(requestIDHeader, reqID)
			ctx := context.WithValue(event.WithRequestID(r.Context(), reqID), logFieldsKey{}, fields)
			ctx = logger.With().Str("request_id", reqID).Logger().WithContext(ctx)

			// Deferred so that a request aborted by a panic (http.ErrAbortHandler
			// re-panicked by recoverer) still leaves a line; the panic itself
			// carries on to net/http.
			completed := false
			defer func() {
				status := rec.status
				if status == 0 && completed {
					status = http.StatusOK // net/http's answer when the handler wrote nothing
				}
				route := fields.route
				if route == "" {
					route = "unmatched"
				}
				ip := fields.clientIP
				if ip == "" {
					ip = peerIP(r.RemoteAddr)
				}
				ev := logger.Info()
				if status >= http.StatusInternalServerError || !completed {
					ev = logger.Error()
				}
				ev = ev.Str("request_id", reqID).
					Str("method", r.Method).
					Str("route", route).
					Int("status", status).
					Int64("bytes", rec.bytes).
					Float64("duration_ms", float64(time.Since(start).Microseconds())/1000).
					Str("remote_ip", ip)
				if !completed {
					ev = ev.Bool("aborted", true)
				}
				if id := traceID(r.Context()); id != "" {
					ev = ev.Str("trace_id", id)
				}
				if fields.tenantID != "" {
					ev = ev.Str("tenant_id", fields.tenantID)
				}
				if fields.userID != "" {
					ev = ev.Str("user_id", fields.userID)
				}
				if fields.credentialID != "" {
					ev = ev.Str("credential_id", fields.credentialID)
				}
				ev.Msg("request")
			}()
			next.ServeHTTP(rec, r.WithContext(ctx))
			completed = true
		})
	}
}

// peerIP returns the IP part of a RemoteAddr ("host:port"), or the whole
// string when it has no port.
func peerIP(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	return host
}

// statusRecorder is the http.ResponseWriter accessLog hands down, recording
// the status and body size for the log line. It forwards Flush (streaming
// handlers type-assert http.Flusher) and exposes Unwrap so that
// http.ResponseController reaches the underlying writer's other abilities
// (deadlines, hijacking).
type statusRecorder struct {
	http.ResponseWriter
	status int   // first final status written; 0 until then
	bytes  int64 // body bytes written
}

// WriteHeader records the first final status. Informational 1xx responses
// (other than 101, which ends HTTP on the connection) may precede it and are
// passed through without being recorded.
func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write counts the body bytes; a first Write implies status 200.
func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// Flush sends buffered data to the client if the underlying writer can; a
// flush commits the headers, hence status 200 when none was written.
func (s *statusRecorder) Flush() {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	_ = http.NewResponseController(s.ResponseWriter).Flush() // unsupported: nothing to flush to
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// started reports whether the response status has been sent, after which
// no error response can be written.
func (s *statusRecorder) started() bool { return s.status != 0 }

// responseStarted reports whether some writer in w's Unwrap chain knows the
// response has begun. Without a statusRecorder in the chain it cannot tell
// and answers false.
func responseStarted(w http.ResponseWriter) bool {
	for w != nil {
		if s, ok := w.(interface{ started() bool }); ok {
			return s.started()
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
	return false
}

// recoverer turns a panicking handler into a 500 problem, logging the panic
// value and stack with the request logger, so that one bug fails one request
// rather than the connection. http.ErrAbortHandler is re-panicked: it is the
// documented way to abort a response and net/http handles it quietly.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
			zerolog.Ctx(r.Context()).Error().
				Str("panic", fmt.Sprint(v)).
				Str("stack", string(debug.Stack())).
				Msg("handler panicked")
			if responseStarted(w) {
				// Too late for a problem body; abort so the client sees a broken
				// response rather than a truncated one that looks complete.
				panic(http.ErrAbortHandler)
			}
			writeProblem(w, r, NewProblem(http.StatusInternalServerError, CodeInternal, "internal server error"))
		}()
		next.ServeHTTP(w, r)
	})
}
