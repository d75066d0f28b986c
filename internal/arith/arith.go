// Package arith is the exact integer arithmetic of money: on non-negative
// amounts, reporting instead of wrapping when a result would pass its
// bound, so that an absurd input is refused, never turned into a wrong
// number. Billing totals invoices with it and the contract preview prices
// the platform's charges.
package arith

import (
	"math"
	"math/bits"
)

// MulBounded returns a × b when a, b ≥ 0 and the product is at most limit.
func MulBounded(a, b, limit int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > uint64(limit) {
		return 0, false
	}
	return int64(lo), true
}

// AddBounded returns a + b when a, b ≥ 0 and the sum is at most limit.
func AddBounded(a, b, limit int64) (int64, bool) {
	if a < 0 || b < 0 || a > limit || b > limit-a {
		return 0, false
	}
	return a + b, true
}

// MulDivRound returns a × b / d rounded half away from zero (for these
// non-negative operands: half up), computed exactly in 128 bits, for
// a, b ≥ 0 and d > 0. ok is false when the result does not fit an int64.
func MulDivRound(a, b, d int64) (q int64, ok bool) {
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
