package httpapi

import (
	"net/http"
	"testing"
)

// TestHeaderKeysAreCanonical: the header names the middleware reads and
// writes are net/http's canonical form of the documented names.
func TestHeaderKeysAreCanonical(t *testing.T) {
	tests := []struct {
		name string
		key  string
		doc  string // the spelling of the docs and the draft
	}{
		{"RequestID", requestIDHeader, "X-Request-ID"},
		{"Tenant", tenantHeaderKey, tenantHeader},
		{"RateLimitPolicy", rateLimitPolicyHeader, "RateLimit-Policy"},
		{"RateLimit", rateLimitHeader, "RateLimit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := http.CanonicalHeaderKey(tt.key); got != tt.key {
				t.Fatalf("%q is not canonical: net/http spells it %q", tt.key, got)
			}
			if got := http.CanonicalHeaderKey(tt.doc); got != tt.key {
				t.Fatalf("%q names %q, not %q", tt.doc, got, tt.key)
			}
		})
	}
}
