package billing_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
)

// TestLookupCurrency checks codes against ISO 4217 list one, among them
// the 37 on which the earlier, CLDR-based table disagreed with it: 22 minor
// units, 15 active codes it refused (the 4 retired codes it accepted are in
// TestLookupCurrencyRefused).
func TestLookupCurrency(t *testing.T) {
	tests := []struct {
		code   string
		digits int
	}{
		{"USD", 2}, {"EUR", 2}, {"GBP", 2}, {"CHF", 2},
		{"JPY", 0}, {"KRW", 0}, {"XAF", 0},
		{"KWD", 3}, {"BHD", 3}, {"OMR", 3}, {"TND", 3},
		// Minor units that were 0.
		{"IDR", 2}, {"PKR", 2}, {"COP", 2}, {"AFN", 2}, {"ALL", 2}, {"AMD", 2},
		{"GYD", 2}, {"IQD", 3}, {"IRR", 2}, {"KPW", 2}, {"LAK", 2}, {"LBP", 2},
		{"MGA", 2}, {"MMK", 2}, {"MNT", 2}, {"MUR", 2}, {"RSD", 2}, {"SOS", 2},
		{"SYP", 2}, {"TZS", 2}, {"UZS", 2}, {"YER", 2},
		// Active codes that were refused, fund codes among them.
		{"VES", 2}, {"VED", 2}, {"MRU", 2}, {"SLE", 2}, {"ZWG", 2}, {"SVC", 2},
		{"CLF", 4}, {"UYW", 4}, {"UYI", 0}, {"BOV", 2}, {"CHE", 2}, {"CHW", 2},
		{"COU", 2}, {"MXV", 2}, {"USN", 2},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			cur, err := billing.LookupCurrency(tt.code)
			if err != nil {
				t.Fatalf("LookupCurrency(%q): %v", tt.code, err)
			}
			if cur.Code != tt.code || cur.Digits != tt.digits || cur.Name == "" || cur.Numeric == 0 {
				t.Errorf("got %+v, want %s with %d digits, a name and a numeric code", cur, tt.code, tt.digits)
			}
		})
	}
	if cur, _ := billing.LookupCurrency("ALL"); cur.Numeric != 8 || cur.Name != "Lek" {
		t.Errorf("ALL = %+v, want numeric 008, name Lek", cur)
	}
	if _, err := time.Parse(time.DateOnly, billing.CurrencyListPublished); err != nil {
		t.Errorf("CurrencyListPublished = %q, want a date", billing.CurrencyListPublished)
	}
}

// TestLookupCurrencyRefused checks that every refusal is one error on
// "currency" whose message names the rule that refused it.
func TestLookupCurrencyRefused(t *testing.T) {
	retired := "is not an active ISO 4217 currency"
	noUnit := "has no minor unit in ISO 4217, so no amount can be counted in it"
	shape := "must be a three-letter ISO 4217 currency code such as USD"
	tests := []struct{ name, code, want string }{
		{"Empty", "", shape},
		{"TooLong", "USDD", shape},
		{"TooShort", "US", shape},
		{"NotLetters", "U$D", shape},
		{"NUL", "US\x00", shape},
		{"NonASCII", "USĐ", shape},
		{"Unknown", "ABC", "ABC " + retired},
		{"RetiredKuna", "HRK", "HRK " + retired + " (ISO 4217 list one, published " + billing.CurrencyListPublished + ")"},
		{"RetiredLeone", "SLL", "SLL " + retired},
		{"RetiredOuguiya", "MRO", "MRO " + retired},
		{"RetiredBolivarFuerte", "VEF", "VEF " + retired},
		{"NoCurrency", "XXX", "XXX (The codes assigned for transactions where no currency is involved) " + noUnit},
		{"Testing", "XTS", "XTS (Codes specifically reserved for testing purposes) " + noUnit},
		{"Gold", "XAU", "XAU (Gold) " + noUnit},
		{"SpecialDrawingRights", "XDR", "XDR (SDR (Special Drawing Right)) " + noUnit},
		{"LowerCase", "usd", "currency codes are upper case: USD"},
		{"MixedCase", "Jpy", "currency codes are upper case: JPY"},
		{"LowerCaseFund", "clf", "currency codes are upper case: CLF"},
		{"LowerCaseRetired", "hrk", "currency codes are upper case, and HRK " + retired},
		{"LowerCaseNoUnit", "xau", "currency codes are upper case, and XAU (Gold) " + noUnit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := billing.LookupCurrency(tt.code)
			fields := fieldErrors(t, err)
			if len(fields) != 1 || !strings.HasPrefix(fields["currency"], tt.want) {
				t.Errorf("got field errors %q, want one on currency starting %q", fields, tt.want)
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
		{150000, "IDR", "1500.00"},
		{12345, "IQD", "12.345"},
		{12345, "CLF", "1.2345"},
		{7, "UYI", "7"},
	}
	for _, tt := range tests {
		t.Run(tt.want+"_"+tt.currency, func(t *testing.T) {
			got, err := billing.FormatAmount(tt.amount, tt.currency)
			if err != nil || got != tt.want {
				t.Errorf("FormatAmount(%d, %s) = %q, %v; want %q", tt.amount, tt.currency, got, err, tt.want)
			}
		})
	}
	for _, code := range []string{"XTS", "HRK", "usd"} {
		if _, err := billing.FormatAmount(1, code); err == nil {
			t.Errorf("FormatAmount in %s: want an error", code)
		}
	}
}
