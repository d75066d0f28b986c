package display_test

import (
	"testing"

	"github.com/tenantkit/tenantkit/internal/display"
)

// TestFormatting: money and dates are formatted money and dates with each
// locale's CLDR digits, separators and symbols, and each currency's
// decimals.
func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		locale, currency string
		amount           int64
		money            string
		date             string
	}{
		{"en", "USD", 123456, "$1,234.56", "3/7/2026"},
		{"de", "EUR", 123456, "1.234,56\u00a0€", "07.03.2026"},
		{"fr", "EUR", 123456, "1\u00a0234,56\u00a0€", "07/03/2026"},
		{"ja", "JPY", 123456, "￥123,456", "2026/03/07"},
		{"en", "KWD", 12345, "KWD12.345", "3/7/2026"},
		{"en-GB", "GBP", 5, "£0.05", "07/03/2026"},
	} {
		t.Run(tc.locale+"/"+tc.currency, func(t *testing.T) {
			if got := display.Money(tc.locale, tc.amount, tc.currency); got != tc.money {
				t.Errorf("money = %q, want %q", got, tc.money)
			}
			if got := display.Date(tc.locale, "2026-03-07"); got != tc.date {
				t.Errorf("date = %q, want %q", got, tc.date)
			}
		})
	}
}
