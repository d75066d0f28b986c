package billing_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

// TestCurrenciesOnDatabase creates invoices in currencies of ISO 4217 list
// one that the earlier table refused or scaled differently, and refuses a
// retired one, on each dialect.
func TestCurrenciesOnDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		ctx := context.Background()
		a := e.mustTenant(t, "acme", nil)
		for _, code := range []string{"IDR", "IQD", "CLF", "UYW", "UYI", "VES", "ZWG", "USN"} {
			in := withTotal(150000)
			in.Currency = code
			inv := mustCreate(t, e.svc, a, in)
			got, err := e.svc.Get(ctx, a, inv.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Currency != code || got.Total != 150000 || got.AmountDue != 150000 {
				t.Errorf("%s invoice read back as %s total %d due %d, want 150000 minor units", code, got.Currency, got.Total, got.AmountDue)
			}
		}
		for _, code := range []string{"HRK", "XAU", "usd"} {
			in := withTotal(100)
			in.Currency = code
			_, err := e.svc.Create(ctx, a, in)
			if msg := fieldErrors(t, err)["currency"]; msg == "" {
				t.Errorf("Create in %s: got %v, want an error on currency", code, err)
			}
		}
	})
}

// TestInvoiceInRetiredCurrencyOnDatabase is an invoice stored while its
// currency was accepted: it is read back unchanged, payments and refunds in
// its currency still apply, one in another currency is a mismatch, a draft
// can still be finalized and voided, and amounts in it cannot be formatted
// with a minor unit any more.
func TestInvoiceInRetiredCurrencyOnDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		ctx := context.Background()
		a := e.mustTenant(t, "acme", nil)
		inv := mustCreate(t, e.svc, a, withTotal(12500))
		if _, err := database.ForTenant(e.db.NewUpdate().Table("invoices"), a).Set("currency = ?", "HRK").Where("id = ?", inv.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}

		got, err := e.svc.Get(ctx, a, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Currency != "HRK" || got.Total != 12500 || got.AmountDue != 12500 {
			t.Fatalf("stored HRK invoice read back as %s total %d due %d", got.Currency, got.Total, got.AmountDue)
		}
		if _, err := e.svc.ApplyPayment(ctx, a, inv.ID, 12500, "EUR"); !errors.Is(err, billing.ErrCurrencyMismatch) {
			t.Errorf("EUR payment on an HRK invoice: got %v, want ErrCurrencyMismatch", err)
		}
		paid, err := e.svc.ApplyPayment(ctx, a, inv.ID, 12500, "HRK")
		if err != nil {
			t.Fatalf("HRK payment on an HRK invoice: %v", err)
		}
		assertMoney(t, paid, billing.StatusPaid, 12500, 0)
		refunded, err := e.svc.ApplyRefund(ctx, a, inv.ID, 500, "HRK")
		if err != nil {
			t.Fatalf("HRK refund on an HRK invoice: %v", err)
		}
		assertMoney(t, refunded, billing.StatusOpen, 12000, 500)

		draft := withTotal(700)
		draft.Status = "draft"
		d := mustCreate(t, e.svc, a, draft)
		if _, err := database.ForTenant(e.db.NewUpdate().Table("invoices"), a).Set("currency = ?", "HRK").Where("id = ?", d.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if open, err := e.svc.Finalize(ctx, a, d.ID); err != nil || open.Currency != "HRK" || open.Total != 700 {
			t.Errorf("finalize a stored HRK draft: %+v, %v; want it open, unchanged", open, err)
		}
		if _, err := e.svc.Void(ctx, a, d.ID); err != nil {
			t.Errorf("void a stored HRK invoice: %v", err)
		}

		_, err = billing.FormatAmount(refunded.AmountDue, refunded.Currency)
		if msg := fieldErrors(t, err)["currency"]; !strings.Contains(msg, "is not an active ISO 4217 currency") {
			t.Errorf("FormatAmount in HRK: %q, want the retired-currency refusal", msg)
		}
	})
}
