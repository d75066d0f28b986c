package mail

import (
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

// TestSay: a message says its kind's words in the customer's language
// where translated, English otherwise, with money and dates in the
// customer's locale.
func TestSay(t *testing.T) {
	inv := billing.Invoice{Number: "INV-000007", Currency: "EUR", Total: 123456, AmountDue: 123456, AmountPaid: 0,
		DueDate: "2026-12-24", Customer: billing.Customer{Name: "Grete", Locale: "de-AT"}}
	for _, tc := range []struct {
		kind          Kind
		locale        string
		subject, body string
	}{
		{KindInvoice, "de", "Rechnung INV-000007 von Acme", "über 1.234,56\u00a0€ gesendet, fällig am 24.12.2026"},
		// CLDR's Austrian German groups with a space.
		{KindInvoice, "de-AT", "Rechnung INV-000007 von Acme", "über 1\u00a0234,56\u00a0€ gesendet"},
		{KindReminder, "fr", "Rappel : la facture INV-000007 de Acme est en retard", "était due le 24/12/2026"},
		{KindReceipt, "en-US", "Receipt for invoice INV-000007 from Acme", "has received €0.00 for invoice"},
		// Japanese is not translated: English words, Japanese formats.
		{KindInvoice, "ja", "Invoice INV-000007 from Acme", "due on 2026/12/24"},
	} {
		t.Run(string(tc.kind)+"/"+tc.locale, func(t *testing.T) {
			inv := inv
			inv.Customer.Locale = tc.locale
			c := say(tc.kind, inv, "Acme", "https://x.test/pay/t", true)
			if c.Subject != tc.subject {
				t.Errorf("subject %q, want %q", c.Subject, tc.subject)
			}
			if !strings.Contains(c.Body, tc.body) {
				t.Errorf("body %q lacks %q", c.Body, tc.body)
			}
			if c.Link != "https://x.test/pay/t" || c.LinkText == "" || c.Attached == "" {
				t.Errorf("link %q (%q), attached %q", c.Link, c.LinkText, c.Attached)
			}
		})
	}
	if c := say(KindInvoice, inv, "Acme", "", false); c.Link != "" || c.ViewPay != "" || c.Attached != "" {
		t.Errorf("without a link or a PDF: %+v", c)
	}
}

// TestTranslationsComplete: every language says every kind.
func TestTranslationsComplete(t *testing.T) {
	for lang, tx := range translations {
		for _, k := range []Kind{KindInvoice, KindReminder, KindReceipt} {
			if tx.subject[k] == "" || tx.body[k] == "" {
				t.Errorf("%s lacks the %s message", lang, k)
			}
		}
		if tx.hello == "" || tx.viewPay == "" || tx.viewLink == "" || tx.attached == "" || tx.replyHint == "" {
			t.Errorf("%s lacks a phrase", lang)
		}
	}
}
