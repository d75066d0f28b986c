// Package billingtest is the conformance suite every billing.Store must
// pass: Run it from a test of your implementation, as billing's own
// bunstore_test.go does for BunStore on SQLite and Postgres.
package billingtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// The tenants the suite writes for. A Store that checks that tenants exist
// (BunStore does, by foreign key) must have both before Run uses it.
const (
	TenantA = "ten_00000000000000000000000001"
	TenantB = "ten_00000000000000000000000002"
)

// Run checks a Store implementation. newStore must return a new, empty
// Store on every call, in which TenantA and TenantB exist.
func Run(t *testing.T, newStore func(t *testing.T) billing.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s billing.Store)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"RoundTrip", testRoundTrip},
		{"CreateConflict", testCreateConflict},
		{"NotFound", testNotFound},
		{"NextNumber", testNextNumber},
		{"Update", testUpdate},
		{"UpdateByID", testUpdateByID},
		{"List", testList},
		{"ListFilters", testListFilters},
		{"Isolation", testIsolation},
		{"UnnumberedDrafts", testUnnumberedDrafts},
		{"Save", testSave},
		{"Delete", testDelete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStore(t)) })
	}
}

// base is the creation time of the suite's invoices: UTC, whole
// microseconds, as the Service stores them.
func base() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 123456000, time.UTC) }

// newInvoice returns a valid open invoice of tenantID numbered n.
func newInvoice(tenantID string, n int64) billing.Invoice {
	created := base().Add(time.Duration(n) * time.Minute)
	return billing.Invoice{
		ID: id.New(id.Invoice), TenantID: tenantID, Number: billing.FormatNumber(n),
		Status:   billing.StatusOpen,
		Customer: billing.Customer{Name: "Ada Lovelace", Email: "ada@example.com"},
		Currency: "USD",
		LineItems: []billing.LineItem{
			{Description: "Consulting", Quantity: 2, UnitAmount: 1999, TaxRateBps: 825, Amount: 3998},
		},
		Subtotal: 3998, Tax: 330, Total: 4328, AmountDue: 4328,
		Metadata: map[string]string{}, CreatedAt: created, FinalizedAt: &created,
	}
}

func mustCreate(tb testing.TB, s billing.Store, inv billing.Invoice) billing.Invoice {
	tb.Helper()
	if err := s.CreateInvoice(context.Background(), inv); err != nil {
		tb.Fatalf("CreateInvoice(%s %s): %v", inv.TenantID, inv.Number, err)
	}
	return inv
}

func mustGet(tb testing.TB, s billing.Store, tenantID, invoiceID string) billing.Invoice {
	tb.Helper()
	inv, err := s.Invoice(context.Background(), tenantID, invoiceID)
	if err != nil {
		tb.Fatalf("Invoice(%s, %s): %v", tenantID, invoiceID, err)
	}
	return inv
}

// assertSame fails unless got and want are the same invoice: equal JSON
// (times compared as instants) and equal unexported-in-JSON fields.
func assertSame(tb testing.TB, got, want billing.Invoice) {
	tb.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		tb.Errorf("invoice differs:\n got %s\nwant %s", g, w)
	}
	if got.TenantID != want.TenantID || got.Received != want.Received || got.Refunded != want.Refunded {
		tb.Errorf("tenant/received/refunded: got %s/%d/%d, want %s/%d/%d",
			got.TenantID, got.Received, got.Refunded, want.TenantID, want.Received, want.Refunded)
	}
}

func assertErr(tb testing.TB, what string, err, want error) {
	tb.Helper()
	if !errors.Is(err, want) {
		tb.Errorf("%s: got error %v, want %v", what, err, want)
	}
}

func testCreateAndGet(t *testing.T, s billing.Store) {
	want := mustCreate(t, s, newInvoice(TenantA, 1))
	assertSame(t, mustGet(t, s, TenantA, want.ID), want)

	locked, err := s.InvoiceForUpdate(context.Background(), TenantA, want.ID)
	if err != nil {
		t.Fatalf("InvoiceForUpdate: %v", err)
	}
	assertSame(t, locked, want)

	owner, err := s.InvoiceTenant(context.Background(), want.ID)
	if err != nil || owner != TenantA {
		t.Errorf("InvoiceTenant = %q, %v; want %q", owner, err, TenantA)
	}
}

func testRoundTrip(t *testing.T, s billing.Store) {
	tests := []struct {
		name   string
		change func(inv *billing.Invoice)
	}{
		{"Draft", func(inv *billing.Invoice) {
			inv.Status, inv.FinalizedAt = billing.StatusDraft, nil
		}},
		{"EverythingSet", func(inv *billing.Invoice) {
			paid := inv.CreatedAt.Add(time.Hour)
			inv.Status, inv.PaidAt = billing.StatusPaid, &paid
			inv.AmountPaid, inv.AmountDue, inv.Received, inv.Refunded = 4328, 0, 5000, 672
			inv.DueDate = "2026-12-31"
			inv.Memo = "Thank you!\nNet 30 — ünïcode ✓"
			inv.Metadata = map[string]string{"order": "ord_42", "note": "", "ключ": "значение"}
			inv.Currency = "KWD"
			inv.Customer.Name = "Zoë O'Brien"
		}},
		{"Overdue", func(inv *billing.Invoice) {
			inv.DueDate, inv.Overdue = "2026-11-01", true
		}},
		{"Uncollectible", func(inv *billing.Invoice) {
			inv.Status, inv.UncollectibleReason = billing.StatusUncollectible, billing.ReasonManual
		}},
		{"ManyLines", func(inv *billing.Invoice) {
			inv.LineItems = nil
			inv.Subtotal, inv.Tax = 0, 0
			for i := range billing.MaxLineItems {
				inv.LineItems = append(inv.LineItems, billing.LineItem{
					Description: fmt.Sprintf("Line %d \"quoted\"", i), Quantity: int64(i + 1),
					UnitAmount: 100, TaxRateBps: 10000, Amount: int64(i+1) * 100,
				})
				inv.Subtotal += int64(i+1) * 100
			}
			inv.Tax = inv.Subtotal
			inv.Total, inv.AmountDue = 2*inv.Subtotal, 2*inv.Subtotal
		}},
		{"LargeAmounts", func(inv *billing.Invoice) {
			inv.LineItems[0] = billing.LineItem{Description: "Big", Quantity: 1000, UnitAmount: 1_000_000_000_000, Amount: billing.MaxAmount}
			inv.Subtotal, inv.Tax, inv.Total, inv.AmountDue = billing.MaxAmount, 0, billing.MaxAmount, billing.MaxAmount
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := newInvoice(TenantA, int64(i+1))
			tt.change(&inv)
			mustCreate(t, s, inv)
			assertSame(t, mustGet(t, s, TenantA, inv.ID), inv)
		})
	}
}

func testCreateConflict(t *testing.T, s billing.Store) {
	first := mustCreate(t, s, newInvoice(TenantA, 1))

	sameID := newInvoice(TenantA, 2)
	sameID.ID = first.ID
	assertErr(t, "same id", s.CreateInvoice(context.Background(), sameID), billing.ErrConflict)

	sameNumber := newInvoice(TenantA, 1)
	assertErr(t, "same number", s.CreateInvoice(context.Background(), sameNumber), billing.ErrConflict)

	// Numbers are per tenant.
	mustCreate(t, s, newInvoice(TenantB, 1))
}

func testNotFound(t *testing.T, s billing.Store) {
	ctx := context.Background()
	missing := id.New(id.Invoice)
	_, err := s.Invoice(ctx, TenantA, missing)
	assertErr(t, "Invoice", err, billing.ErrNotFound)
	_, err = s.InvoiceForUpdate(ctx, TenantA, missing)
	assertErr(t, "InvoiceForUpdate", err, billing.ErrNotFound)
	_, err = s.InvoiceTenant(ctx, missing)
	assertErr(t, "InvoiceTenant", err, billing.ErrNotFound)
	inv := newInvoice(TenantA, 1)
	assertErr(t, "UpdateInvoice", s.UpdateInvoice(ctx, inv), billing.ErrNotFound)
}

func testNextNumber(t *testing.T, s billing.Store) {
	ctx := context.Background()
	steps := []struct {
		tenant string
		want   int64
	}{
		{TenantA, 1}, {TenantA, 2}, {TenantB, 1}, {TenantA, 3}, {TenantB, 2},
	}
	for _, st := range steps {
		got, err := s.NextNumber(ctx, st.tenant)
		if err != nil {
			t.Fatalf("NextNumber(%s): %v", st.tenant, err)
		}
		if got != st.want {
			t.Errorf("NextNumber(%s) = %d, want %d", st.tenant, got, st.want)
		}
	}
}

func testUpdate(t *testing.T, s billing.Store) {
	ctx := context.Background()
	orig := mustCreate(t, s, newInvoice(TenantA, 1))

	want := orig
	paid := orig.CreatedAt.Add(48 * time.Hour)
	want.Status, want.PaidAt = billing.StatusPaid, &paid
	want.AmountPaid, want.AmountDue, want.Received, want.Refunded = 4328, 0, 4400, 72
	changed := want
	// Fields that never change after creation are not written.
	changed.Memo, changed.Number, changed.Total = "rewritten", "INV-999999", 1
	if err := s.UpdateInvoice(ctx, changed); err != nil {
		t.Fatalf("UpdateInvoice: %v", err)
	}
	assertSame(t, mustGet(t, s, TenantA, orig.ID), want)

	// Back to open, paid_at cleared.
	want.Status, want.PaidAt, want.AmountPaid, want.AmountDue, want.Refunded = billing.StatusOpen, nil, 100, 4228, 4300
	if err := s.UpdateInvoice(ctx, want); err != nil {
		t.Fatalf("UpdateInvoice: %v", err)
	}
	assertSame(t, mustGet(t, s, TenantA, orig.ID), want)

	// Overdue, then written off by dunning.
	want.Overdue = true
	if err := s.UpdateInvoice(ctx, want); err != nil {
		t.Fatalf("UpdateInvoice: %v", err)
	}
	assertSame(t, mustGet(t, s, TenantA, orig.ID), want)
	want.Status, want.Overdue, want.UncollectibleReason = billing.StatusUncollectible, false, billing.ReasonDunning
	if err := s.UpdateInvoice(ctx, want); err != nil {
		t.Fatalf("UpdateInvoice: %v", err)
	}
	assertSame(t, mustGet(t, s, TenantA, orig.ID), want)
}

// ids returns the ids of invs.
func ids(invs []billing.Invoice) []string {
	out := make([]string, len(invs))
	for i, inv := range invs {
		out[i] = inv.ID
	}
	return out
}

func assertPage(tb testing.TB, what string, got []billing.Invoice, gotMore bool, want []billing.Invoice, wantMore bool) {
	tb.Helper()
	g, w := ids(got), ids(want)
	if fmt.Sprint(g) != fmt.Sprint(w) || gotMore != wantMore {
		tb.Errorf("%s: got %v more=%v, want %v more=%v", what, g, gotMore, w, wantMore)
	}
}

func testList(t *testing.T, s billing.Store) {
	ctx := context.Background()
	page, more, err := s.ListInvoices(ctx, TenantA, billing.ListFilter{Limit: 10})
	if err != nil || len(page) != 0 || more {
		t.Fatalf("empty list: got %v, %v, %v", ids(page), more, err)
	}
	var all []billing.Invoice // newest first
	for n := int64(1); n <= 5; n++ {
		all = append([]billing.Invoice{mustCreate(t, s, newInvoice(TenantA, n))}, all...)
	}
	page, more, err = s.ListInvoices(ctx, TenantA, billing.ListFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	assertPage(t, "all", page, more, all, false)
	for i := range page {
		assertSame(t, page[i], all[i])
	}

	page, more, _ = s.ListInvoices(ctx, TenantA, billing.ListFilter{Limit: 5})
	assertPage(t, "exactly limit", page, more, all, false)

	before := ""
	for i, want := range [][]billing.Invoice{all[0:2], all[2:4], all[4:5]} {
		page, more, err := s.ListInvoices(ctx, TenantA, billing.ListFilter{Limit: 2, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		assertPage(t, fmt.Sprintf("page %d", i+1), page, more, want, i < 2)
		if len(page) > 0 {
			before = page[len(page)-1].ID
		}
	}
}

func testListFilters(t *testing.T, s billing.Store) {
	ctx := context.Background()
	mk := func(n int64, status billing.Status, email string) billing.Invoice {
		inv := newInvoice(TenantA, n)
		inv.Status, inv.Customer.Email = status, email
		return mustCreate(t, s, inv)
	}
	a1 := mk(1, billing.StatusOpen, "a@example.com")
	b2 := mk(2, billing.StatusDraft, "b@example.com")
	a3 := mk(3, billing.StatusDraft, "a@example.com")
	a4 := mk(4, billing.StatusOpen, "a@example.com")

	tests := []struct {
		name   string
		filter billing.ListFilter
		want   []billing.Invoice
		more   bool
	}{
		{"Status", billing.ListFilter{Status: "draft", Limit: 10}, []billing.Invoice{a3, b2}, false},
		{"StatusNone", billing.ListFilter{Status: "void", Limit: 10}, nil, false},
		{"Email", billing.ListFilter{CustomerEmail: "a@example.com", Limit: 10}, []billing.Invoice{a4, a3, a1}, false},
		{"EmailPaged", billing.ListFilter{CustomerEmail: "a@example.com", Limit: 1, Before: a4.ID}, []billing.Invoice{a3}, true},
		{"Both", billing.ListFilter{Status: "open", CustomerEmail: "a@example.com", Limit: 10}, []billing.Invoice{a4, a1}, false},
		{"BothBefore", billing.ListFilter{Status: "open", CustomerEmail: "a@example.com", Limit: 10, Before: a4.ID}, []billing.Invoice{a1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, more, err := s.ListInvoices(ctx, TenantA, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			assertPage(t, tt.name, page, more, tt.want, tt.more)
		})
	}
}

func testIsolation(t *testing.T, s billing.Store) {
	ctx := context.Background()
	a := mustCreate(t, s, newInvoice(TenantA, 1))
	b := mustCreate(t, s, newInvoice(TenantB, 1))

	_, err := s.Invoice(ctx, TenantB, a.ID)
	assertErr(t, "B gets A's invoice", err, billing.ErrNotFound)
	_, err = s.InvoiceForUpdate(ctx, TenantB, a.ID)
	assertErr(t, "B locks A's invoice", err, billing.ErrNotFound)

	hijack := a
	hijack.TenantID, hijack.Status, hijack.AmountDue = TenantB, billing.StatusVoid, 0
	assertErr(t, "B updates A's invoice", s.UpdateInvoice(ctx, hijack), billing.ErrNotFound)
	assertSame(t, mustGet(t, s, TenantA, a.ID), a)

	for _, f := range []billing.ListFilter{
		{Limit: 100},
		{Limit: 100, CustomerEmail: a.Customer.Email},
		{Limit: 100, Status: string(a.Status)},
	} {
		page, more, err := s.ListInvoices(ctx, TenantB, f)
		if err != nil {
			t.Fatal(err)
		}
		assertPage(t, fmt.Sprintf("B lists %+v", f), page, more, []billing.Invoice{b}, false)
	}

	for inv, tenant := range map[string]string{a.ID: TenantA, b.ID: TenantB} {
		got, err := s.InvoiceTenant(ctx, inv)
		if err != nil || got != tenant {
			t.Errorf("InvoiceTenant(%s) = %q, %v; want %q", inv, got, err, tenant)
		}
	}
}
