package billingtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// newDraft returns a valid unnumbered draft of tenantID, created n minutes
// after base.
func newDraft(tenantID string, n int64) billing.Invoice {
	inv := newInvoice(tenantID, n)
	inv.Number, inv.Status, inv.FinalizedAt = "", billing.StatusDraft, nil
	return inv
}

// testUnnumberedDrafts checks that drafts without a number are stored as
// such, any number of them per tenant, beside numbered invoices.
func testUnnumberedDrafts(t *testing.T, s billing.Store) {
	var drafts []billing.Invoice
	for n := int64(1); n <= 3; n++ {
		drafts = append(drafts, mustCreate(t, s, newDraft(TenantA, n)))
	}
	numbered := mustCreate(t, s, newInvoice(TenantA, 1))
	for _, d := range drafts {
		got := mustGet(t, s, TenantA, d.ID)
		assertSame(t, got, d)
		if got.Number != "" {
			t.Errorf("draft %s has number %q, want none", d.ID, got.Number)
		}
	}
	page, _, err := s.ListInvoices(context.Background(), TenantA, billing.ListFilter{Limit: 10, Status: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	assertPage(t, "drafts", page, false, []billing.Invoice{drafts[2], drafts[1], drafts[0]}, false)
	assertSame(t, mustGet(t, s, TenantA, numbered.ID), numbered)
}

// testSave checks SaveInvoice: it writes everything a draft's edit and its
// finalization change, and nothing else.
func testSave(t *testing.T, s billing.Store) {
	ctx := context.Background()
	t.Run("EditDraft", func(t *testing.T) {
		orig := mustCreate(t, s, newDraft(TenantA, 1))
		want := orig
		want.Customer = billing.Customer{Name: "Zoë O'Brien", Email: "zoe@example.com"}
		want.LineItems = []billing.LineItem{
			{Description: "Audit", Quantity: 3, UnitAmount: 5000, TaxRateBps: 1000, Amount: 15000},
			{Description: "Travel", Quantity: 1, UnitAmount: 1234, Amount: 1234},
		}
		want.Subtotal, want.Tax, want.Total, want.AmountDue = 16234, 1500, 17734, 17734
		want.DueDate, want.Memo = "2027-01-31", "Net 30 — ✓"
		want.Metadata = map[string]string{"po": "PO-7", "ключ": ""}
		changed := want
		changed.Currency, changed.CreatedAt = "EUR", orig.CreatedAt.Add(time.Hour) // never written
		if err := s.SaveInvoice(ctx, changed); err != nil {
			t.Fatalf("SaveInvoice: %v", err)
		}
		assertSame(t, mustGet(t, s, TenantA, orig.ID), want)

		// Cleared again: no due date, no memo, no metadata.
		want.DueDate, want.Memo, want.Metadata = "", "", map[string]string{}
		if err := s.SaveInvoice(ctx, want); err != nil {
			t.Fatalf("SaveInvoice: %v", err)
		}
		assertSame(t, mustGet(t, s, TenantA, orig.ID), want)
	})
	t.Run("Finalize", func(t *testing.T) {
		orig := mustCreate(t, s, newDraft(TenantB, 2))
		want := orig
		finalized := orig.CreatedAt.Add(time.Minute)
		want.Number, want.Status, want.FinalizedAt = billing.FormatNumber(7), billing.StatusOpen, &finalized
		if err := s.SaveInvoice(ctx, want); err != nil {
			t.Fatalf("SaveInvoice: %v", err)
		}
		assertSame(t, mustGet(t, s, TenantB, orig.ID), want)
	})
	t.Run("ErrConflictNumberTaken", func(t *testing.T) {
		taken := mustCreate(t, s, newInvoice(TenantA, 9))
		draft := mustCreate(t, s, newDraft(TenantA, 3))
		numbered := draft
		numbered.Number, numbered.Status = taken.Number, billing.StatusOpen
		assertErr(t, "SaveInvoice with a taken number", s.SaveInvoice(ctx, numbered), billing.ErrConflict)
		assertSame(t, mustGet(t, s, TenantA, draft.ID), draft)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		assertErr(t, "SaveInvoice(missing)", s.SaveInvoice(ctx, newDraft(TenantA, 4)), billing.ErrNotFound)
		theirs := mustCreate(t, s, newDraft(TenantA, 5))
		hijack := theirs
		hijack.TenantID, hijack.Memo = TenantB, "hijacked"
		assertErr(t, "B saves A's invoice", s.SaveInvoice(ctx, hijack), billing.ErrNotFound)
		assertSame(t, mustGet(t, s, TenantA, theirs.ID), theirs)
	})
}

// testDelete checks DeleteInvoice, within one tenant and across two.
func testDelete(t *testing.T, s billing.Store) {
	ctx := context.Background()
	a := mustCreate(t, s, newDraft(TenantA, 1))
	b := mustCreate(t, s, newDraft(TenantB, 1))
	keep := mustCreate(t, s, newDraft(TenantA, 2))

	assertErr(t, "B deletes A's invoice", s.DeleteInvoice(ctx, TenantB, a.ID), billing.ErrNotFound)
	assertSame(t, mustGet(t, s, TenantA, a.ID), a)

	if err := s.DeleteInvoice(ctx, TenantA, a.ID); err != nil {
		t.Fatalf("DeleteInvoice: %v", err)
	}
	_, err := s.Invoice(ctx, TenantA, a.ID)
	assertErr(t, "Invoice after delete", err, billing.ErrNotFound)
	assertErr(t, "DeleteInvoice twice", s.DeleteInvoice(ctx, TenantA, a.ID), billing.ErrNotFound)
	assertErr(t, "DeleteInvoice(missing)", s.DeleteInvoice(ctx, TenantA, id.New(id.Invoice)), billing.ErrNotFound)

	assertSame(t, mustGet(t, s, TenantA, keep.ID), keep)
	assertSame(t, mustGet(t, s, TenantB, b.ID), b)
	page, more, err := s.ListInvoices(ctx, TenantA, billing.ListFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	assertPage(t, "after delete", page, more, []billing.Invoice{keep}, false)
}

// RunPayments checks a PaymentStore implementation together with the
// Store whose invoices its entries belong to. newStores must return new,
// empty stores on every call, in which TenantA and TenantB exist.
func RunPayments(t *testing.T, newStores func(t *testing.T) (billing.Store, billing.PaymentStore)) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s billing.Store, p billing.PaymentStore)
	}{
		{"AddAndList", testPaymentsAddAndList},
		{"Conflict", testPaymentsConflict},
		{"NotFound", testPaymentsNotFound},
		{"Isolation", testPaymentsIsolation},
	}
	for _, tt := range tests {
		t.Run("Payments"+tt.name, func(t *testing.T) {
			s, p := newStores(t)
			tt.fn(t, s, p)
		})
	}
}

// newPayment returns a valid ledger entry of inv, the nth of the suite.
func newPayment(inv billing.Invoice, n int) billing.Payment {
	at := base().Add(time.Duration(n) * time.Hour)
	p := billing.Payment{
		ID: id.New(id.Payment), TenantID: inv.TenantID, InvoiceID: inv.ID, Kind: billing.KindPayment,
		Amount: int64(100 * n), Currency: inv.Currency, Source: billing.SourceWebhook,
		Reference: fmt.Sprintf("pay_provider_%d", n), EventID: fmt.Sprintf("evt_%d", n),
		ReceivedAt: at.Add(-time.Minute), CreatedAt: at,
	}
	if n%2 == 0 {
		p.Source, p.Method, p.Reference, p.EventID = billing.SourceManual, billing.MethodBankTransfer, "Überweisung “42”", ""
	}
	if n%3 == 0 {
		p.Kind = billing.KindRefund
	}
	return p
}

func mustAddPayment(tb testing.TB, p billing.PaymentStore, pay billing.Payment) billing.Payment {
	tb.Helper()
	if err := p.AddPayment(context.Background(), pay); err != nil {
		tb.Fatalf("AddPayment(%s): %v", pay.ID, err)
	}
	return pay
}

func assertPayments(tb testing.TB, what string, got []billing.Payment, gotMore bool, want []billing.Payment, wantMore bool) {
	tb.Helper()
	if len(got) != len(want) || gotMore != wantMore {
		tb.Errorf("%s: got %d entries more=%v, want %d more=%v", what, len(got), gotMore, len(want), wantMore)
		return
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.TenantID != w.TenantID || !g.ReceivedAt.Equal(w.ReceivedAt) || !g.CreatedAt.Equal(w.CreatedAt) {
			tb.Errorf("%s[%d]: tenant/received/created %s/%v/%v, want %s/%v/%v", what, i,
				g.TenantID, g.ReceivedAt, g.CreatedAt, w.TenantID, w.ReceivedAt, w.CreatedAt)
		}
		g.ReceivedAt, g.CreatedAt = w.ReceivedAt, w.CreatedAt
		if g != w {
			tb.Errorf("%s[%d]:\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

func testPaymentsAddAndList(t *testing.T, s billing.Store, p billing.PaymentStore) {
	ctx := context.Background()
	inv := mustCreate(t, s, newInvoice(TenantA, 1))
	other := mustCreate(t, s, newInvoice(TenantA, 2))
	page, more, err := p.ListPayments(ctx, TenantA, inv.ID, billing.PaymentFilter{Limit: 10})
	if err != nil || len(page) != 0 || more {
		t.Fatalf("empty ledger: got %d entries, %v, %v", len(page), more, err)
	}
	var all []billing.Payment // newest first
	for n := 1; n <= 5; n++ {
		all = append([]billing.Payment{mustAddPayment(t, p, newPayment(inv, n))}, all...)
	}
	mustAddPayment(t, p, newPayment(other, 6))

	page, more, err = p.ListPayments(ctx, TenantA, inv.ID, billing.PaymentFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	assertPayments(t, "all", page, more, all, false)
	page, more, _ = p.ListPayments(ctx, TenantA, inv.ID, billing.PaymentFilter{Limit: 5})
	assertPayments(t, "exactly limit", page, more, all, false)

	before := ""
	for i, want := range [][]billing.Payment{all[0:2], all[2:4], all[4:5]} {
		page, more, err := p.ListPayments(ctx, TenantA, inv.ID, billing.PaymentFilter{Limit: 2, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		assertPayments(t, fmt.Sprintf("page %d", i+1), page, more, want, i < 2)
		if len(page) > 0 {
			before = page[len(page)-1].ID
		}
	}
}

func testPaymentsConflict(t *testing.T, s billing.Store, p billing.PaymentStore) {
	inv := mustCreate(t, s, newInvoice(TenantA, 1))
	first := mustAddPayment(t, p, newPayment(inv, 1))
	again := newPayment(inv, 2)
	again.ID = first.ID
	assertErr(t, "same id", p.AddPayment(context.Background(), again), billing.ErrConflict)
}

func testPaymentsNotFound(t *testing.T, s billing.Store, p billing.PaymentStore) {
	inv := newInvoice(TenantA, 1) // never stored
	assertErr(t, "entry of a missing invoice", p.AddPayment(context.Background(), newPayment(inv, 1)), billing.ErrNotFound)
}

func testPaymentsIsolation(t *testing.T, s billing.Store, p billing.PaymentStore) {
	ctx := context.Background()
	a := mustCreate(t, s, newInvoice(TenantA, 1))
	b := mustCreate(t, s, newInvoice(TenantB, 1))
	pa := mustAddPayment(t, p, newPayment(a, 1))
	pb := mustAddPayment(t, p, newPayment(b, 2))

	hijack := newPayment(a, 3)
	hijack.TenantID = TenantB
	assertErr(t, "B adds an entry to A's invoice", p.AddPayment(ctx, hijack), billing.ErrNotFound)

	page, more, err := p.ListPayments(ctx, TenantB, a.ID, billing.PaymentFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	assertPayments(t, "B lists A's invoice", page, more, nil, false)
	page, more, _ = p.ListPayments(ctx, TenantA, a.ID, billing.PaymentFilter{Limit: 10})
	assertPayments(t, "A lists its own", page, more, []billing.Payment{pa}, false)
	page, more, _ = p.ListPayments(ctx, TenantB, b.ID, billing.PaymentFilter{Limit: 10})
	assertPayments(t, "B lists its own", page, more, []billing.Payment{pb}, false)
}
