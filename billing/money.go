package billing

import (
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/internal/iso4217"
)

// CurrencyListPublished is the publication date (YYYY-MM-DD) of the ISO
// 4217 list one that decides which currencies LookupCurrency accepts and
// their minor units.
const CurrencyListPublished = iso4217.Published

// Currency is an ISO 4217 currency that invoices may be issued in.
type Currency struct {
	// Code is the upper-case ISO 4217 code, e.g. "USD".
	Code string
	// Digits is how many decimal digits the minor unit has, per ISO 4217:
	// USD 2 (cents), JPY 0, KWD 3, CLF 4. Amounts are already in minor
	// units, so Digits only matters for showing them (FormatAmount).
	Digits int
	// Numeric is the ISO 4217 numeric code (840 for USD).
	Numeric int
	// Name is the currency's ISO 4217 name ("US Dollar").
	Name string
}

// LookupCurrency returns the currency with an upper-case ISO 4217 code.
//
// ISO 4217 list one, as published on CurrencyListPublished, decides: a
// code it lists with a minor unit is accepted with that unit's digits,
// fund codes included (CLF 4, UYI 0, USN 2). Refused, as an *InvalidError
// on "currency" whose message names the rule:
//   - a code list one does not have — unknown, or retired (HRK, SLL, MRO,
//     VEF): "not an active ISO 4217 currency";
//   - a code list one gives no minor unit ("N.A."): precious metals (XAU),
//     units of account (XDR), the testing code XTS, no currency XXX;
//   - a code that is not upper case, with a hint ("currency codes are
//     upper case: USD" for "usd").
func LookupCurrency(code string) (Currency, error) {
	if refusal := iso4217.Refusal(code); refusal != "" {
		return Currency{}, invalid("currency", "%s", refusal)
	}
	c, _ := iso4217.Lookup(code)
	return Currency{Code: c.Code, Digits: c.MinorUnits, Numeric: c.Numeric, Name: c.Name}, nil
}

// FormatAmount writes an amount of minor units as a decimal number in its
// currency's major unit, for people: 1999 USD → "19.99", 1999 JPY → "1999",
// 1999 KWD → "1.999", -5 USD → "-0.05".
func FormatAmount(amount int64, code string) (string, error) {
	cur, err := LookupCurrency(code)
	if err != nil {
		return "", err
	}
	neg := amount < 0
	var u uint64
	if neg {
		u = uint64(-(amount + 1)) + 1 // no overflow for math.MinInt64
	} else {
		u = uint64(amount)
	}
	s := strconv.FormatUint(u, 10)
	if cur.Digits > 0 {
		if len(s) <= cur.Digits {
			s = strings.Repeat("0", cur.Digits-len(s)+1) + s
		}
		s = s[:len(s)-cur.Digits] + "." + s[len(s)-cur.Digits:]
	}
	if neg {
		s = "-" + s
	}
	return s, nil
}
