package billing

import (
	"fmt"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/arith"
)

// Bounds of line items, as the validate tags of CreateInvoiceInput and
// LineItemInput state them (the tests hold the two equal). They keep every
// computed amount far inside int64: quantity × unit_amount is at most
// 10^18, and anything past MaxAmount is refused before it is summed.
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
)

// bpsPerUnit is 100 % in basis points.
const bpsPerUnit = 10_000

// LineItemInput is one line of CreateInvoiceInput. The server computes
// its amount and tax.
type LineItemInput struct {
	// Description says what is billed; 1..500 characters once trimmed.
	Description string `json:"description" validate:"required,max=500,text"`
	// Quantity is 1..MaxQuantity.
	Quantity int64 `json:"quantity" validate:"min=1,max=1000000"`
	// UnitAmount is 0..MaxUnitAmount minor units.
	UnitAmount int64 `json:"unit_amount" validate:"min=0,max=1000000000000"`
	// TaxRateBps is 0..MaxTaxRateBps basis points (825 = 8.25 %).
	TaxRateBps int `json:"tax_rate_bps" validate:"min=0,max=10000"`
}

// ComputeTotals validates currency and items and computes the invoice's
// lines and sums: each line's amount is quantity × unit_amount, its tax
// amount × tax_rate_bps / 10000 rounded half away from zero (1999 at
// 825 bps is 164.9175, so 165; 333 at 150 bps is 4.995, so 5), subtotal
// and tax sum the lines, and total = subtotal + tax. Everything is exact
// integer arithmetic in minor units. Invalid input (by the rules of
// CreateInvoiceInput), or an amount past MaxAmount, is an *InvalidError
// keyed by JSON path ("currency", "line_items", "line_items[2].quantity").
func ComputeTotals(currency string, items []LineItemInput) (lines []LineItem, subtotal, tax, total int64, err error) {
	in := CreateInvoiceInput{Currency: currency, LineItems: items}.normalize()
	err = onlyOn([]string{"currency", "line_items"}, field.Check(in))
	if err == nil {
		lines, subtotal, tax, total, err = computeTotals(in.LineItems)
	}
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("billing: compute totals: %w", err)
	}
	return lines, subtotal, tax, total, nil
}

// computeTotals does ComputeTotals' work on lines that follow the rules
// of LineItemInput, refusing any amount past MaxAmount.
func computeTotals(items []LineItemInput) (lines []LineItem, subtotal, tax, total int64, err error) {
	f := field.Errors{}
	lines = make([]LineItem, 0, len(items))
	sum := func(a, b int64, what string) int64 {
		s, ok := arith.AddBounded(a, b, MaxAmount)
		if !ok {
			f.Addf("line_items", field.OutOfRange, "the %s must be at most %d", what, MaxAmount)
		}
		return s
	}
	for i, in := range items {
		amount, ok := arith.MulBounded(in.Quantity, in.UnitAmount, MaxAmount)
		if !ok {
			f.Addf(fmt.Sprintf("line_items[%d]", i), field.OutOfRange, "quantity × unit_amount must be at most %d", MaxAmount)
			continue
		}
		lineTax, _ := arith.MulDivRound(amount, int64(in.TaxRateBps), bpsPerUnit) // ≤ amount: fits
		lines = append(lines, LineItem{
			Description: in.Description, Quantity: in.Quantity, UnitAmount: in.UnitAmount,
			TaxRateBps: in.TaxRateBps, Amount: amount,
		})
		subtotal, tax = sum(subtotal, amount, "subtotal"), sum(tax, lineTax, "tax")
	}
	total = sum(subtotal, tax, "total")
	if err := f.Err(); err != nil {
		return nil, 0, 0, 0, err
	}
	return lines, subtotal, tax, total, nil
}
