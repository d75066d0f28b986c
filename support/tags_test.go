package support_test

import (
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/support"
)

func TestNormalizeTag(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"billing", "billing", true},
		{"Billing", "billing", true},
		{"  Billing Issue  ", "billing-issue", true},
		{"a \t b   c", "a-b-c", true},
		{"snake_case-and-kebab", "snake_case-and-kebab", true},
		{"v2", "v2", true},
		{strings.Repeat("x", support.MaxTagLen), strings.Repeat("x", support.MaxTagLen), true},
		{" " + strings.Repeat("X", support.MaxTagLen) + " ", strings.Repeat("x", support.MaxTagLen), true},
		{strings.Repeat("x", support.MaxTagLen+1), "", false},
		{"", "", false},
		{"   ", "", false},
		{"c++", "", false},
		{"café", "", false},
		{"a/b", "", false},
		{"#tag", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := support.NormalizeTag(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("NormalizeTag(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
