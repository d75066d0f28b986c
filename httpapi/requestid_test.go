package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestRequestID(t *testing.T) {
	tests := []struct {
		name      string
		header    string
		wantKept  bool // the caller's id is used as is
		setHeader bool
	}{
		{name: "Absent"},
		{name: "Valid", header: "abc-123_X.y:z", setHeader: true, wantKept: true},
		{name: "ValidMaxLength", header: strings.Repeat("a", 128), setHeader: true, wantKept: true},
		{name: "Empty", header: "", setHeader: true},
		{name: "TooLong", header: strings.Repeat("a", 129), setHeader: true},
		{name: "Space", header: "abc def", setHeader: true},
		{name: "HeaderInjection", header: "abc\r\nSet-Cookie: x=y", setHeader: true},
		{name: "NonASCII", header: "abcé", setHeader: true},
		{name: "LogInjection", header: `abc"}`, setHeader: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var inCtx string
			h := accessLog(zerolog.Nop())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				inCtx = RequestIDFrom(r.Context())
			}))
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.setHeader {
				r.Header[http.CanonicalHeaderKey(requestIDHeader)] = []string{tt.header}
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)

			got := rec.Header().Get(requestIDHeader)
			if got != inCtx {
				t.Errorf("header %q != context %q", got, inCtx)
			}
			if tt.wantKept {
				if got != tt.header {
					t.Errorf("X-Request-ID = %q, want the caller's %q", got, tt.header)
				}
				return
			}
			if !strings.HasPrefix(got, "req_") || len(got) != len("req_")+26 || !validRequestID(got) {
				t.Errorf("X-Request-ID = %q, want a generated req_<ulid>", got)
			}
		})
	}

	t.Run("GeneratedAreUnique", func(t *testing.T) {
		h := accessLog(zerolog.Nop())(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		seen := make(map[string]bool)
		for range 100 {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			id := rec.Header().Get(requestIDHeader)
			if seen[id] {
				t.Fatalf("duplicate request id %q", id)
			}
			seen[id] = true
		}
	})
}

func TestRequestIDFromEmpty(t *testing.T) {
	if got := RequestIDFrom(context.Background()); got != "" {
		t.Errorf("RequestIDFrom(empty context) = %q, want \"\"", got)
	}
}
