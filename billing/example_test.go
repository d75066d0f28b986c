package billing_test

import (
	"fmt"

	"github.com/tenantkit/tenantkit/billing"
)

func ExampleComputeTotals() {
	lines, subtotal, tax, total, err := billing.ComputeTotals("USD", []billing.LineItemInput{
		{Description: "Consulting", Quantity: 1, UnitAmount: 1999, TaxRateBps: 825}, // tax 164.9175 → 165
		{Description: "Stickers", Quantity: 3, UnitAmount: 111, TaxRateBps: 150},    // tax 4.995 → 5
	})
	if err != nil {
		panic(err)
	}
	for _, l := range lines {
		fmt.Println(l.Description, l.Amount)
	}
	s, _ := billing.FormatAmount(total, "USD")
	fmt.Println(subtotal, tax, total, s)
	// Output:
	// Consulting 1999
	// Stickers 333
	// 2332 170 2502 25.02
}

func ExampleFormatAmount() {
	for _, c := range []string{"USD", "JPY", "KWD"} {
		s, _ := billing.FormatAmount(1999, c)
		fmt.Println(c, s)
	}
	// Output:
	// USD 19.99
	// JPY 1999
	// KWD 1.999
}
