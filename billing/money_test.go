package billing_test

import (
	"math"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

func TestLookupCurrency(t *testing.T) {
	tests := []struct {
		code   string
		digits int
	}{
		{"USD", 2}, {"EUR", 2}, {"GBP", 2}, {"CHF", 2},
		{"JPY", 0}, {"KRW", 0}, {"XAF", 0},
		{"KWD", 3}, {"BHD", 3}, {"OMR", 3}, {"TND", 3},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			cur, err := billing.LookupCurrency(tt.code)
			if err != nil {
				t.Fatalf("LookupCurrency(%q): %v", tt.code, err)
			}
			if cur.Code != tt.code || cur.Digits != tt.digits {
				t.Errorf("got %+v, want %s with %d digits", cur, tt.code, tt.digits)
			}
		})
	}
}

func TestLookupCurrencyInvalid(t *testing.T) {
	tests := []struct{ name, code string }{
		{"Empty", ""},
		{"LowerCase", "usd"},
		{"MixedCase", "Usd"},
		{"TooLong", "USDD"},
		{"TooShort", "US"},
		{"Unknown", "ABC"},
		{"NoCurrency", "XXX"},
		{"Testing", "XTS"},
		{"Gold", "XAU"},
		{"SpecialDrawingRights", "XDR"},
		{"FundCode", "USN"},
		{"NotLetters", "U$D"},
		{"NUL", "US\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := billing.LookupCurrency(tt.code)
			fields := fieldErrors(t, err)
			if _, ok := fields["currency"]; !ok || len(fields) != 1 {
				t.Errorf("got field errors %v, want one on currency", fields)
			}
		})
	}
}

func TestFormatAmount(t *testing.T) {
	tests := []struct {
		amount   int64
		currency string
		want     string
	}{
		{1999, "USD", "19.99"},
		{5, "USD", "0.05"},
		{0, "USD", "0.00"},
		{-5, "USD", "-0.05"},
		{-1999, "USD", "-19.99"},
		{1999, "JPY", "1999"},
		{-7, "JPY", "-7"},
		{1999, "KWD", "1.999"},
		{1, "KWD", "0.001"},
		{math.MaxInt64, "USD", "92233720368547758.07"},
		{math.MinInt64, "USD", "-92233720368547758.08"},
	}
	for _, tt := range tests {
		t.Run(tt.want+"_"+tt.currency, func(t *testing.T) {
			got, err := billing.FormatAmount(tt.amount, tt.currency)
			if err != nil || got != tt.want {
				t.Errorf("FormatAmount(%d, %s) = %q, %v; want %q", tt.amount, tt.currency, got, err, tt.want)
			}
		})
	}
	if _, err := billing.FormatAmount(1, "XTS"); err == nil {
		t.Error("FormatAmount in XTS: want an error")
	}
}
