package billing

import (
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/arith"
)

// Bounds of line items. They keep every computed amount far inside int64:
// quantity × unit_amount is at most 10^18, and anything past MaxAmount is
// refused before it is summed.
const (
	// MaxLineItems is the most lines one invoice may have.
	MaxLineItems = 100
	// MaxQuantity is the largest quantity of a line (the smallest is 1).
	MaxQuantity = 1_000_000
	// MaxUnitAmount is the largest unit_amount of a line, in minor units
	// (the smallest is 0).
	MaxUnitAmount = 1_000_000_000_000
	// MaxTaxRateBps is the largest tax rate, 100 % (the smallest is 0).
	MaxTaxRateBps = 10_000
	// MaxAmount bounds every computed amount — a line's amount, the
	// subtotal, the tax, the total — and every single payment or refund,
	// in minor units: 10^15, ten trillion dollars in cents.
	MaxAmount = 1_000_000_000_000_000
	// MaxDescriptionLen is the longest line description, in characters.
	MaxDescriptionLen = 500
)

// bpsPerUnit is 100 % in basis points.
const bpsPerUnit = 10_000

// LineItemInput is one line of CreateInvoiceInput. The server computes
// its amount and tax.
type LineItemInput struct {
	// Description says what is billed; 1..MaxDescriptionLen characters.
	Description string `json:"description"`
	// Quantity is 1..MaxQuantity.
	Quantity int64 `json:"quantity"`
	// UnitAmount is 0..MaxUnitAmount minor units.
	UnitAmount int64 `json:"unit_amount"`
	// TaxRateBps is 0..MaxTaxRateBps basis points (825 = 8.25 %).
	TaxRateBps int `json:"tax_rate_bps"`
}

// ComputeTotals validates currency and items and computes the invoice's
// lines and sums: each line's amount is quantity × unit_amount, its tax
// amount × tax_rate_bps / 10000 rounded half away from zero (1999 at
// 825 bps is 164.9175, so 165; 333 at 150 bps is 4.995, so 5), subtotal
// and tax sum the lines, and total = subtotal + tax. Everything is exact
// integer arithmetic in minor units. Invalid input, or an amount past
// MaxAmount, is an *InvalidError keyed by JSON path ("currency",
// "line_items", "line_items[2].quantity").
func ComputeTotals(currency string, items []LineItemInput) (lines []LineItem, subtotal, tax, total int64, err error) {
	f := field.Errors{}
	checkCurrency(f, currency)
	lines, subtotal, tax, total = computeTotals(f, items)
	if err := f.Err(); err != nil {
		return nil, 0, 0, 0, fmt.Errorf("billing: compute totals: %w", err)
	}
	return lines, subtotal, tax, total, nil
}

// computeTotals does ComputeTotals' work on the lines, adding what is wrong
// to f. Its results are meaningful only when f stays empty.
func computeTotals(f field.Errors, items []LineItemInput) (lines []LineItem, subtotal, tax, total int64) {
	switch {
	case len(items) == 0:
		f.Add("line_items", field.Required, "at least one line item is required")
		return nil, 0, 0, 0
	case len(items) > MaxLineItems:
		f.Addf("line_items", field.TooMany, "must have at most %d items", MaxLineItems)
		return nil, 0, 0, 0
	}
	lines = make([]LineItem, 0, len(items))
	for i, in := range items {
		path := fmt.Sprintf("line_items[%d]", i)
		ok := true
		desc := strings.TrimSpace(in.Description)
		if code, msg := field.Text(desc, true, MaxDescriptionLen); code != "" {
			f.Add(path+".description", code, msg)
			ok = false
		}
		if in.Quantity < 1 || in.Quantity > MaxQuantity {
			f.OutOfRange(path+".quantity", 1, MaxQuantity)
			ok = false
		}
		if in.UnitAmount < 0 || in.UnitAmount > MaxUnitAmount {
			f.OutOfRange(path+".unit_amount", 0, MaxUnitAmount)
			ok = false
		}
		if in.TaxRateBps < 0 || in.TaxRateBps > MaxTaxRateBps {
			f.OutOfRange(path+".tax_rate_bps", 0, MaxTaxRateBps)
			ok = false
		}
		if !ok {
			continue
		}
		amount, ok := arith.MulBounded(in.Quantity, in.UnitAmount, MaxAmount)
		if !ok {
			f.Addf(path, field.OutOfRange, "quantity × unit_amount must be at most %d", MaxAmount)
			continue
		}
		lineTax, _ := arith.MulDivRound(amount, int64(in.TaxRateBps), bpsPerUnit) // ≤ amount: fits
		lines = append(lines, LineItem{
			Description: desc, Quantity: in.Quantity, UnitAmount: in.UnitAmount,
			TaxRateBps: in.TaxRateBps, Amount: amount,
		})
		if subtotal, ok = arith.AddBounded(subtotal, amount, MaxAmount); !ok {
			f.Addf("line_items", field.OutOfRange, "the subtotal must be at most %d", MaxAmount)
			return nil, 0, 0, 0
		}
		if tax, ok = arith.AddBounded(tax, lineTax, MaxAmount); !ok {
			f.Addf("line_items", field.OutOfRange, "the tax must be at most %d", MaxAmount)
			return nil, 0, 0, 0
		}
	}
	total, ok := arith.AddBounded(subtotal, tax, MaxAmount)
	if !ok {
		f.Addf("line_items", field.OutOfRange, "the total must be at most %d", MaxAmount)
		return nil, 0, 0, 0
	}
	return lines, subtotal, tax, total
}
