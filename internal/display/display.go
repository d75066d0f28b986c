// Package display formats money and dates for people, in their locale,
// with CLDR data (golang.org/x/text): the hosted invoice page, the emails
// to customers and the portal all show amounts the same way.
package display

import (
	"math"
	"strconv"
	"time"

	"golang.org/x/text/currency"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"

	"github.com/tenantkit/tenantkit/internal/iso4217"
)

// minorUnits is how many decimals currency code has (ISO 4217 list one).
func minorUnits(code string) int {
	if c, ok := iso4217.Lookup(code); ok && c.HasMinorUnit() {
		return c.MinorUnits
	}
	return 2
}

// Plain is amount (minor units) as a plain decimal, "19.99": the
// {amount_due} of a payment link, for machines, not people.
func Plain(amount int64, code string) string {
	return number2(amount, minorUnits(code))
}

func number2(amount int64, scale int) string {
	if scale == 0 {
		return formatInt(amount)
	}
	pow := int64(math.Pow10(scale))
	frac := formatInt(amount % pow)
	for len(frac) < scale {
		frac = "0" + frac
	}
	return formatInt(amount/pow) + "." + frac
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

// symbolAfter are the languages that write the currency symbol after the
// number ("12,34 €"); the others write it before ("€12.34").
var symbolAfter = map[string]bool{"de": true, "fr": true, "es": true, "it": true, "pt": true, "pl": true,
	"sv": true, "fi": true, "da": true, "nb": true, "cs": true, "ru": true}

// Money formats amount (minor units of code) for locale with CLDR
// data (golang.org/x/text): the locale's digits, separators and currency
// symbol, the currency's decimals; "1 234,50 $US" in French, "¥1,235" in
// Japanese.
func Money(locale string, amount int64, code string) string {
	tag := language.Make(locale)
	p := message.NewPrinter(tag)
	scale := minorUnits(code)
	num := p.Sprint(number.Decimal(float64(amount)/math.Pow10(scale), number.Scale(scale)))
	sym := code
	if unit, err := currency.ParseISO(code); err == nil {
		sym = p.Sprint(currency.Symbol(unit))
	}
	if base, _ := tag.Base(); symbolAfter[base.String()] {
		return num + "\u00a0" + sym
	}
	return sym + num
}

// dateLayouts are the CLDR short date patterns of the languages the page
// knows, as Go layouts; others show the ISO date.
var dateLayouts = map[string]string{"en": "1/2/2006", "de": "02.01.2006", "fr": "02/01/2006", "ja": "2006/01/02",
	"es": "2/1/2006", "it": "2/1/2006", "nl": "2-1-2006", "pt": "02/01/2006"}

// Date formats a "YYYY-MM-DD" date for locale; "" stays "".
func Date(locale, date string) string {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	tag := language.Make(locale)
	if tag == language.BritishEnglish {
		return d.Format("02/01/2006")
	}
	base, _ := tag.Base()
	if layout, ok := dateLayouts[base.String()]; ok {
		return d.Format(layout)
	}
	return date
}

// Count formats a whole number for locale: "1,234" in English, "1.234"
// in German.
func Count(locale string, n int64) string {
	return message.NewPrinter(language.Make(locale)).Sprint(number.Decimal(n))
}
