package tenancytest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TenantUnbilled is the tenant from before billing that RunBilling reads:
// a real tenant without a billed-through mark.
const TenantUnbilled = "ten_00000000000000000000000003"

// errRollback ends the suite's transactions that must leave nothing.
var errRollback = errors.New("roll back")

// RunBilling checks a contract.PeriodStore (Backend.Periods) and a
// contract.InvoiceStore (Backend.Invoices): every method, its documented
// errors, the invoice numbers and the one invoice per period under
// concurrent callers, that they join the transactions of Backend.Tx, and
// that no tenant sees another's periods or invoices. newBackend is called
// once per case and must return a backend in which TenantUnbilled exists
// without a billed-through mark, no platform invoice is stored and no
// invoice number has been taken (the numbering is platform-wide, and the
// operators' and the scheduler's queries span tenants). Every other
// tenant must be one the suite created: TenantsToBill's case bills
// tenants of its own in 2000, before any of the others' marks.
func RunBilling(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"BilledThrough", testBilledThrough},
		{"BilledThroughUnset", testBilledThroughUnset},
		{"Period", testPeriod},
		{"PeriodIsolation", testPeriodIsolation},
		{"TenantsToBill", testTenantsToBill},
		{"TestClock", testTestClock},
		{"InvoiceNumbers", testInvoiceNumbers},
		{"InvoiceNumbersConcurrent", testInvoiceNumbersConcurrent},
		{"InvoiceNumberRolledBack", testInvoiceNumberRolledBack},
		{"CreateAndGetInvoice", testInvoiceRoundTrip},
		{"OneInvoicePerPeriod", testOneInvoicePerPeriod},
		{"OneInvoicePerPeriodConcurrent", testOneInvoicePerPeriodConcurrent},
		{"InvoiceNotFound", testInvoiceNotFound},
		{"InvoiceForUpdate", testInvoiceForUpdate},
		{"UpdateInvoiceGuardedByStatus", testUpdateInvoice},
		{"PayConcurrent", testPayConcurrent},
		{"ListInvoices", testListInvoices},
		{"AllInvoices", testAllInvoices},
		{"OverdueInvoices", testOverdueInvoices},
		{"MarkOverdue", testMarkOverdue},
		{"PastDue", testPastDue},
	})
}

// month returns the start of the billing period i months after the one of
// at(0): the first of a month, UTC.
func month(i int) time.Time {
	return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, i, 0)
}

// mustTestTenant creates a test tenant whose clock reads clock.
func mustTestTenant(tb testing.TB, s tenancy.DirectoryStore, clock time.Time) tenancy.Tenant {
	tb.Helper()
	slug := "t-" + unique()
	t := tenancy.Tenant{ID: id.New(id.Tenant), Slug: slug, Name: "Tenant " + slug, PlanID: "free", Seats: 2, CreatedAt: at(0),
		Test: true, TestClock: &clock}
	if err := s.CreateTenant(context.Background(), t); err != nil {
		tb.Fatalf("CreateTenant(%s, test): %v", slug, err)
	}
	return t
}

// wantBilledThrough fails unless the tenant is billed through want.
func wantBilledThrough(tb testing.TB, s Backend, tenantID string, want time.Time) {
	tb.Helper()
	got, set, err := s.Periods.BilledThrough(context.Background(), tenantID)
	if err != nil || !set || !got.Equal(want) || got.Location() != time.UTC {
		tb.Fatalf("BilledThrough(%s): got %v, %v, %v; want %v (UTC), true", tenantID, got, set, err, want)
	}
}

func mustBilledThrough(tb testing.TB, s Backend, tenantID string, t time.Time) {
	tb.Helper()
	if err := s.Periods.SetBilledThrough(context.Background(), tenantID, t); err != nil {
		tb.Fatalf("SetBilledThrough(%s, %v): %v", tenantID, t, err)
	}
}

// testBilledThrough checks the mark a new tenant starts with, that it
// moves, and that an unknown tenant has none to move.
func testBilledThrough(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	t.Run("NewTenantFromItsPeriod", func(t *testing.T) { wantBilledThrough(t, s, tenant.ID, month(0)) })
	t.Run("NewTestTenantFromItsClock", func(t *testing.T) {
		test := mustTestTenant(t, s, month(3).Add(36*time.Hour))
		wantBilledThrough(t, s, test.ID, month(3))
	})
	t.Run("Set", func(t *testing.T) {
		mustBilledThrough(t, s, tenant.ID, month(2))
		wantBilledThrough(t, s, tenant.ID, month(2))
		mustBilledThrough(t, s, tenant.ID, month(1).In(time.FixedZone("UTC+2", 2*3600)))
		wantBilledThrough(t, s, tenant.ID, month(1))
	})
	t.Run("InTx", func(t *testing.T) {
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			if err := s.Periods.SetBilledThrough(ctx, tenant.ID, month(4)); err != nil {
				return err
			}
			return errRollback
		})
		wantErr(t, "InTx", err, errRollback)
		wantBilledThrough(t, s, tenant.ID, month(1))
	})
	t.Run("ErrNotFoundTenant", func(t *testing.T) {
		wantErr(t, "SetBilledThrough(unknown tenant)", s.Periods.SetBilledThrough(ctx, id.New(id.Tenant), month(1)), tenancy.ErrNotFound)
	})
}

// testBilledThroughUnset checks a tenant from before billing: no mark.
func testBilledThroughUnset(t *testing.T, s Backend) {
	got, set, err := s.Periods.BilledThrough(t.Context(), TenantUnbilled)
	if err != nil || set || !got.IsZero() {
		t.Fatalf("BilledThrough(%s): got %v, %v, %v; want zero, false", TenantUnbilled, got, set, err)
	}
}

// newPeriod returns a record of the tenant's period i: an opening
// contract and two proration lines.
func newPeriod(tenantID string, i int) contract.Period {
	return contract.Period{
		Start:   month(i),
		Opening: &contract.Terms{TenantID: tenantID, PlanID: "starter", Seats: 5, AddOns: []string{"collections.reminders", "support.sla"}},
		Prorations: []contract.PreviewLine{
			{Kind: contract.LineProration, Description: "Unused time on Starter", Quantity: 1, UnitAmount: -1450, Amount: -1450},
			{Kind: contract.LineProration, Description: "Remaining time on Growth", Quantity: 1, UnitAmount: 3267, Amount: 3267},
		},
	}
}

// samePeriod fails unless got equals want: its start (UTC), its opening
// contract (in JSON) and its proration lines.
func samePeriod(tb testing.TB, got, want contract.Period) {
	tb.Helper()
	g, _ := json.Marshal(got.Opening)
	w, _ := json.Marshal(want.Opening)
	if !got.Start.Equal(want.Start) || got.Start.Location() != time.UTC || string(g) != string(w) || !slices.Equal(got.Prorations, want.Prorations) {
		tb.Fatalf("period differs:\n got %v opening %s prorations %+v\nwant %v opening %s prorations %+v",
			got.Start, g, got.Prorations, want.Start, w, want.Prorations)
	}
}

func mustPeriod(tb testing.TB, s Backend, tenantID string, start time.Time) contract.Period {
	tb.Helper()
	p, err := s.Periods.Period(context.Background(), tenantID, start)
	if err != nil {
		tb.Fatalf("Period(%s, %v): %v", tenantID, start, err)
	}
	return p
}

// testPeriod checks a period's record: absent, saved, replaced.
func testPeriod(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	t.Run("Absent", func(t *testing.T) {
		samePeriod(t, mustPeriod(t, s, tenant.ID, month(0)), contract.Period{Start: month(0)})
	})
	want := newPeriod(tenant.ID, 0)
	t.Run("Save", func(t *testing.T) {
		wantErr(t, "SavePeriod", s.Periods.SavePeriod(ctx, tenant.ID, want), nil)
		samePeriod(t, mustPeriod(t, s, tenant.ID, month(0)), want)
	})
	t.Run("Replace", func(t *testing.T) {
		want.Opening = &contract.Terms{TenantID: tenant.ID, PlanID: "growth", Seats: 12, AddOns: []string{}}
		want.Prorations = want.Prorations[:1]
		wantErr(t, "SavePeriod", s.Periods.SavePeriod(ctx, tenant.ID, want), nil)
		samePeriod(t, mustPeriod(t, s, tenant.ID, month(0)), want)
	})
	t.Run("InTx", func(t *testing.T) {
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			if err := s.Periods.SavePeriod(ctx, tenant.ID, newPeriod(tenant.ID, 0)); err != nil {
				return err
			}
			return errRollback
		})
		wantErr(t, "InTx", err, errRollback)
		samePeriod(t, mustPeriod(t, s, tenant.ID, month(0)), want)
	})
}

// testPeriodIsolation checks that a period's record is its tenant's and
// its start's alone.
func testPeriodIsolation(t *testing.T, s Backend) {
	a, b := mustTenant(t, s), mustTenant(t, s)
	wantErr(t, "SavePeriod", s.Periods.SavePeriod(t.Context(), a.ID, newPeriod(a.ID, 0)), nil)
	samePeriod(t, mustPeriod(t, s, b.ID, month(0)), contract.Period{Start: month(0)})
	samePeriod(t, mustPeriod(t, s, a.ID, month(1)), contract.Period{Start: month(1)})
	samePeriod(t, mustPeriod(t, s, a.ID, month(-1)), contract.Period{Start: month(-1)})
	samePeriod(t, mustPeriod(t, s, a.ID, month(0)), newPeriod(a.ID, 0))
}

// testTenantsToBill checks the scheduler's list: real tenants billed
// through before the period, or never, by id, in pages.
func testTenantsToBill(t *testing.T, s Backend) {
	ctx := t.Context()
	y2k := func(m time.Month) time.Time { return time.Date(2000, m, 1, 0, 0, 0, 0, time.UTC) }
	tenant := func(billed time.Time) string {
		tn := mustTenant(t, s)
		mustBilledThrough(t, s, tn.ID, billed)
		return tn.ID
	}
	due1 := tenant(y2k(1))
	tenant(y2k(3)) // billed through the period
	due2 := tenant(y2k(2).Add(-time.Microsecond))
	tenant(y2k(4)) // beyond it
	due3 := tenant(y2k(1))
	test := mustTestTenant(t, s, y2k(1)) // the scheduler leaves it to its clock
	mustBilledThrough(t, s, test.ID, y2k(1))

	before := y2k(3)
	all := []string{TenantUnbilled, due1, due2, due3} // ids sort in the order they were made
	tests := []struct {
		name  string
		after string
		limit int
		want  []string
	}{
		{"All", "", 10, all},
		{"Limit", "", 2, all[:2]},
		{"After", all[1], 2, all[2:]},
		{"AfterLast", all[3], 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Periods.TenantsToBill(ctx, before, tc.after, tc.limit)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("TenantsToBill(%v, %q, %d): got %v, %v; want %v", before, tc.after, tc.limit, got, err, tc.want)
			}
		})
	}
	t.Run("BilledThroughTheRun", func(t *testing.T) {
		for _, tenantID := range all[1:] {
			mustBilledThrough(t, s, tenantID, before)
		}
		got, err := s.Periods.TenantsToBill(ctx, before, "", 10)
		if want := all[:1]; err != nil || !slices.Equal(got, want) {
			t.Fatalf("TenantsToBill after billing: got %v, %v; want %v", got, err, want)
		}
	})
}

// testTestClock checks a test tenant's clock, and that a real tenant has
// none to read or move.
func testTestClock(t *testing.T, s Backend) {
	ctx := t.Context()
	wantClock := func(t *testing.T, tenantID string, wantTest bool, want time.Time) {
		t.Helper()
		test, clock, err := s.Periods.TestClock(ctx, tenantID)
		if err != nil || test != wantTest || !clock.Equal(want) || (wantTest && clock.Location() != time.UTC) {
			t.Fatalf("TestClock(%s): got %v, %v, %v; want %v, %v (UTC)", tenantID, test, clock, err, wantTest, want)
		}
	}
	realTenant := mustTenant(t, s)
	start := base()
	test := mustTestTenant(t, s, start)
	t.Run("RealTenant", func(t *testing.T) { wantClock(t, realTenant.ID, false, time.Time{}) })
	t.Run("TestTenant", func(t *testing.T) { wantClock(t, test.ID, true, start) })
	t.Run("Set", func(t *testing.T) {
		later := start.Add(40*24*time.Hour + time.Microsecond)
		wantErr(t, "SetTestClock", s.Periods.SetTestClock(ctx, test.ID, later.In(time.FixedZone("UTC-5", -5*3600))), nil)
		wantClock(t, test.ID, true, later)
	})
	t.Run("ErrNotFoundRealTenant", func(t *testing.T) {
		wantErr(t, "SetTestClock(real tenant)", s.Periods.SetTestClock(ctx, realTenant.ID, start), tenancy.ErrNotFound)
		wantClock(t, realTenant.ID, false, time.Time{})
	})
	t.Run("ErrNotFoundTenant", func(t *testing.T) {
		unknown := id.New(id.Tenant)
		_, _, err := s.Periods.TestClock(ctx, unknown)
		wantErr(t, "TestClock(unknown tenant)", err, tenancy.ErrNotFound)
		wantErr(t, "SetTestClock(unknown tenant)", s.Periods.SetTestClock(ctx, unknown, start), tenancy.ErrNotFound)
	})
}
