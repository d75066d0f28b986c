package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook"
)

// TestInvoiceCurrencyISO4217 creates invoices in the codes on which the
// earlier, CLDR-based table disagreed with ISO 4217 list one: each is
// accepted, and its amounts are stored as sent, in minor units.
func TestInvoiceCurrencyISO4217(t *testing.T) {
	codes := []string{
		"IDR", "PKR", "COP", "AFN", "ALL", "AMD", "GYD", "IQD", "IRR", "KPW", "LAK", "LBP",
		"MGA", "MMK", "MNT", "MUR", "RSD", "SOS", "SYP", "TZS", "UZS", "YER",
		"VES", "VED", "MRU", "SLE", "ZWG", "SVC", "CLF", "UYW", "UYI", "BOV", "CHE", "CHW",
		"COU", "MXV", "USN",
	}
	eachEnv(t, func(t *testing.T, e *env) {
		for _, code := range codes {
			t.Run(code, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
					body: invoiceBody(code, `{"description":"Plan","quantity":2,"unit_amount":150000,"tax_rate_bps":1000}`)})
				if r.status != http.StatusCreated {
					t.Fatalf("create in %s: %d %s", code, r.status, r.body)
				}
				inv := r.json(t)
				if inv["currency"] != code || inv["subtotal"] != 300000.0 || inv["tax"] != 30000.0 || inv["total"] != 330000.0 {
					t.Errorf("invoice in %s = currency %v subtotal %v tax %v total %v, want 300000 + 30000 = 330000 minor units",
						code, inv["currency"], inv["subtotal"], inv["tax"], inv["total"])
				}
			})
		}
	})
}

// TestInvoiceCurrencyRefused checks that a refused currency is a 422 whose
// error on "currency" names the rule, and that nothing is created.
func TestInvoiceCurrencyRefused(t *testing.T) {
	retired := "is not an active ISO 4217 currency (ISO 4217 list one, published " + billing.CurrencyListPublished + ")"
	noUnit := "has no minor unit in ISO 4217, so no amount can be counted in it"
	tests := []struct{ name, code, want string }{
		{"RetiredKuna", "HRK", "HRK " + retired},
		{"RetiredLeone", "SLL", "SLL " + retired},
		{"RetiredOuguiya", "MRO", "MRO " + retired},
		{"RetiredBolivarFuerte", "VEF", "VEF " + retired},
		{"Unknown", "ABC", "ABC " + retired},
		{"Gold", "XAU", "XAU (Gold) " + noUnit},
		{"Testing", "XTS", "XTS (Codes specifically reserved for testing purposes) " + noUnit},
		{"NoCurrency", "XXX", "XXX (The codes assigned for transactions where no currency is involved) " + noUnit},
		{"SpecialDrawingRights", "XDR", "XDR (SDR (Special Drawing Right)) " + noUnit},
		{"LowerCase", "usd", "currency codes are upper case: USD"},
		{"MixedCase", "Eur", "currency codes are upper case: EUR"},
		{"LowerCaseFund", "clf", "currency codes are upper case: CLF"},
		{"LowerCaseRetired", "hrk", "currency codes are upper case, and HRK " + retired},
		{"NotACode", "US$", "currency must be a three-letter ISO 4217 currency code such as USD"},
		{"Missing", "", "currency is required"},
	}
	eachEnv(t, func(t *testing.T, e *env) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
					body: invoiceBody(tt.code, `{"description":"Plan","quantity":1,"unit_amount":100}`)})
				wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
				errs, _ := r.json(t)["errors"].([]any)
				if len(errs) != 1 {
					t.Fatalf("errors = %v, want one on currency", errs)
				}
				fe := errs[0].(map[string]any)
				if fe["field"] != "currency" || fe["message"] != tt.want {
					t.Errorf("error = %v, want on currency: %q", fe, tt.want)
				}
			})
		}
		list := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices", bearer: e.keyBob}).json(t)
		if n := len(list["data"].([]any)); n != 0 {
			t.Fatalf("refused currencies created %d invoices", n)
		}
	})
}

// TestInvoiceInRetiredCurrency is an invoice stored while its currency was
// accepted (HRK, retired when Croatia adopted the euro): it stays readable
// with its amounts unchanged, the provider's payment in its currency is
// applied, and a new invoice in that currency is refused.
func TestInvoiceInRetiredCurrency(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		id := e.mustCreateInvoice(t, 12500)
		if _, err := database.ForTenant(e.db.NewUpdate().Table("invoices").Set("currency = ?", "HRK"), e.acme.ID).Where("id = ?", id).
			Exec(context.Background()); err != nil {
			t.Fatal(err)
		}

		r := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + id, bearer: e.keyBob})
		if r.status != http.StatusOK {
			t.Fatalf("get: %d %s", r.status, r.body)
		}
		if inv := r.json(t); inv["currency"] != "HRK" || inv["total"] != 12500.0 || inv["amount_due"] != 12500.0 {
			t.Fatalf("stored HRK invoice = %s, want it unchanged", r.body)
		}

		wantAck(t, e.deliver(t, paymentEvent(newEventID(), webhook.TypePaymentSucceeded, id, 12500, "EUR")), false, "unmatched")
		wantAck(t, e.deliver(t, paymentEvent(newEventID(), webhook.TypePaymentSucceeded, id, 12500, "HRK")), false, "applied")
		if got := e.invoiceState(t, id); got != (invoiceState{paid: 12500, due: 0, status: "paid"}) {
			t.Errorf("after the HRK payment: %+v, want paid in full", got)
		}
		n := e.do(t, request{method: "GET", path: "/api/tenant/notifications", bearer: e.keyBob})
		if want := "A payment of 12500 (minor units) HRK was received"; !strings.Contains(string(n.body), want) {
			t.Errorf("notifications %s, want one saying %q", n.body, want)
		}

		r = e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
			body: invoiceBody("HRK", fmt.Sprintf(`{"description":"Plan","quantity":1,"unit_amount":%d}`, 12500))})
		wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
	})
}

// TestPaymentNotificationISODigits checks that amounts are shown with ISO
// 4217's minor unit: 150000 IDR is 1500.00 rupiah (CLDR's table, used
// before, showed 150000), IQD has 3 digits and CLF 4.
func TestPaymentNotificationISODigits(t *testing.T) {
	tests := []struct{ code, want string }{
		{"IDR", "A payment of 1500.00 IDR was received"},
		{"IQD", "A payment of 150.000 IQD was received"},
		{"CLF", "A payment of 15.0000 CLF was received"},
		{"UYI", "A payment of 150000 UYI was received"},
	}
	eachEnv(t, func(t *testing.T, e *env) {
		for _, tt := range tests {
			t.Run(tt.code, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
					body: invoiceBody(tt.code, `{"description":"Plan","quantity":1,"unit_amount":150000}`)})
				if r.status != http.StatusCreated {
					t.Fatalf("create in %s: %d %s", tt.code, r.status, r.body)
				}
				id := r.json(t)["id"].(string)
				wantAck(t, e.deliver(t, paymentEvent(newEventID(), webhook.TypePaymentSucceeded, id, 150000, tt.code)), false, "applied")
				n := e.do(t, request{method: "GET", path: "/api/tenant/notifications?limit=100", bearer: e.keyBob})
				if !strings.Contains(string(n.body), tt.want) {
					t.Errorf("notifications %s, want one saying %q", n.body, tt.want)
				}
			})
		}
	})
}
