package tenancytest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// newInvoice returns an open invoice of tenantID numbered number for the
// period month(i), as the billing run makes it: created a fraction of a
// second after the period's end, in UTC to the microsecond.
func newInvoice(tenantID string, number int64, i int) contract.Invoice {
	start := month(i)
	end := start.AddDate(0, 1, 0)
	inv := contract.Invoice{
		ID: id.New(id.PlatformInvoice), Number: number, TenantID: tenantID,
		PeriodStart: start, PeriodEnd: end, Currency: "EUR",
		Lines: []contract.PreviewLine{
			{Kind: contract.LinePlan, Description: "Growth", Quantity: 1, UnitAmount: 4900, Amount: 4900},
			{Kind: contract.LineSeats, Description: "Seats beyond 10", Quantity: 3, UnitAmount: 800, Amount: 2400},
		},
		Subtotal: 7300, Total: 7300, Status: contract.InvoiceOpen,
		DueDate: end.Add(contract.DefaultPaymentTerms), CreatedAt: end.Add(123456 * time.Microsecond),
	}
	return settled(inv)
}

// settled returns inv with AmountDue as the store reads it back: Total -
// AmountPaid while open, 0 otherwise.
func settled(inv contract.Invoice) contract.Invoice {
	inv.AmountDue = 0
	if inv.Status == contract.InvoiceOpen {
		inv.AmountDue = max(inv.Total-inv.AmountPaid, 0)
	}
	return inv
}

func mustNumber(tb testing.TB, s Backend) int64 {
	tb.Helper()
	n, err := s.Invoices.NextInvoiceNumber(context.Background())
	if err != nil {
		tb.Fatalf("NextInvoiceNumber: %v", err)
	}
	return n
}

// mustInvoice creates the tenant's invoice for the period month(i), with
// the next number, edited by edit, and returns it as it reads back.
func mustInvoice(tb testing.TB, s Backend, tenantID string, i int, edit ...func(inv *contract.Invoice)) contract.Invoice {
	tb.Helper()
	inv := newInvoice(tenantID, mustNumber(tb, s), i)
	for _, e := range edit {
		e(&inv)
	}
	if err := s.Invoices.CreateInvoice(context.Background(), inv); err != nil {
		tb.Fatalf("CreateInvoice(%s %v): %v", tenantID, inv.PeriodStart, err)
	}
	return settled(inv)
}

// sameInvoice fails unless got equals want in JSON (times as instants in
// UTC).
func sameInvoice(tb testing.TB, got, want contract.Invoice) {
	tb.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		tb.Fatalf("platform invoice differs:\n got %s\nwant %s", g, w)
	}
}

func mustGetInvoice(tb testing.TB, s Backend, tenantID, id string) contract.Invoice {
	tb.Helper()
	inv, err := s.Invoices.Invoice(context.Background(), tenantID, id)
	if err != nil {
		tb.Fatalf("Invoice(%q, %s): %v", tenantID, id, err)
	}
	return inv
}

func invoiceIDs(invs []contract.Invoice) []string {
	out := make([]string, len(invs))
	for i, inv := range invs {
		out[i] = inv.ID
	}
	return out
}

// testInvoiceNumbers checks that the numbers start at 1 and follow each
// other.
func testInvoiceNumbers(t *testing.T, s Backend) {
	for want := int64(1); want <= 3; want++ {
		if got := mustNumber(t, s); got != want {
			t.Fatalf("NextInvoiceNumber: got %d, want %d", got, want)
		}
	}
}

// testInvoiceNumbersConcurrent takes numbers in concurrent transactions:
// they must be exactly 1..N, none repeated, none skipped.
func testInvoiceNumbersConcurrent(t *testing.T, s Backend) {
	const workers = 16
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		got      []int64
		unwanted []error
	)
	for range workers {
		wg.Go(func() {
			err := s.Tx.InTx(context.Background(), func(ctx context.Context) error {
				n, err := s.Invoices.NextInvoiceNumber(ctx)
				if err == nil {
					mu.Lock()
					got = append(got, n)
					mu.Unlock()
				}
				return err
			})
			if err != nil {
				mu.Lock()
				unwanted = append(unwanted, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(unwanted) > 0 {
		t.Fatalf("NextInvoiceNumber failed: %v", unwanted)
	}
	slices.Sort(got)
	want := make([]int64, workers)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("concurrent invoice numbers: got %v, want %v", got, want)
	}
}

// testInvoiceNumberRolledBack checks that a rolled-back transaction gives
// its number back.
func testInvoiceNumberRolledBack(t *testing.T, s Backend) {
	var taken int64
	err := s.Tx.InTx(t.Context(), func(ctx context.Context) error {
		n, err := s.Invoices.NextInvoiceNumber(ctx)
		if err != nil {
			return err
		}
		taken = n
		return errRollback
	})
	wantErr(t, "InTx", err, errRollback)
	if taken != 1 {
		t.Fatalf("number taken in the rolled-back transaction: got %d, want 1", taken)
	}
	if got := mustNumber(t, s); got != 1 {
		t.Fatalf("number after the rollback: got %d, want 1 again", got)
	}
	if got := mustNumber(t, s); got != 2 {
		t.Fatalf("number after that: got %d, want 2", got)
	}
}

// testInvoiceRoundTrip checks that an invoice reads back as created, by
// its tenant and by an operator, open, paid or void.
func testInvoiceRoundTrip(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	elsewhere := time.FixedZone("UTC+9", 9*3600)
	paidAt := month(1).Add(36*time.Hour + 654321*time.Microsecond)
	tests := []struct {
		name string
		edit func(inv *contract.Invoice)
	}{
		{"Open", func(*contract.Invoice) {}},
		{"PartPaid", func(inv *contract.Invoice) { inv.AmountPaid, inv.Reference = 3000, "wire 2026-12-03" }},
		{"Paid", func(inv *contract.Invoice) {
			at := paidAt.In(elsewhere)
			inv.Status, inv.AmountPaid, inv.Reference, inv.PaidAt = contract.InvoicePaid, inv.Total, "pay_123", &at
		}},
		{"Free", func(inv *contract.Invoice) {
			inv.Lines, inv.Subtotal, inv.Total = inv.Lines[:1], 0, 0
			inv.Lines[0].UnitAmount, inv.Lines[0].Amount = 0, 0
			inv.Status, inv.PaidAt = contract.InvoicePaid, &inv.CreatedAt
		}},
		{"Void", func(inv *contract.Invoice) { inv.Status, inv.VoidedAt = contract.InvoiceVoid, &paidAt }},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := mustInvoice(t, s, tenant.ID, i, tc.edit)
			if want.PaidAt != nil {
				at := want.PaidAt.UTC()
				want.PaidAt = &at
			}
			sameInvoice(t, mustGetInvoice(t, s, tenant.ID, want.ID), want)
			sameInvoice(t, mustGetInvoice(t, s, "", want.ID), want)
			var locked contract.Invoice
			err := s.Tx.InTx(ctx, func(ctx context.Context) (err error) {
				locked, err = s.Invoices.InvoiceForUpdate(ctx, want.ID)
				return err
			})
			wantErr(t, "InvoiceForUpdate", err, nil)
			sameInvoice(t, locked, want)
		})
	}
}

// testOneInvoicePerPeriod checks that a tenant has one invoice per
// period, and that others' periods do not count.
func testOneInvoicePerPeriod(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	first := mustInvoice(t, s, a.ID, 0)
	steps := []struct {
		name string
		inv  contract.Invoice
		want error
	}{
		{"ErrConflictSamePeriod", newInvoice(a.ID, mustNumber(t, s), 0), tenancy.ErrConflict},
		{"OtherPeriod", newInvoice(a.ID, mustNumber(t, s), 1), nil},
		{"OtherTenant", newInvoice(b.ID, mustNumber(t, s), 0), nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			wantErr(t, "CreateInvoice", s.Invoices.CreateInvoice(ctx, st.inv), st.want)
		})
	}
	t.Run("FirstStays", func(t *testing.T) {
		sameInvoice(t, mustGetInvoice(t, s, a.ID, first.ID), first)
		page, _, err := s.Invoices.Invoices(ctx, contract.InvoiceFilter{TenantID: a.ID, Period: "2026-11", Limit: 10})
		if err != nil || !slices.Equal(invoiceIDs(page), []string{first.ID}) {
			t.Fatalf("invoices of the period: got %v, %v; want [%s]", invoiceIDs(page), err, first.ID)
		}
	})
}

// testOneInvoicePerPeriodConcurrent races invoices of one tenant and
// period, as replicas of the billing run would: exactly one may be
// stored.
func testOneInvoicePerPeriodConcurrent(t *testing.T, s Backend) {
	tenant := mustTenant(t, s)
	const workers = 16
	invs := make([]contract.Invoice, workers)
	for i := range invs {
		invs[i] = newInvoice(tenant.ID, mustNumber(t, s), 0)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		created  []string
		unwanted []error
	)
	for _, inv := range invs {
		wg.Go(func() {
			err := s.Invoices.CreateInvoice(context.Background(), inv)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created = append(created, inv.ID)
			case !errors.Is(err, tenancy.ErrConflict):
				unwanted = append(unwanted, err)
			}
		})
	}
	wg.Wait()
	if len(unwanted) > 0 || len(created) != 1 {
		t.Fatalf("concurrent invoices of one period: %d stored (%v), unexpected errors %v; want exactly one, and conflicts", len(created), created, unwanted)
	}
	page, _, err := s.Invoices.Invoices(t.Context(), contract.InvoiceFilter{TenantID: tenant.ID, Limit: 100})
	if err != nil || !slices.Equal(invoiceIDs(page), created) {
		t.Fatalf("invoices after the race: got %v, %v; want %v", invoiceIDs(page), err, created)
	}
}

// testInvoiceNotFound checks ErrInvoiceNotFound for unknown ids and for
// another tenant's invoice.
func testInvoiceNotFound(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	invA := mustInvoice(t, s, a.ID, 0)
	unknown := id.New(id.PlatformInvoice)
	for _, tc := range []struct{ name, tenantID, id string }{
		{"OtherTenants", b.ID, invA.ID},
		{"Unknown", a.ID, unknown},
		{"UnknownAnyTenant", "", unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Invoices.Invoice(ctx, tc.tenantID, tc.id)
			wantErr(t, "Invoice", err, contract.ErrInvoiceNotFound)
		})
	}
	t.Run("ForUpdateUnknown", func(t *testing.T) {
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			_, err := s.Invoices.InvoiceForUpdate(ctx, unknown)
			return err
		})
		wantErr(t, "InvoiceForUpdate", err, contract.ErrInvoiceNotFound)
	})
	t.Run("UpdateOtherTenants", func(t *testing.T) {
		hijack := invA
		hijack.TenantID, hijack.Status = b.ID, contract.InvoiceVoid
		wantErr(t, "UpdateInvoice(B, A's invoice)", s.Invoices.UpdateInvoice(ctx, hijack, contract.InvoiceOpen), tenancy.ErrConflict)
		sameInvoice(t, mustGetInvoice(t, s, a.ID, invA.ID), invA)
	})
	t.Run("UpdateUnknown", func(t *testing.T) {
		missing := newInvoice(a.ID, 0, 1)
		wantErr(t, "UpdateInvoice(unknown)", s.Invoices.UpdateInvoice(ctx, missing, contract.InvoiceOpen), tenancy.ErrConflict)
	})
}

// testInvoiceForUpdate checks the locked lookup in a transaction,
// whichever tenant's the invoice.
func testInvoiceForUpdate(t *testing.T, s Backend) {
	a, b := mustTenant(t, s), mustTenant(t, s)
	want := []contract.Invoice{mustInvoice(t, s, a.ID, 0), mustInvoice(t, s, b.ID, 0)}
	var got []contract.Invoice
	err := s.Tx.InTx(t.Context(), func(ctx context.Context) error {
		for _, inv := range want {
			locked, err := s.Invoices.InvoiceForUpdate(ctx, inv.ID)
			if err != nil {
				return err
			}
			got = append(got, locked)
		}
		return nil
	})
	wantErr(t, "InvoiceForUpdate", err, nil)
	for i := range want {
		sameInvoice(t, got[i], want[i])
	}
}

// testUpdateInvoice checks that UpdateInvoice writes its fields alone,
// only from the given status, and that AmountDue follows.
func testUpdateInvoice(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	inv := mustInvoice(t, s, tenant.ID, 0)
	paidAt := month(1).Add(50 * time.Hour)

	steps := []struct {
		name string
		edit func(inv *contract.Invoice)
		from contract.InvoiceStatus
		want error
	}{
		{"PartPaid", func(inv *contract.Invoice) { inv.AmountPaid, inv.Reference = 3000, "pay_1" }, contract.InvoiceOpen, nil},
		{"ErrConflictStaleStatus", func(inv *contract.Invoice) { inv.Status = contract.InvoiceVoid }, contract.InvoicePaid, tenancy.ErrConflict},
		{"PaidOnlyItsFields", func(inv *contract.Invoice) {
			inv.Status, inv.AmountPaid, inv.Reference, inv.PaidAt = contract.InvoicePaid, inv.Total, "pay_2", &paidAt
			// Not UpdateInvoice's to write:
			inv.Number, inv.Total, inv.Currency, inv.Lines, inv.DueDate = 999999, 1, "USD", nil, paidAt
		}, contract.InvoiceOpen, nil},
		{"ErrConflictNoLongerOpen", func(inv *contract.Invoice) { inv.Status = contract.InvoiceVoid }, contract.InvoiceOpen, tenancy.ErrConflict},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := mustGetInvoice(t, s, tenant.ID, inv.ID)
			next := before
			st.edit(&next)
			wantErr(t, "UpdateInvoice", s.Invoices.UpdateInvoice(ctx, next, st.from), st.want)
			want := before
			if st.want == nil {
				want.Status, want.AmountPaid, want.Reference, want.PaidAt, want.VoidedAt = next.Status, next.AmountPaid, next.Reference, next.PaidAt, next.VoidedAt
				want = settled(want)
			}
			sameInvoice(t, mustGetInvoice(t, s, tenant.ID, inv.ID), want)
		})
	}
	for i, status := range []contract.InvoiceStatus{contract.InvoiceVoid, contract.InvoiceUncollectible} {
		t.Run(string(status), func(t *testing.T) {
			want := mustInvoice(t, s, tenant.ID, i+1)
			want.Status, want.VoidedAt = status, &paidAt
			wantErr(t, "UpdateInvoice", s.Invoices.UpdateInvoice(ctx, want, contract.InvoiceOpen), nil)
			sameInvoice(t, mustGetInvoice(t, s, tenant.ID, want.ID), settled(want))
		})
	}
}

// testPayConcurrent races payments of one invoice, each made as the
// payment provider's webhook makes it: in a transaction of its own, lock
// the invoice, check it is open, update it from open. Exactly one may pay.
func testPayConcurrent(t *testing.T, s Backend) {
	tenant := mustTenant(t, s)
	inv := mustInvoice(t, s, tenant.ID, 0)
	paidAt := month(1).Add(time.Hour)
	const workers = 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		winners  []string
		unwanted []error
	)
	for i := range workers {
		ref := fmt.Sprintf("pay_%d", i)
		wg.Go(func() {
			err := s.Tx.InTx(context.Background(), func(ctx context.Context) error {
				cur, err := s.Invoices.InvoiceForUpdate(ctx, inv.ID)
				if err != nil {
					return err
				}
				if cur.Status != contract.InvoiceOpen {
					return tenancy.ErrConflict
				}
				cur.Status, cur.AmountPaid, cur.Reference, cur.PaidAt = contract.InvoicePaid, cur.Total, ref, &paidAt
				return s.Invoices.UpdateInvoice(ctx, cur, contract.InvoiceOpen)
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				winners = append(winners, ref)
			case !errors.Is(err, tenancy.ErrConflict):
				unwanted = append(unwanted, err)
			}
		})
	}
	wg.Wait()
	if len(unwanted) > 0 || len(winners) != 1 {
		t.Fatalf("concurrent payments: %d paid (%v), unexpected errors %v; want exactly one, and conflicts", len(winners), winners, unwanted)
	}
	got := mustGetInvoice(t, s, tenant.ID, inv.ID)
	if got.Status != contract.InvoicePaid || got.Reference != winners[0] || got.AmountPaid != inv.Total || got.AmountDue != 0 {
		t.Fatalf("invoice after the race: %+v; want paid by %s", got, winners[0])
	}
}

// testListInvoices checks a tenant's list: newest first, in pages,
// filtered by status and period.
func testListInvoices(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	paid := func(inv *contract.Invoice) {
		inv.Status, inv.AmountPaid, inv.PaidAt = contract.InvoicePaid, inv.Total, &inv.CreatedAt
	}
	var all []contract.Invoice // newest first
	for i := range 5 {
		var edit []func(*contract.Invoice)
		if i == 1 {
			edit = append(edit, paid)
		}
		all = slices.Insert(all, 0, mustInvoice(t, s, a.ID, i, edit...))
		mustInvoice(t, s, b.ID, i) // B's, never A's
	}
	tests := []struct {
		name     string
		filter   contract.InvoiceFilter
		want     []contract.Invoice
		wantMore bool
	}{
		{"All", contract.InvoiceFilter{Limit: 10}, all, false},
		{"Exact", contract.InvoiceFilter{Limit: 5}, all, false},
		{"FirstPage", contract.InvoiceFilter{Limit: 2}, all[:2], true},
		{"NextPage", contract.InvoiceFilter{Limit: 2, Before: all[1].ID}, all[2:4], true},
		{"LastPage", contract.InvoiceFilter{Limit: 2, Before: all[3].ID}, all[4:], false},
		{"Status", contract.InvoiceFilter{Limit: 10, Status: contract.InvoicePaid}, all[3:4], false},
		{"StatusNone", contract.InvoiceFilter{Limit: 10, Status: contract.InvoiceVoid}, nil, false},
		{"Period", contract.InvoiceFilter{Limit: 10, Period: "2027-01"}, all[2:3], false},
		{"PeriodNone", contract.InvoiceFilter{Limit: 10, Period: "2026-10"}, nil, false},
		{"StatusAndPeriod", contract.InvoiceFilter{Limit: 10, Status: contract.InvoicePaid, Period: "2027-01"}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.filter.TenantID = a.ID
			got, more, err := s.Invoices.Invoices(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(invoiceIDs(got), invoiceIDs(tc.want)) || more != tc.wantMore {
				t.Fatalf("Invoices(%+v): got %v more=%v, want %v more=%v",
					tc.filter, invoiceIDs(got), more, invoiceIDs(tc.want), tc.wantMore)
			}
			for i := range got {
				sameInvoice(t, got[i], tc.want[i])
			}
		})
	}
}

// testAllInvoices checks the operators' list across tenants, test tenants
// included: every tenant's invoices in one order, or one tenant's when
// asked.
func testAllInvoices(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b, c := mustTenant(t, s), mustTenant(t, s), mustTestTenant(t, s, at(0))
	var all, onlyB, period []contract.Invoice // newest first
	for i, tenantID := range []string{a.ID, b.ID, c.ID, a.ID, b.ID} {
		inv := mustInvoice(t, s, tenantID, i/3)
		all = slices.Insert(all, 0, inv)
		if tenantID == b.ID {
			onlyB = slices.Insert(onlyB, 0, inv)
		}
		if i/3 == 1 {
			period = slices.Insert(period, 0, inv)
		}
	}
	tests := []struct {
		name     string
		filter   contract.InvoiceFilter
		want     []contract.Invoice
		wantMore bool
	}{
		{"EveryTenant", contract.InvoiceFilter{Limit: 10}, all, false},
		{"FirstPage", contract.InvoiceFilter{Limit: 3}, all[:3], true},
		{"NextPage", contract.InvoiceFilter{Limit: 3, Before: all[2].ID}, all[3:], false},
		{"OneTenant", contract.InvoiceFilter{Limit: 10, TenantID: b.ID}, onlyB, false},
		{"Period", contract.InvoiceFilter{Limit: 10, Period: "2026-12"}, period, false},
		{"StatusNone", contract.InvoiceFilter{Limit: 10, Status: contract.InvoicePaid}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.Invoices.Invoices(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(invoiceIDs(got), invoiceIDs(tc.want)) || more != tc.wantMore {
				t.Fatalf("Invoices(%+v): got %v more=%v, want %v more=%v",
					tc.filter, invoiceIDs(got), more, invoiceIDs(tc.want), tc.wantMore)
			}
		})
	}
}

// due sets an invoice's due date.
func due(at time.Time) func(inv *contract.Invoice) {
	return func(inv *contract.Invoice) { inv.DueDate = at }
}

// sortedIDs returns the invoices' ids, sorted: OverdueInvoices promises
// no order.
func sortedIDs(invs []contract.Invoice) []string {
	out := invoiceIDs(invs)
	slices.Sort(out)
	return out
}

// testOverdueInvoices checks the scheduler's list: open invoices due
// before now, not marked yet, of real tenants or of the one asked.
func testOverdueInvoices(t *testing.T, s Backend) {
	ctx := t.Context()
	now := month(3).Add(123 * time.Microsecond)
	a, b, c := mustTenant(t, s), mustTenant(t, s), mustTestTenant(t, s, now)
	paid := func(inv *contract.Invoice) {
		inv.Status, inv.AmountPaid, inv.PaidAt = contract.InvoicePaid, inv.Total, &inv.CreatedAt
	}
	overdueA := mustInvoice(t, s, a.ID, 0, due(now.Add(-2*time.Hour)))
	mustInvoice(t, s, a.ID, 1, due(now))                       // due, not overdue yet
	mustInvoice(t, s, a.ID, 2, due(now.Add(-time.Hour)), paid) // paid
	marked := mustInvoice(t, s, a.ID, 3, due(now.Add(-time.Hour)))
	if ok, err := s.Invoices.MarkOverdue(ctx, a.ID, marked.ID, now); err != nil || !ok {
		t.Fatalf("MarkOverdue: got %v, %v; want true", ok, err)
	}
	overdueB := mustInvoice(t, s, b.ID, 0, due(now.Add(-3*time.Hour)))
	overdueC := mustInvoice(t, s, c.ID, 0, due(now.Add(-4*time.Hour)))

	tests := []struct {
		name     string
		tenantID string
		want     []contract.Invoice
	}{
		{"EveryRealTenant", "", []contract.Invoice{overdueA, overdueB}},
		{"OneTenant", a.ID, []contract.Invoice{overdueA}},
		{"TestTenant", c.ID, []contract.Invoice{overdueC}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Invoices.OverdueInvoices(ctx, tc.tenantID, now, 10)
			if err != nil || !slices.Equal(sortedIDs(got), sortedIDs(tc.want)) {
				t.Fatalf("OverdueInvoices(%q): got %v, %v; want %v", tc.tenantID, invoiceIDs(got), err, invoiceIDs(tc.want))
			}
			if tc.tenantID == a.ID {
				sameInvoice(t, got[0], overdueA)
			}
		})
	}
	t.Run("Limit", func(t *testing.T) {
		got, err := s.Invoices.OverdueInvoices(ctx, "", now, 1)
		if err != nil || len(got) != 1 || (got[0].ID != overdueA.ID && got[0].ID != overdueB.ID) {
			t.Fatalf("OverdueInvoices limit 1: got %v, %v; want one of %s, %s", invoiceIDs(got), err, overdueA.ID, overdueB.ID)
		}
	})
}

// wantOverdue fails unless the tenant's invoice id is listed as overdue
// (not yet marked) at now, or not, as want says.
func wantOverdue(tb testing.TB, s Backend, tenantID, id string, now time.Time, want bool) {
	tb.Helper()
	got, err := s.Invoices.OverdueInvoices(context.Background(), tenantID, now, 100)
	if err != nil || slices.Contains(invoiceIDs(got), id) != want {
		tb.Fatalf("OverdueInvoices(%s) lists %s: got %v (%v), want %v", tenantID, id, invoiceIDs(got), err, want)
	}
}

// testMarkOverdue checks that an open invoice is marked once, by its
// tenant, in the caller's transaction.
func testMarkOverdue(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	now := month(6)
	inv := mustInvoice(t, s, a.ID, 0)
	mark := func(t *testing.T, ctx context.Context, tenantID, id string, want bool) {
		t.Helper()
		if got, err := s.Invoices.MarkOverdue(ctx, tenantID, id, now); err != nil || got != want {
			t.Fatalf("MarkOverdue(%s, %s): got %v, %v; want %v", tenantID, id, got, err, want)
		}
	}
	t.Run("OtherTenant", func(t *testing.T) {
		mark(t, ctx, b.ID, inv.ID, false)
		wantOverdue(t, s, a.ID, inv.ID, now, true)
	})
	t.Run("RolledBack", func(t *testing.T) {
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			mark(t, ctx, a.ID, inv.ID, true)
			return errRollback
		})
		wantErr(t, "InTx", err, errRollback)
		wantOverdue(t, s, a.ID, inv.ID, now, true)
	})
	t.Run("Once", func(t *testing.T) {
		mark(t, ctx, a.ID, inv.ID, true)
		wantOverdue(t, s, a.ID, inv.ID, now, false)
		mark(t, ctx, a.ID, inv.ID, false)
		sameInvoice(t, mustGetInvoice(t, s, a.ID, inv.ID), inv) // still open
	})
	t.Run("NotOpen", func(t *testing.T) {
		paid := mustInvoice(t, s, a.ID, 1, func(inv *contract.Invoice) {
			inv.Status, inv.AmountPaid, inv.PaidAt = contract.InvoicePaid, inv.Total, &inv.CreatedAt
		})
		mark(t, ctx, a.ID, paid.ID, false)
	})
	t.Run("Unknown", func(t *testing.T) { mark(t, ctx, a.ID, id.New(id.PlatformInvoice), false) })
}

// testPastDue checks that only the tenant's own open invoices due before
// the instant make it past due.
func testPastDue(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b, c := mustTenant(t, s), mustTenant(t, s), mustTenant(t, s)
	dueAt := month(2).Add(14 * 24 * time.Hour)
	mustInvoice(t, s, a.ID, 0, due(dueAt))
	mustInvoice(t, s, c.ID, 0, due(dueAt.Add(-time.Hour)), func(inv *contract.Invoice) {
		inv.Status, inv.AmountPaid, inv.PaidAt = contract.InvoicePaid, inv.Total, &inv.CreatedAt
	})
	mustInvoice(t, s, c.ID, 1, due(dueAt.Add(-time.Hour)), func(inv *contract.Invoice) {
		inv.Status, inv.VoidedAt = contract.InvoiceVoid, &inv.CreatedAt
	})
	mustInvoice(t, s, c.ID, 2, due(dueAt.Add(time.Hour)))
	tests := []struct {
		name     string
		tenantID string
		before   time.Time
		want     bool
	}{
		{"DueBefore", a.ID, dueAt.Add(time.Microsecond), true},
		{"DueAt", a.ID, dueAt, false},
		{"OtherTenants", b.ID, dueAt.Add(24 * time.Hour), false},
		{"PaidVoidOrDueLater", c.ID, dueAt, false},
		{"DueLaterOnceBefore", c.ID, dueAt.Add(time.Hour + time.Microsecond), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Invoices.PastDue(ctx, tc.tenantID, tc.before)
			if err != nil || got != tc.want {
				t.Fatalf("PastDue(%s, %v): got %v, %v; want %v", tc.tenantID, tc.before, got, err, tc.want)
			}
		})
	}
}
