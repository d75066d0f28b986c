package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// mustLogLines parses zerolog JSON output into one map per line.
func mustLogLines(tb testing.TB, buf *bytes.Buffer) []map[string]any {
	tb.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			tb.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

func TestAccessLog(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    map[string]any
		absent  []string
	}{
		{
			name: "FieldsFilledByLaterMiddleware",
			handler: func(w http.ResponseWriter, r *http.Request) {
				f := logFieldsFrom(r.Context())
				f.route = "GET /api/v1/collections/invoices/{id}"
				f.tenantID, f.userID, f.credentialID = "ten_1", "usr_1", "key_1"
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte("hello"))
			},
			want: map[string]any{
				"level": "info", "method": "GET", "route": "GET /api/v1/collections/invoices/{id}",
				"status": float64(201), "bytes": float64(5), "request_id": "req_test",
				"tenant_id": "ten_1", "user_id": "usr_1", "credential_id": "key_1", "remote_ip": "192.0.2.1",
				"message": "request",
			},
		},
		{
			name: "NamedByAMountedHandler",
			handler: func(w http.ResponseWriter, r *http.Request) {
				NameRoute(r, http.MethodGet, "/portal/invoices/{id}")
			},
			want: map[string]any{"route": "GET /portal/invoices/{id}", "status": float64(200)},
		},
		{
			name:    "Unmatched",
			handler: func(w http.ResponseWriter, r *http.Request) {},
			want:    map[string]any{"route": "unmatched", "status": float64(200), "bytes": float64(0)},
			absent:  []string{"tenant_id", "user_id", "credential_id", "aborted"},
		},
		{
			name: "ServerErrorLevel",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusServiceUnavailable)
			},
			want: map[string]any{"level": "error", "status": float64(503)},
		},
		{
			name: "ResolvedClientIP",
			handler: func(w http.ResponseWriter, r *http.Request) {
				logFieldsFrom(r.Context()).clientIP = "203.0.113.9"
			},
			want: map[string]any{"remote_ip": "203.0.113.9"},
		},
		{
			name: "InformationalThenFinal",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusNoContent)
			},
			want: map[string]any{"status": float64(204)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := accessLog(zerolog.New(&logs))(tt.handler)
			r := httptest.NewRequest(http.MethodGet, "/api/v1/collections/invoices/inv_1?token=sekret", nil)
			r.Header.Set("Authorization", "Bearer tk_sekret")
			r.Header.Set("Cookie", "tenantkit_session=sekret")
			r.Header.Set(requestIDHeader, "req_test")
			h.ServeHTTP(httptest.NewRecorder(), r)

			lines := mustLogLines(t, &logs)
			if len(lines) != 1 {
				t.Fatalf("got %d log lines, want 1: %s", len(lines), logs.String())
			}
			for k, want := range tt.want {
				if got := lines[0][k]; got != want {
					t.Errorf("%s = %v, want %v", k, got, want)
				}
			}
			for _, k := range tt.absent {
				if v, ok := lines[0][k]; ok {
					t.Errorf("%s = %v, want absent", k, v)
				}
			}
			if _, ok := lines[0]["duration_ms"].(float64); !ok {
				t.Errorf("duration_ms = %v, want a number", lines[0]["duration_ms"])
			}
			if strings.Contains(logs.String(), "sekret") || strings.Contains(logs.String(), "inv_1") {
				t.Errorf("log leaks the path, headers or query: %s", logs.String())
			}
		})
	}
}

func TestAccessLogContextLogger(t *testing.T) {
	var logs bytes.Buffer
	h := accessLog(zerolog.New(&logs))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zerolog.Ctx(r.Context()).Info().Msg("from handler")
	}))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set(requestIDHeader, "req_ctx")
	h.ServeHTTP(httptest.NewRecorder(), r)

	lines := mustLogLines(t, &logs)
	if len(lines) != 2 {
		t.Fatalf("got %d log lines, want 2: %s", len(lines), logs.String())
	}
	if got := lines[0]["message"]; got != "from handler" {
		t.Errorf("first line message = %v, want the handler's", got)
	}
	if got := lines[0]["request_id"]; got != "req_ctx" {
		t.Errorf("handler line request_id = %v, want req_ctx", got)
	}
}

func TestAccessLogAbort(t *testing.T) {
	var logs bytes.Buffer
	h := accessLog(zerolog.New(&logs))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler to pass through", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	}()
	lines := mustLogLines(t, &logs)
	if len(lines) != 1 || lines[0]["aborted"] != true || lines[0]["level"] != "error" {
		t.Errorf("log = %s, want one aborted error line", logs.String())
	}
}

func TestLogFieldsFromWithoutAccessLog(t *testing.T) {
	f := logFieldsFrom(context.Background())
	if f == nil {
		t.Fatal("logFieldsFrom(empty context) = nil")
	}
	f.route = "ignored" // must not panic
}

func TestStatusRecorder(t *testing.T) {
	rec := httptest.NewRecorder()
	sr := &statusRecorder{ResponseWriter: rec}

	if responseStarted(sr) {
		t.Error("responseStarted before any write = true")
	}
	var _ http.Flusher = sr
	sr.Flush()
	if !rec.Flushed {
		t.Error("Flush did not reach the underlying writer")
	}
	if sr.status != http.StatusOK || !responseStarted(sr) {
		t.Errorf("after Flush status = %d, started = %v; want 200, true", sr.status, responseStarted(sr))
	}
	if got := sr.Unwrap(); got != rec {
		t.Errorf("Unwrap() = %v, want the recorder", got)
	}
	// http.ResponseController finds abilities through Unwrap; the recorder
	// cannot set deadlines, so the error must be ErrNotSupported, not a
	// failure to find the writer.
	err := http.NewResponseController(sr).SetWriteDeadline(time.Now().Add(time.Second))
	if !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("SetWriteDeadline through the recorder = %v, want ErrNotSupported", err)
	}
}

func TestRecoverer(t *testing.T) {
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus int
		wantBody   string
		wantPanic  any
		wantLogged bool
	}{
		{
			name:       "PanicBecomes500",
			handler:    func(w http.ResponseWriter, r *http.Request) { panic("boom secret") },
			wantStatus: 500, wantLogged: true,
		},
		{
			name:       "PanicWithError",
			handler:    func(w http.ResponseWriter, r *http.Request) { panic(errors.New("boom secret")) },
			wantStatus: 500, wantLogged: true,
		},
		{
			name:      "AbortHandlerRepanics",
			handler:   func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) },
			wantPanic: http.ErrAbortHandler,
		},
		{
			name: "PanicAfterWriteAborts",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				panic("boom secret")
			},
			wantPanic: http.ErrAbortHandler, wantLogged: true,
		},
		{
			name:       "NoPanic",
			handler:    func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
			wantStatus: 204,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := zerolog.New(&logs)
			h := recoverer(tt.handler)
			rec := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r = r.WithContext(logger.WithContext(r.Context()))
			// A statusRecorder, as accessLog installs, lets recoverer see
			// whether the response has started.
			w := &statusRecorder{ResponseWriter: rec}

			func() {
				defer func() {
					if v := recover(); v != tt.wantPanic {
						t.Errorf("panic = %v, want %v", v, tt.wantPanic)
					}
				}()
				h.ServeHTTP(w, r)
			}()

			if tt.wantStatus != 0 && rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if tt.wantStatus == 500 {
				p := mustDecodeProblem(t, rec)
				if p.Code != CodeInternal || strings.Contains(rec.Body.String(), "secret") {
					t.Errorf("problem = %s, want an opaque internal problem", rec.Body)
				}
			}
			logged := strings.Contains(logs.String(), "boom secret") && strings.Contains(logs.String(), "stack")
			if logged != tt.wantLogged {
				t.Errorf("logged panic and stack = %v, want %v: %s", logged, tt.wantLogged, logs.String())
			}
		})
	}
}

// TestAccessLogLineBytes holds the access log line to its bytes, field
// order included, for loggers with and without fields of their own: the
// line is written with the request's logger, which carries the request id
// as its last context field.
func TestAccessLogLineBytes(t *testing.T) {
	tests := []struct {
		name   string
		logger func(w *bytes.Buffer) zerolog.Logger
		status int
		want   string // the line up to duration_ms
	}{
		{"Plain", func(w *bytes.Buffer) zerolog.Logger { return zerolog.New(w) }, http.StatusNoContent,
			`{"level":"info","request_id":"abc-1","method":"GET","route":"unmatched","status":204,"bytes":0,"duration_ms":`},
		{"WithFields", func(w *bytes.Buffer) zerolog.Logger { return zerolog.New(w).With().Str("service", "api").Logger() },
			http.StatusInternalServerError,
			`{"level":"error","service":"api","request_id":"abc-1","method":"GET","route":"unmatched","status":500,"bytes":0,"duration_ms":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			h := accessLog(tt.logger(&buf))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
			}))
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = "192.0.2.1:1234"
			r.Header.Set("X-Request-ID", "abc-1")
			h.ServeHTTP(httptest.NewRecorder(), r)
			line := buf.String()
			if !strings.HasPrefix(line, tt.want) {
				t.Fatalf("line = %s, want it to start %s", line, tt.want)
			}
			if _, rest, _ := strings.Cut(line[len(tt.want):], ","); rest != `"remote_ip":"192.0.2.1","message":"request"}`+"\n" {
				t.Fatalf("line = %s, want it to end with remote_ip and message", line)
			}
		})
	}
}
