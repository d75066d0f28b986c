package billing

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"golang.org/x/text/currency"
)

// Currency is an ISO 4217 currency that invoices may be issued in.
type Currency struct {
	// Code is the upper-case ISO 4217 code, e.g. "USD".
	Code string
	// Digits is how many decimal digits the minor unit has: USD 2 (cents),
	// JPY 0, KWD 3. Amounts are already in minor units, so Digits only
	// matters for showing them (FormatAmount).
	Digits int
}

// LookupCurrency returns the currency with an upper-case ISO 4217 code.
//
// The codes and their minor-unit digits come from golang.org/x/text/currency
// (ISO 4217 with CLDR's digits), and only currencies that are legal tender
// somewhere today are accepted. That refuses the codes that have no minor
// unit of their own — XXX (no currency), XTS (testing), metals such as XAU,
// units of account such as XDR, fund codes such as USN — and retired
// currencies. Anything else is an *InvalidError on "currency".
func LookupCurrency(code string) (Currency, error) {
	if len(code) != 3 || strings.ToUpper(code) != code {
		return Currency{}, invalid("currency", "must be an upper-case ISO 4217 code such as USD")
	}
	unit, err := currency.ParseISO(code)
	if err != nil || unit.String() != code {
		return Currency{}, invalid("currency", "%q is not an ISO 4217 currency code", code)
	}
	if !inUse(unit) {
		return Currency{}, invalid("currency", "%q is not a currency in use as legal tender", code)
	}
	digits, _ := currency.Standard.Rounding(unit)
	return Currency{Code: code, Digits: digits}, nil
}

// inUse reports whether unit is legal tender in some region today. The
// table is small (a few hundred entries) and already in memory, so a scan
// per lookup costs microseconds and keeps the package free of caches.
func inUse(unit currency.Unit) bool {
	for it := currency.Query(); it.Next(); {
		if it.Unit() == unit {
			return true
		}
	}
	return false
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

// The arithmetic below works on non-negative amounts, which is all an
// invoice holds, and reports instead of wrapping when a result would pass
// its bound: an absurd input is refused, never turned into a wrong number.

// mulBounded returns a × b when a, b ≥ 0 and the product is at most limit.
func mulBounded(a, b, limit int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > uint64(limit) {
		return 0, false
	}
	return int64(lo), true
}

// addBounded returns a + b when a, b ≥ 0 and the sum is at most limit.
func addBounded(a, b, limit int64) (int64, bool) {
	if a < 0 || b < 0 || a > limit || b > limit-a {
		return 0, false
	}
	return a + b, true
}

// mulDivRound returns a × b / d rounded half away from zero (for these
// non-negative operands: half up), computed exactly in 128 bits, for
// a, b ≥ 0 and d > 0. ok is false when the result does not fit an int64.
func mulDivRound(a, b, d int64) (q int64, ok bool) {
	if a < 0 || b < 0 || d <= 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(d) {
		return 0, false // the quotient needs more than 64 bits
	}
	uq, r := bits.Div64(hi, lo, uint64(d))
	if r >= uint64(d)-r { // 2r ≥ d: at or past the half
		uq++
	}
	if uq > math.MaxInt64 {
		return 0, false
	}
	return int64(uq), true
}
