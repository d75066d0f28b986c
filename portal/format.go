package portal

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/tenantkit/tenantkit/internal/display"
)

// defaultLocale is the locale of a browser that names none the portal
// can read.
const defaultLocale = "en"

// maxAcceptLanguage bounds the Accept-Language header the portal parses:
// a longer one is not a browser's and is ignored.
const maxAcceptLanguage = 256

// localeOf is the locale the pages format money, numbers and dates in:
// the browser's first choice (Accept-Language), as Stripe's and Lago's
// dashboards do, else English. The words stay English.
func localeOf(r *http.Request) string {
	h := r.Header.Get("Accept-Language")
	if h == "" || len(h) > maxAcceptLanguage {
		return defaultLocale
	}
	tags, _, err := language.ParseAcceptLanguage(h)
	if err != nil || len(tags) == 0 {
		return defaultLocale
	}
	if base, conf := tags[0].Base(); conf == language.No || base.String() == "mul" || base.String() == "und" {
		return defaultLocale // "*" or nothing the CLDR data knows
	}
	return tags[0].String()
}

// money shows minor units of currency for locale with the shared
// formatter ("$1,200.00" in English, "1.200,00 €" in German), never a
// hand-made "1200.00 USD".
func money(locale string, amount int64, currency string) string {
	return display.Money(orDefault(locale), amount, currency)
}

// orDefault is locale, or defaultLocale when none is given.
func orDefault(locale string) string {
	if locale == "" {
		return defaultLocale
	}
	return locale
}

// dateOnly shows a "YYYY-MM-DD" date for locale ("11/29/2026" in US
// English); "" stays "".
func dateOnly(locale, date string) string { return display.Date(orDefault(locale), date) }

// day shows the UTC calendar day of t for locale.
func day(locale string, t time.Time) string {
	return display.Date(orDefault(locale), t.UTC().Format(time.DateOnly))
}

// dateTime shows t to the minute with its time zone, which is always
// UTC: the server's, and the one the API's timestamps are in.
func dateTime(locale string, t time.Time) string {
	return day(locale, t) + " " + t.UTC().Format("15:04") + " UTC"
}

// count shows a whole number (any integer type) for locale ("1,234").
func count(locale string, n any) string {
	locale = orDefault(locale)
	switch n := n.(type) {
	case int:
		return display.Count(locale, int64(n))
	case int64:
		return display.Count(locale, n)
	case int32:
		return display.Count(locale, int64(n))
	}
	return fmt.Sprint(n)
}

// dayBefore is the last day of a period whose end is exclusive (a
// billing period ends at 00:00 of the next one).
func dayBefore(t time.Time) time.Time { return t.Add(-time.Nanosecond) }

// badge is the CSS class of a status badge: one colour per status, the
// same word for the same state everywhere ("status-open",
// "status-paid"). Unknown statuses get the neutral badge.
func badge(status any) string {
	s := strings.ToLower(fmt.Sprint(status))
	switch s {
	case "draft", "open", "paid", "void", "uncollectible", "overdue",
		"pending", "on_hold", "solved", "closed",
		"queued", "sent", "failed", "succeeded",
		"approved", "rejected", "cancelled", "applied", "submitted",
		"payment", "refund", "enabled", "disabled", "on", "off", "breached", "at_risk":
		return "status status-" + strings.ReplaceAll(s, "_", "-")
	}
	return "status"
}

// statusText is a status as people read it ("on_hold" → "on hold").
func statusText(status any) string { return strings.ReplaceAll(fmt.Sprint(status), "_", " ") }

// moneyList formats sums in several currencies, one string each; none
// is "0" in the locale's digits.
func moneyList(locale string, list []amount) []string {
	if len(list) == 0 {
		return []string{count(locale, int64(0))}
	}
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = money(locale, a.Amount, a.Currency)
	}
	return out
}
