package portal

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLocaleOf(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{"", "en"},
		{"de-DE,de;q=0.9,en;q=0.5", "de-DE"},
		{"fr;q=0.4, ja", "ja"},
		{"*", "en"},
		{"not a language at all!", "en"},
		{strings.Repeat("en-US,", 100), "en"},
	} {
		r := httptest.NewRequest("GET", "/portal/", nil)
		if tc.header != "" {
			r.Header.Set("Accept-Language", tc.header)
		}
		if got := localeOf(r); got != tc.want {
			t.Errorf("Accept-Language %q: locale %q, want %q", tc.header, got, tc.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	at := time.Date(2026, 11, 29, 9, 5, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct{ name, got, want string }{
		{"MoneyEnglish", money("en", 120000, "USD"), "$1,200.00"},
		{"MoneyGerman", money("de", 120000, "EUR"), "1.200,00\u00a0€"},
		{"MoneyNoDecimals", money("en", 1200, "JPY"), "¥1,200"},
		{"MoneyDefaultLocale", money("", 500, "USD"), "$5.00"},
		{"DateTimeInUTC", dateTime("en", at), "11/29/2026 08:05 UTC"},
		{"DateGerman", dateOnly("de", "2026-11-29"), "29.11.2026"},
		{"Count", count("en", 12345), "12,345"},
		{"CountInt", count("de", int(12345)), "12.345"},
		{"LastDayOfPeriod", day("en", dayBefore(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))), "11/30/2026"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestBadgesDiffer: the statuses people compare at a glance have badges
// of their own.
func TestBadgesDiffer(t *testing.T) {
	seen := map[string]string{}
	for _, s := range []string{"draft", "open", "paid", "void", "uncollectible", "overdue", "pending", "on_hold"} {
		b := badge(s)
		if other, ok := seen[b]; ok {
			t.Errorf("%s and %s share the badge %q", s, other, b)
		}
		seen[b] = s
	}
	if badge("<script>") != "status" {
		t.Errorf("an unknown status gets %q, want the neutral badge", badge("<script>"))
	}
}
