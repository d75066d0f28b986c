package billing_test

import (
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

func TestComputeTotals(t *testing.T) {
	line := func(q, unit int64, bps int) billing.LineItemInput {
		return billing.LineItemInput{Description: "Line", Quantity: q, UnitAmount: unit, TaxRateBps: bps}
	}
	tests := []struct {
		name                 string
		currency             string
		items                []billing.LineItemInput
		amounts              []int64
		subtotal, tax, total int64
	}{
		{"RoundsUp", "USD", []billing.LineItemInput{line(1, 1999, 825)}, []int64{1999}, 1999, 165, 2164},   // 164.9175
		{"HalfAwayFromZero", "USD", []billing.LineItemInput{line(1, 333, 150)}, []int64{333}, 333, 5, 338}, // 4.995
		{"ExactHalf", "USD", []billing.LineItemInput{line(1, 100, 50)}, []int64{100}, 100, 1, 101},         // 0.5
		{"RoundsDown", "USD", []billing.LineItemInput{line(1, 1001, 1)}, []int64{1001}, 1001, 0, 1001},     // 0.1001
		{"JustBelowHalf", "USD", []billing.LineItemInput{line(1, 4999, 1)}, []int64{4999}, 4999, 0, 4999},  // 0.4999
		{"NoTax", "USD", []billing.LineItemInput{line(3, 1000, 0)}, []int64{3000}, 3000, 0, 3000},
		{"FullTax", "USD", []billing.LineItemInput{line(2, 50, 10000)}, []int64{100}, 100, 100, 200},
		{"FreeLine", "USD", []billing.LineItemInput{line(5, 0, 2000)}, []int64{0}, 0, 0, 0},
		{"PerLineRounding", "USD", // two lines of 0.5 tax each: 1 + 1, not round(1.0)
			[]billing.LineItemInput{line(1, 100, 50), line(1, 100, 50)}, []int64{100, 100}, 200, 2, 202},
		{"Quantity", "USD", []billing.LineItemInput{line(7, 1999, 825)}, []int64{13993}, 13993, 1154, 15147}, // 1154.4225
		{"JPY", "JPY", []billing.LineItemInput{line(3, 1500, 1000)}, []int64{4500}, 4500, 450, 4950},
		{"KWD", "KWD", []billing.LineItemInput{line(1, 12345, 500)}, []int64{12345}, 12345, 617, 12962}, // 617.25
		{"Largest", "USD", []billing.LineItemInput{line(1000, billing.MaxUnitAmount, 0)},
			[]int64{billing.MaxAmount}, billing.MaxAmount, 0, billing.MaxAmount},
		{"LargestTaxed", "USD", []billing.LineItemInput{line(1, 999_999_999_999, 1)},
			[]int64{999_999_999_999}, 999_999_999_999, 100_000_000, 1_000_099_999_999}, // 99999999.9999
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, subtotal, tax, total, err := billing.ComputeTotals(tt.currency, tt.items)
			if err != nil {
				t.Fatalf("ComputeTotals: %v", err)
			}
			if subtotal != tt.subtotal || tax != tt.tax || total != tt.total {
				t.Errorf("got subtotal %d tax %d total %d, want %d %d %d", subtotal, tax, total, tt.subtotal, tt.tax, tt.total)
			}
			if len(lines) != len(tt.amounts) {
				t.Fatalf("got %d lines, want %d", len(lines), len(tt.amounts))
			}
			for i, l := range lines {
				in := tt.items[i]
				if l.Amount != tt.amounts[i] || l.Quantity != in.Quantity || l.UnitAmount != in.UnitAmount ||
					l.TaxRateBps != in.TaxRateBps || l.Description != in.Description {
					t.Errorf("line %d = %+v, want amount %d from %+v", i, l, tt.amounts[i], in)
				}
			}
		})
	}
}

func TestComputeTotalsInvalid(t *testing.T) {
	line := func(q, unit int64, bps int) billing.LineItemInput {
		return billing.LineItemInput{Description: "Line", Quantity: q, UnitAmount: unit, TaxRateBps: bps}
	}
	many := func(n int, item billing.LineItemInput) []billing.LineItemInput {
		out := make([]billing.LineItemInput, n)
		for i := range out {
			out[i] = item
		}
		return out
	}
	tests := []struct {
		name     string
		currency string
		items    []billing.LineItemInput
		field    string
	}{
		{"NoLines", "USD", nil, "line_items"},
		{"TooManyLines", "USD", many(billing.MaxLineItems+1, line(1, 1, 0)), "line_items"},
		{"QuantityZero", "USD", []billing.LineItemInput{line(0, 100, 0)}, "line_items[0].quantity"},
		{"QuantityNegative", "USD", []billing.LineItemInput{line(1, 1, 0), line(-1, 100, 0)}, "line_items[1].quantity"},
		{"QuantityTooLarge", "USD", []billing.LineItemInput{line(billing.MaxQuantity+1, 1, 0)}, "line_items[0].quantity"},
		{"UnitAmountNegative", "USD", []billing.LineItemInput{line(1, -1, 0)}, "line_items[0].unit_amount"},
		{"UnitAmountTooLarge", "USD", []billing.LineItemInput{line(1, billing.MaxUnitAmount+1, 0)}, "line_items[0].unit_amount"},
		{"UnitAmountAbsurd", "USD", []billing.LineItemInput{line(1, 1<<62, 0)}, "line_items[0].unit_amount"},
		{"TaxNegative", "USD", []billing.LineItemInput{line(1, 1, -1)}, "line_items[0].tax_rate_bps"},
		{"TaxOver100Percent", "USD", []billing.LineItemInput{line(1, 1, 10001)}, "line_items[0].tax_rate_bps"},
		{"DescriptionMissing", "USD", []billing.LineItemInput{{Quantity: 1, UnitAmount: 1}}, "line_items[0].description"},
		{"DescriptionBlank", "USD", []billing.LineItemInput{{Description: " \t ", Quantity: 1, UnitAmount: 1}}, "line_items[0].description"},
		{"LineOverflow", "USD", []billing.LineItemInput{line(billing.MaxQuantity, billing.MaxUnitAmount, 0)}, "line_items[0]"},
		{"SubtotalOverflow", "USD", many(2, line(1000, billing.MaxUnitAmount, 0)), "line_items"},
		{"TotalOverflow", "USD", []billing.LineItemInput{line(1000, billing.MaxUnitAmount, 1)}, "line_items"},
		{"ManyLargeLines", "USD", many(billing.MaxLineItems, line(billing.MaxQuantity, billing.MaxUnitAmount, billing.MaxTaxRateBps)), "line_items[0]"},
		{"UnknownCurrency", "ABC", []billing.LineItemInput{line(1, 1, 0)}, "currency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, subtotal, tax, total, err := billing.ComputeTotals(tt.currency, tt.items)
			fields := fieldErrors(t, err)
			if _, ok := fields[tt.field]; !ok {
				t.Errorf("got field errors %v, want one on %q", fields, tt.field)
			}
			if lines != nil || subtotal != 0 || tax != 0 || total != 0 {
				t.Errorf("got results %v %d %d %d alongside an error", lines, subtotal, tax, total)
			}
		})
	}
}
