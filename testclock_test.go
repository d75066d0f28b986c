package tenantkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TestTestClock: a test tenant lives on its own clock. The scheduler,
// ticking on the wall clock far ahead, leaves it alone while it runs a
// real tenant's schedule; advancing the test clock runs the test
// tenant's schedule on the way (its platform invoices at each period
// end, its collections and its SLA checks) and stamps with its time. A
// clock moves forward only, and a real tenant's not at all.
func TestTestClock(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		ctx := context.Background()
		dir := app.Tenancy.Directory
		real, err := dir.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "real", Name: "Real", PlanID: catalog.PlanEnterprise})
		if err != nil {
			t.Fatal(err)
		}
		test, err := dir.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "test", Name: "Test", PlanID: catalog.PlanEnterprise, Test: true})
		if err != nil || test.TestClock == nil {
			t.Fatalf("create test tenant: %+v, %v; want a clock", test, err)
		}
		start := *test.TestClock
		testCtx := tenancy.WithTestClock(ctx, start)
		due := start.AddDate(0, 0, 3).Format(billing.DateLayout)
		invoice := func(ctx context.Context, tenantID string) billing.Invoice {
			inv, err := app.Billing.Create(ctx, tenantID, billing.CreateInvoiceInput{
				Customer: billing.CustomerInput{Name: "Ada Lovelace", Email: "ada@example.com"}, Currency: "USD",
				LineItems: []billing.LineItemInput{{Description: "Service", Quantity: 1, UnitAmount: 1000}}, DueDate: due})
			if err != nil {
				t.Fatal(err)
			}
			return inv
		}
		realInv, testInv := invoice(ctx, real.ID), invoice(testCtx, test.ID)
		ticket, err := app.Support.Create(testCtx, test.ID, support.Requester{ID: "usr_ann", Email: "ann@test.test", Name: "Ann"},
			support.CreateTicketInput{Subject: "Down", Description: "Everything is down", Priority: "normal"})
		if err != nil {
			t.Fatal(err)
		}
		if !ticket.CreatedAt.Equal(start) {
			t.Errorf("ticket stamped %s, want the test clock's %s", ticket.CreatedAt, start)
		}

		// The wall clock's scheduler, 40 days on: the real tenant's
		// schedule runs, the test tenant's does not.
		later := start.AddDate(0, 0, 40)
		if err := app.Scheduler.Tick(ctx, later); err != nil {
			t.Fatal(err)
		}
		if got := mustInvoice(t, app, real.ID, realInv.ID); got.Status != billing.StatusUncollectible {
			t.Errorf("real tenant's invoice after 40 days: %s, want uncollectible", got.Status)
		}
		if got := mustInvoice(t, app, test.ID, testInv.ID); got.Status != billing.StatusOpen || got.Overdue {
			t.Errorf("test tenant's invoice after the wall clock's tick: %s (overdue %v), want open, untouched", got.Status, got.Overdue)
		}
		if got, _ := app.Support.Get(ctx, test.ID, ticket.ID); *got.SLABreached {
			t.Error("test tenant's ticket breached by the wall clock's tick")
		}
		if n := len(platformInvoices(t, app, test.ID)); n != 0 {
			t.Errorf("test tenant has %d platform invoices after the wall clock's tick, want 0", n)
		}
		if n := len(platformInvoices(t, app, real.ID)); n == 0 {
			t.Error("real tenant has no platform invoice after a tick 40 days on")
		}

		// Its own clock, 40 days on: the same schedule, on its time.
		to, err := app.Contracts.AdvanceClock(ctx, test.ID, contract.ClockInput{AdvanceTo: later})
		if err != nil || !to.Equal(later) {
			t.Fatalf("advance: %s, %v", to, err)
		}
		if got := mustInvoice(t, app, test.ID, testInv.ID); got.Status != billing.StatusUncollectible {
			t.Errorf("test tenant's invoice after its clock moved 40 days: %s, want uncollectible", got.Status)
		}
		if got, _ := app.Support.Get(ctx, test.ID, ticket.ID); !*got.SLABreached {
			t.Error("test tenant's ticket not breached after its clock passed the target")
		}
		pins := platformInvoices(t, app, test.ID)
		_, first, _ := tenancy.Period(start)
		_, last, _ := tenancy.Period(later)
		months := 0
		for m := first; m.Before(last); m = m.AddDate(0, 1, 0) {
			months++
		}
		if len(pins) != months {
			t.Fatalf("test tenant has %d platform invoices, want %d (one per period ended)", len(pins), months)
		}
		for _, p := range pins {
			if !p.CreatedAt.Equal(p.PeriodEnd) {
				t.Errorf("platform invoice %s created at %s, want its period's end %s on the test clock", p.ID, p.CreatedAt, p.PeriodEnd)
			}
		}
		evs, _, err := app.Events.List(ctx, test.ID, event.Filter{Type: event.PlatformInvoiceCreated, Limit: 100})
		if err != nil || len(evs) != months {
			t.Fatalf("platform_invoice.created events: %d, %v; want %d", len(evs), err, months)
		}
		for _, ev := range evs {
			if ev.CreatedAt.After(later) || ev.CreatedAt.Before(start) {
				t.Errorf("event %s stamped %s, want a time on the test clock, between %s and %s", ev.ID, ev.CreatedAt, start, later)
			}
		}

		for _, tc := range []struct {
			name, tenant string
			to           time.Time
			field        string
		}{
			{"Backwards", test.ID, later.Add(-time.Second), "advance_to"},
			{"SameTime", test.ID, later, "advance_to"},
			{"RealTenant", real.ID, later.AddDate(0, 1, 0), "tenant"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := app.Contracts.AdvanceClock(ctx, tc.tenant, contract.ClockInput{AdvanceTo: tc.to})
				var invalid *tenancy.InvalidError
				if !errors.As(err, &invalid) || invalid.Fields[tc.field] == "" {
					t.Fatalf("advance: %v, want invalid %s", err, tc.field)
				}
			})
		}
	})
}

func platformInvoices(t *testing.T, app *tenantkit.App, tenantID string) []contract.Invoice {
	t.Helper()
	invs, _, err := app.Contracts.Invoices(context.Background(), tenantID, contract.InvoiceFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return invs
}
