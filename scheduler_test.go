package tenantkit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TestSchedulerTick: a tick runs every job once, in the order added, at
// the time given; a job that fails or panics does not stop the others,
// and the error names it.
func TestSchedulerTick(t *testing.T) {
	at := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	var ran []string
	record := func(name string, done int, err error) tenantkit.Job {
		return func(_ context.Context, now time.Time) (int, error) {
			if !now.Equal(at) {
				t.Errorf("job %s got now %v, want %v", name, now, at)
			}
			ran = append(ran, name)
			return done, err
		}
	}
	errBoom := errors.New("boom")
	s := tenantkit.NewScheduler()
	s.Add("first", record("first", 1, nil))
	s.Add("failing", record("failing", 0, errBoom))
	s.Add("panicking", func(context.Context, time.Time) (int, error) { ran = append(ran, "panicking"); panic("oops") })
	s.Add("last", record("last", 3, nil))

	if got, want := s.Jobs(), []string{"first", "failing", "panicking", "last"}; !slices.Equal(got, want) {
		t.Errorf("Jobs() = %v, want %v", got, want)
	}
	err := s.Tick(context.Background(), at)
	if want := []string{"first", "failing", "panicking", "last"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if !errors.Is(err, errBoom) {
		t.Errorf("Tick error %v, want one wrapping the job's error", err)
	}
	for _, part := range []string{"failing: boom", "panicking: panic: oops"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("Tick error %q does not say %q", err, part)
		}
	}

	ran = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Tick(ctx, at); err != nil || len(ran) != 0 {
		t.Errorf("Tick on an ended context ran %v (error %v), want nothing", ran, err)
	}
}

func TestSchedulerAddRefuses(t *testing.T) {
	job := func(context.Context, time.Time) (int, error) { return 0, nil }
	tests := []struct {
		name string
		add  func(s *tenantkit.Scheduler)
	}{
		{"ErrNoName", func(s *tenantkit.Scheduler) { s.Add("", job) }},
		{"ErrNoJob", func(s *tenantkit.Scheduler) { s.Add("x", nil) }},
		{"ErrTaken", func(s *tenantkit.Scheduler) { s.Add("x", job); s.Add("x", job) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Add did not panic")
				}
			}()
			tt.add(tenantkit.NewScheduler())
		})
	}
}

// TestSchedulerRun: Run ticks at once and reports every job's result,
// and returns when its context ends; with no interval it does nothing.
func TestSchedulerRun(t *testing.T) {
	s := tenantkit.NewScheduler()
	s.Add("count", func(context.Context, time.Time) (int, error) { return 2, nil })
	s.Add("fail", func(context.Context, time.Time) (int, error) { return 0, errors.New("no") })

	ctx, cancel := context.WithCancel(context.Background())
	var got []tenantkit.JobResult
	s.Run(ctx, time.Hour, func(r tenantkit.JobResult) {
		got = append(got, r)
		if len(got) == 2 {
			cancel() // Run returns instead of waiting an hour
		}
	})
	if len(got) != 2 || got[0].Job != "count" || got[0].Done != 2 || got[0].Err != nil ||
		got[1].Job != "fail" || got[1].Err == nil {
		t.Errorf("reported %+v, want count (2) and fail (an error)", got)
	}

	called := false
	s.Run(context.Background(), 0, func(tenantkit.JobResult) { called = true })
	if called {
		t.Error("Run with interval 0 ticked")
	}
}

// TestAppScheduler: New registers tenantkit's jobs, and a tick of the
// App's scheduler runs the collection schedule at the time given.
func TestAppScheduler(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		want := []string{tenantkit.JobBilling, tenantkit.JobContracts, tenantkit.JobCollections, tenantkit.JobSLA, tenantkit.JobIdempotencyPurge, tenantkit.JobEventsPrune}
		if got := app.Scheduler.Jobs(); !slices.Equal(got, want) {
			t.Errorf("Jobs() = %v, want %v", got, want)
		}
		c := newCollections(t, app, "tick")
		inv := c.mustInvoice(t, app)
		if err := app.Scheduler.Tick(context.Background(), c.day(-0.5)); err != nil {
			t.Fatal(err)
		}
		if got := mustInvoice(t, app, c.tenantID, inv.ID); got.Overdue {
			t.Error("overdue before its due date has passed")
		}
		if err := app.Scheduler.Tick(context.Background(), c.day(22)); err != nil {
			t.Fatal(err)
		}
		got := mustInvoice(t, app, c.tenantID, inv.ID)
		if got.Status != billing.StatusUncollectible || got.UncollectibleReason != billing.ReasonDunning {
			t.Errorf("day 22: %s (%q), want uncollectible (dunning)", got.Status, got.UncollectibleReason)
		}
	})
}

// TestSchedulersOnTwoApps runs two Apps on one Postgres database, as two
// replicas of the server are, each ticking from several goroutines at
// once through the whole schedule, also late and repeatedly: every step
// of every invoice happens once — one notification each, one write-off.
func TestSchedulersOnTwoApps(t *testing.T) {
	url := dbtest.PostgresURL(t)
	ctx := context.Background()
	apps := make([]*tenantkit.App, 2)
	for i := range apps {
		db, err := database.Open(ctx, url, database.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if _, err := tenantkit.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		if apps[i], err = tenantkit.New(db, catalog.Default()); err != nil {
			t.Fatal(err)
		}
	}
	c := newCollections(t, apps[0], "replicas")
	invs := make([]billing.Invoice, 12)
	for i := range invs {
		invs[i] = c.mustInvoice(t, apps[i%2])
	}

	// Half the goroutines tick the whole Scheduler, half run its
	// collections job alone, which reports how many steps it took: each
	// step of each invoice must be taken once in all, by whichever
	// goroutine of whichever App gets there first.
	days := []float64{0, 0, 1, 3, 7, 7.5, 14, 20, 21, 21, 30}
	const perApp = 4
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		acted int
	)
	errs := make(chan error, len(apps)*perApp*len(days))
	for i := range len(apps) * perApp {
		app := apps[i%len(apps)]
		wg.Go(func() {
			for _, d := range days {
				var err error
				if i%4 < 2 {
					err = app.Scheduler.Tick(ctx, c.day(d))
				} else {
					var n int
					n, err = app.Dunning.Run(ctx, c.day(d))
					mu.Lock()
					acted += n
					mu.Unlock()
				}
				if err != nil {
					errs <- fmt.Errorf("scheduler %d at day %v: %w", i, d, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if acted > len(invs)*len(billing.Schedule()) {
		t.Errorf("the collections runs took %d steps, more than the %d there are", acted, len(invs)*len(billing.Schedule()))
	}

	notes, _, err := apps[1].Tenancy.Notifications.List(ctx, c.tenantID, tenancy.NotificationFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{} // invoice id + step → notifications
	for _, n := range notes {
		id, _ := n.Data["invoice_id"].(string)
		step, _ := n.Data["step"].(string)
		counts[id+" "+step]++
	}
	for _, inv := range invs {
		for _, st := range billing.Schedule() {
			if n := counts[inv.ID+" "+st.Name]; n != 1 {
				t.Errorf("%s: %d %s notifications, want 1", inv.Number, n, st.Name)
			}
		}
		got := mustInvoice(t, apps[1], c.tenantID, inv.ID)
		if got.Status != billing.StatusUncollectible || got.UncollectibleReason != billing.ReasonDunning {
			t.Errorf("%s: %s (%q), want uncollectible (dunning)", inv.Number, got.Status, got.UncollectibleReason)
		}
		steps, err := apps[0].Dunning.Steps(ctx, c.tenantID, inv.ID)
		if err != nil || len(steps) != len(billing.Schedule()) {
			t.Errorf("%s: steps %+v (%v), want one record per step", inv.Number, steps, err)
		}
	}
	// The platform's own invoices to the tenant, generated by the same
	// ticks: each once, each notice once.
	platform := map[string]int{}
	for _, n := range notes {
		if id, ok := n.Data["platform_invoice_id"].(string); ok {
			platform[n.Type+" "+id]++
		}
	}
	for k, n := range platform {
		if n != 1 {
			t.Errorf("%s: %d notifications, want 1", k, n)
		}
	}
	pins, _, err := apps[0].Contracts.Invoices(ctx, c.tenantID, contract.InvoiceFilter{Limit: 100})
	if err != nil || len(pins) == 0 {
		t.Errorf("platform invoices: %d, %v; want one per period ended", len(pins), err)
	}
	if want := len(invs)*len(billing.Schedule()) + len(platform); len(notes) != want {
		t.Errorf("%d notifications in all, want %d", len(notes), want)
	}
}

// collections is a tenant on the enterprise plan (reminders and dunning
// on) whose invoices fall due three days from now.
type collections struct {
	tenantID string
	due      string
	from     time.Time
}

func newCollections(tb testing.TB, app *tenantkit.App, slug string) collections {
	tb.Helper()
	tn, err := app.Tenancy.Directory.CreateTenant(context.Background(),
		tenancy.CreateTenantInput{Slug: slug, Name: slug, PlanID: catalog.PlanEnterprise})
	if err != nil {
		tb.Fatalf("create tenant: %v", err)
	}
	due := time.Now().UTC().AddDate(0, 0, 3).Format(billing.DateLayout)
	from, _ := billing.OverdueFrom(due)
	return collections{tenantID: tn.ID, due: due, from: from}
}

// day is the time d days after the invoices became overdue.
func (c collections) day(d float64) time.Time {
	return c.from.Add(time.Duration(d * float64(24*time.Hour)))
}

func (c collections) mustInvoice(tb testing.TB, app *tenantkit.App) billing.Invoice {
	tb.Helper()
	inv, err := app.Billing.Create(context.Background(), c.tenantID, billing.CreateInvoiceInput{
		Customer: billing.CustomerInput{Name: "Ada Lovelace", Email: "ada@example.com"}, Currency: "USD",
		LineItems: []billing.LineItemInput{{Description: "Service", Quantity: 1, UnitAmount: 1000}},
		DueDate:   c.due,
	})
	if err != nil {
		tb.Fatalf("create invoice: %v", err)
	}
	return inv
}

func mustInvoice(tb testing.TB, app *tenantkit.App, tenantID, id string) billing.Invoice {
	tb.Helper()
	inv, err := app.Billing.Get(context.Background(), tenantID, id)
	if err != nil {
		tb.Fatalf("get invoice: %v", err)
	}
	return inv
}

// TestAppSchedulerSLA: a tick of the App's scheduler after a ticket's
// first-response target marks it breached, once, whatever the ticks after.
func TestAppSchedulerSLA(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		ctx := context.Background()
		c := newCollections(t, app, "sla") // enterprise: support.sla included
		tk, err := app.Support.Create(ctx, c.tenantID, support.Requester{ID: "usr_sla", Email: "ann@sla.test", Name: "Ann"},
			support.CreateTicketInput{Subject: "Down", Description: "Everything is down", Priority: "normal"})
		if err != nil {
			t.Fatal(err)
		}
		if tk.FirstResponseDueAt == nil || tk.SLABreached == nil || *tk.SLABreached {
			t.Fatalf("new ticket: first_response_due_at %v, sla_breached %v; want a target and false", tk.FirstResponseDueAt, tk.SLABreached)
		}
		before := tk.FirstResponseDueAt.Add(-time.Minute)
		if err := app.Scheduler.Tick(ctx, before); err != nil {
			t.Fatal(err)
		}
		if got, _ := app.Support.Get(ctx, c.tenantID, tk.ID); *got.SLABreached {
			t.Fatal("breached before its target passed")
		}
		for range 3 {
			if err := app.Scheduler.Tick(ctx, tk.FirstResponseDueAt.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := app.Support.Get(ctx, c.tenantID, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !*got.SLABreached {
			t.Error("not breached after its first-response target passed")
		}
		ns, _, err := app.Tenancy.Notifications.List(ctx, c.tenantID, tenancy.NotificationFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, nt := range ns {
			if nt.Type == support.NotificationSLABreached {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d sla breach notifications after three ticks, want 1", n)
		}
	})
}
