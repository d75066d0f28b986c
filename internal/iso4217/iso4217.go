// Package iso4217 is ISO 4217 list one — the currencies and funds in use
// today, as published by SIX, the standard's maintenance agency — as a
// table compiled into the program.
//
// The table is generated from a vendored copy of the list (the XML file
// testdata/list-one.xml, taken unchanged from the npm package
// currency-codes, which ships SIX's list_one.xml); Published is the date
// that file carries. To move to a newer list, replace the file with the
// new publication and run, from the repository root:
//
//	go generate ./internal/iso4217
//
// The package's tests compare the generated table with the file.
package iso4217

//go:generate go run gen.go

import (
	"slices"
	"strings"
)

// NoMinorUnit is Currency.MinorUnits for a code whose minor unit list one
// gives as "N.A.": precious metals (XAU), units of account (XDR, XUA),
// bond-market units (XBA…XBD), the testing code XTS and "no currency" XXX.
const NoMinorUnit = -1

// Currency is one code of list one.
type Currency struct {
	// Code is the alphabetic code, three upper-case letters ("USD").
	Code string
	// Numeric is the numeric code (840 for USD; written with three
	// digits, "008" for ALL).
	Numeric int
	// Name is the currency's name in list one ("US Dollar").
	Name string
	// MinorUnits is how many decimal digits the minor unit has: USD 2,
	// JPY 0, KWD 3, CLF 4; NoMinorUnit when list one says "N.A.".
	MinorUnits int
	// Fund marks the fund codes (CLF, USN, UYI, …), which list one lists
	// beside the currencies they belong to.
	Fund bool
}

// HasMinorUnit reports whether list one gives c a minor unit, i.e. whether
// amounts in c can be counted in integer minor units at all.
func (c Currency) HasMinorUnit() bool { return c.MinorUnits != NoMinorUnit }

// Lookup returns the currency with the alphabetic code code, which must be
// upper case as list one writes it, and whether list one has it. A code
// that is not there is unknown or retired (HRK, SLL, MRO, VEF): list one
// holds only what is in use.
func Lookup(code string) (Currency, bool) {
	i, ok := slices.BinarySearchFunc(table[:], code, func(c Currency, code string) int {
		return strings.Compare(c.Code, code)
	})
	if !ok {
		return Currency{}, false
	}
	return table[i], true
}

// All returns every currency of list one in code order, N.A. codes
// included. The slice is the caller's.
func All() []Currency { return slices.Clone(table[:]) }

// Refusal says why code is not a currency amounts can be written in, or
// returns "" when it is: an upper-case code of list one with a minor unit,
// fund codes included (CLF 4, UYI 0, USN 2). The sentence names the rule:
//   - not three letters: "must be a three-letter ISO 4217 currency code
//     such as USD";
//   - a code list one does not have — unknown, or retired (HRK, SLL, MRO,
//     VEF): "… is not an active ISO 4217 currency …";
//   - a code list one gives no minor unit ("N.A."): precious metals (XAU),
//     units of account (XDR), the testing code XTS, no currency XXX;
//   - a code that is not upper case, with a hint ("currency codes are upper
//     case: USD" for "usd").
func Refusal(code string) string {
	if !isLetters(code) {
		return "must be a three-letter ISO 4217 currency code such as USD"
	}
	upper := strings.ToUpper(code)
	refusal := refusalUpper(upper)
	switch {
	case upper == code:
		return refusal
	case refusal == "":
		return "currency codes are upper case: " + upper
	default:
		return "currency codes are upper case, and " + refusal
	}
}

// refusalUpper is Refusal for three upper-case letters.
func refusalUpper(code string) string {
	c, ok := Lookup(code)
	switch {
	case !ok:
		return code + " is not an active ISO 4217 currency (ISO 4217 list one, published " + Published + ")"
	case !c.HasMinorUnit():
		return code + " (" + c.Name + ") has no minor unit in ISO 4217, so no amount can be counted in it"
	}
	return ""
}

// isLetters reports whether s is three ASCII letters, of either case.
func isLetters(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range len(s) {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
