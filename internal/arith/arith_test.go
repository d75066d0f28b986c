package arith

import (
	"math"
	"testing"
)

func TestMulDivRound(t *testing.T) {
	tests := []struct {
		name    string
		a, b, d int64
		want    int64
		ok      bool
	}{
		{"Exact", 10, 20, 5, 40, true},
		{"BelowHalf", 14, 1, 10, 1, true},
		{"Half", 15, 1, 10, 2, true},
		{"AboveHalf", 16, 1, 10, 2, true},
		{"OddDivisorHalfIsImpossible", 3, 1, 2, 2, true},
		{"Zero", 0, 10000, 10000, 0, true},
		{"Beyond64BitProduct", math.MaxInt64, 10000, 10000, math.MaxInt64, true},
		{"QuotientTooLarge", math.MaxInt64, 2, 1, 0, false},
		{"MaxQuotient", math.MaxInt64, 1, 1, math.MaxInt64, true},
		// (2³²+1)(2³²−1) = 2⁶⁴−1 = 2·MaxInt64 + 1: rounding the half up passes MaxInt64.
		{"RoundingPastMaxInt64", 1<<32 + 1, 1<<32 - 1, 2, 0, false},
		{"Negative", -1, 1, 1, 0, false},
		{"ZeroDivisor", 1, 1, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MulDivRound(tt.a, tt.b, tt.d)
			if got != tt.want || ok != tt.ok {
				t.Errorf("MulDivRound(%d, %d, %d) = %d, %v; want %d, %v", tt.a, tt.b, tt.d, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// maxAmount is billing's bound on an amount (billing.MaxAmount).
const maxAmount = 1_000_000_000_000_000

func TestBoundedArithmetic(t *testing.T) {
	tests := []struct {
		name string
		fn   func() (int64, bool)
		want int64
		ok   bool
	}{
		{"MulFits", func() (int64, bool) { return MulBounded(1000, 1_000_000_000_000, maxAmount) }, maxAmount, true},
		{"MulPastLimit", func() (int64, bool) { return MulBounded(1001, 1_000_000_000_000, maxAmount) }, 0, false},
		{"MulPast64Bits", func() (int64, bool) { return MulBounded(math.MaxInt64, math.MaxInt64, math.MaxInt64) }, 0, false},
		{"MulNegative", func() (int64, bool) { return MulBounded(-2, -3, maxAmount) }, 0, false},
		{"AddFits", func() (int64, bool) { return AddBounded(maxAmount-1, 1, maxAmount) }, maxAmount, true},
		{"AddPastLimit", func() (int64, bool) { return AddBounded(maxAmount, 1, maxAmount) }, 0, false},
		{"AddWouldWrap", func() (int64, bool) { return AddBounded(math.MaxInt64, math.MaxInt64, math.MaxInt64) }, 0, false},
		{"AddNegative", func() (int64, bool) { return AddBounded(5, -1, maxAmount) }, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.fn()
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
