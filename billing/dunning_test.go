package billing_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// collectEnv is the collection schedule wired as the server wires it, on
// a fresh database, with a clock the test sets: Run is given the time.
type collectEnv struct {
	app   *tenantkit.App
	store *bunstore.Store
	// due is the due date of the test's invoices, three days from now so
	// that Create (on the real clock) finds them not yet overdue; from is
	// when they become overdue.
	due  string
	from time.Time
}

// eachCollect runs fn on SQLite and Postgres.
func eachCollect(t *testing.T, fn func(t *testing.T, e collectEnv)) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		due := time.Now().UTC().AddDate(0, 0, 3).Format(billing.DateLayout)
		from, ok := billing.OverdueFrom(due)
		if !ok {
			t.Fatalf("OverdueFrom(%q) not ok", due)
		}
		fn(t, collectEnv{app: app, store: bunstore.New(db), due: due, from: from})
	})
}

// day is the time d days after the invoices became overdue.
func (e collectEnv) day(d float64) time.Time {
	return e.from.Add(time.Duration(d * float64(24*time.Hour)))
}

func (e collectEnv) mustTenant(tb testing.TB, slug, plan string) string {
	tb.Helper()
	tn, err := e.app.Tenancy.Directory.CreateTenant(context.Background(), tenancy.CreateTenantInput{Slug: slug, Name: slug, PlanID: plan})
	if err != nil {
		tb.Fatalf("create tenant: %v", err)
	}
	return tn.ID
}

// mustInvoice creates an open invoice of 1000 USD due on e.due.
func (e collectEnv) mustInvoice(tb testing.TB, tenantID string) billing.Invoice {
	tb.Helper()
	in := withTotal(1000)
	in.DueDate = e.due
	return mustCreate(tb, bills{Service: e.app.Billing, ledger: e.app.Payments}, tenantID, in)
}

// run runs the collection schedule at d days overdue and returns how many
// steps acted.
func (e collectEnv) run(tb testing.TB, d float64) int {
	tb.Helper()
	n, err := e.app.Dunning.Run(context.Background(), e.day(d))
	if err != nil {
		tb.Fatalf("Run at day %v: %v", d, err)
	}
	return n
}

func (e collectEnv) mustGet(tb testing.TB, tenantID, invoiceID string) billing.Invoice {
	tb.Helper()
	inv, err := e.app.Billing.Get(context.Background(), tenantID, invoiceID)
	if err != nil {
		tb.Fatalf("Get: %v", err)
	}
	return inv
}

func (e collectEnv) toggle(tb testing.TB, tenantID, module string, on bool) {
	tb.Helper()
	if _, _, err := e.app.Tenancy.Modules.Toggle(context.Background(), tenantID, tenancy.RoleOwner, module, on); err != nil {
		tb.Fatalf("toggle %s %v: %v", module, on, err)
	}
}

// notes counts the tenant's collection notifications about invoiceID by
// step, checking that each step's notification has its type.
func (e collectEnv) notes(tb testing.TB, tenantID, invoiceID string) map[string]int {
	tb.Helper()
	types := map[string]string{
		billing.StepOverdue: billing.NotificationOverdue, billing.StepDunning: billing.NotificationUncollectible,
		billing.StepReminder1: billing.NotificationReminder, billing.StepReminder7: billing.NotificationReminder,
		billing.StepReminder14: billing.NotificationReminder,
	}
	counts := map[string]int{}
	ns, _, err := e.app.Tenancy.Notifications.List(context.Background(), tenantID, tenancy.NotificationFilter{Limit: 100})
	if err != nil {
		tb.Fatalf("notifications: %v", err)
	}
	for _, n := range ns {
		if n.Data["invoice_id"] != invoiceID {
			continue
		}
		step, _ := n.Data["step"].(string)
		if want := types[step]; n.Type != want {
			tb.Errorf("notification of step %q has type %q, want %q", step, n.Type, want)
		}
		counts[step]++
	}
	return counts
}

// steps returns the invoice's recorded steps as name → outcome.
func (e collectEnv) steps(tb testing.TB, tenantID, invoiceID string) map[string]billing.StepOutcome {
	tb.Helper()
	steps, err := e.app.Dunning.Steps(context.Background(), tenantID, invoiceID)
	if err != nil {
		tb.Fatalf("Steps: %v", err)
	}
	out := map[string]billing.StepOutcome{}
	for _, st := range steps {
		out[st.Step] = st.Outcome
	}
	return out
}

func assertCounts(tb testing.TB, what string, got, want map[string]int) {
	tb.Helper()
	for _, st := range billing.Schedule() {
		if got[st.Name] != want[st.Name] {
			tb.Errorf("%s: %d %s notifications, want %d (all: %v)", what, got[st.Name], st.Name, want[st.Name], got)
		}
	}
}

func TestScheduleDays(t *testing.T) {
	want := map[string]int{"overdue": 0, "reminder_1": 1, "reminder_7": 7, "reminder_14": 14, "dunning": 21}
	for _, st := range billing.Schedule() {
		if d, ok := want[st.Name]; !ok || d != st.Day {
			t.Errorf("step %s on day %d, want day %d (documented)", st.Name, st.Day, d)
		}
	}
	from, ok := billing.OverdueFrom("2026-12-01")
	if wantFrom := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC); !ok || !from.Equal(wantFrom) {
		t.Errorf("OverdueFrom(2026-12-01) = %v, %v; want %v", from, ok, wantFrom)
	}
	for _, bad := range []string{"", "2026-13-01", "tomorrow"} {
		if _, ok := billing.OverdueFrom(bad); ok {
			t.Errorf("OverdueFrom(%q) ok, want not", bad)
		}
	}
}

// TestDunningOverdue: an open invoice becomes overdue once its due date
// has passed, with one invoice.overdue notification however often the
// schedule runs; invoices that are not open or have no due date never do;
// a payment clears the flag. On the free plan (no reminders, no dunning)
// the later steps are skipped and the invoice stays open.
func TestDunningOverdue(t *testing.T) {
	eachCollect(t, func(t *testing.T, e collectEnv) {
		ctx := context.Background()
		tenantID := e.mustTenant(t, "overdue", catalog.PlanFree)
		inv := e.mustInvoice(t, tenantID)
		if inv.Overdue {
			t.Fatal("a new invoice not yet due is overdue")
		}
		noDue := mustCreate(t, bills{Service: e.app.Billing, ledger: e.app.Payments}, tenantID, withTotal(1000))
		draftIn := withTotal(1000)
		draftIn.DueDate, draftIn.Status = e.due, "draft"
		draft := mustCreate(t, bills{Service: e.app.Billing, ledger: e.app.Payments}, tenantID, draftIn)
		paid := e.mustInvoice(t, tenantID)
		if _, err := (bills{Service: e.app.Billing, ledger: e.app.Payments}).ApplyPayment(ctx, tenantID, paid.ID, 1000, "USD"); err != nil {
			t.Fatal(err)
		}

		ticks := []struct {
			day         float64
			wantOverdue bool
		}{
			{-1, false}, {-0.001, false}, {0, true}, {0, true}, {0.5, true}, {3, true}, {40, true}, {40, true},
		}
		for _, tk := range ticks {
			e.run(t, tk.day)
			got := e.mustGet(t, tenantID, inv.ID)
			if got.Overdue != tk.wantOverdue || got.Status != billing.StatusOpen {
				t.Errorf("day %v: overdue %v, status %s; want %v, open", tk.day, got.Overdue, got.Status, tk.wantOverdue)
			}
			want := map[string]int{}
			if tk.wantOverdue {
				want[billing.StepOverdue] = 1
			}
			assertCounts(t, "day", e.notes(t, tenantID, inv.ID), want)
		}
		wantSteps := map[string]billing.StepOutcome{
			"overdue": billing.StepDone, "reminder_1": billing.StepSkipped, "reminder_7": billing.StepSkipped,
			"reminder_14": billing.StepSkipped, "dunning": billing.StepSkipped,
		}
		if got := e.steps(t, tenantID, inv.ID); len(got) != len(wantSteps) {
			t.Errorf("steps %v, want %v", got, wantSteps)
		} else {
			for k, v := range wantSteps {
				if got[k] != v {
					t.Errorf("step %s: %s, want %s", k, got[k], v)
				}
			}
		}
		// Through the schedule, the invoice stays open but leaves the scan.
		scan, err := e.store.DueForCollection(ctx, "", []billing.DueStep{{Step: "any", DueBefore: "9999-12-31"}}, billing.InvoiceKey{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range scan {
			if s.ID == inv.ID {
				t.Error("the scan still visits an invoice through the schedule")
			}
		}
		for _, other := range []billing.Invoice{noDue, draft, paid} {
			if got := e.mustGet(t, tenantID, other.ID); got.Overdue {
				t.Errorf("%s invoice (due %q) is overdue", got.Status, got.DueDate)
			}
			assertCounts(t, "not open or no due date", e.notes(t, tenantID, other.ID), nil)
		}

		got, err := (bills{Service: e.app.Billing, ledger: e.app.Payments}).ApplyPayment(ctx, tenantID, inv.ID, 1000, "USD")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != billing.StatusPaid || got.Overdue || e.mustGet(t, tenantID, inv.ID).Overdue {
			t.Errorf("after paying: status %s, overdue %v; want paid, not overdue", got.Status, got.Overdue)
		}
	})
}

// TestDunningReminders: with collections.reminders (growth plan), each
// reminder is sent once, at its day or at the first run after it however
// late, however often the schedule runs. Without collections.dunning the
// invoice stays open after the last step.
func TestDunningReminders(t *testing.T) {
	all := map[string]int{"overdue": 1, "reminder_1": 1, "reminder_7": 1, "reminder_14": 1}
	tests := []struct {
		name      string
		days      []float64
		want      map[string]int
		wantActed int // steps acted at the last run, for this invoice alone
	}{
		{"OnTime", []float64{0, 1, 7, 14, 21}, all, 0},
		{"ManyRuns", []float64{0, 0, 0.5, 1, 1, 1, 2, 6.999, 7, 7, 13.9, 14, 14, 30, 30}, all, 0},
		{"Late", []float64{3, 10, 40}, all, 1},
		{"OneRunLongAfter", []float64{100}, all, 4},
		{"NotYet", []float64{0, 0.999, 6.99}, map[string]int{"overdue": 1, "reminder_1": 1}, 1},
		{"BeforeDue", []float64{-5, -0.5}, nil, 0},
	}
	eachCollect(t, func(t *testing.T, e collectEnv) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				// A tenant per case: Run works for every tenant, and other
				// cases' invoices must not count here.
				tenantID := e.mustTenant(t, "rem-"+map[string]string{
					"OnTime": "a", "ManyRuns": "b", "Late": "c", "OneRunLongAfter": "d", "NotYet": "e", "BeforeDue": "f",
				}[tt.name], catalog.PlanGrowth)
				inv := e.mustInvoice(t, tenantID)
				acted := 0
				for _, d := range tt.days {
					before := e.notes(t, tenantID, inv.ID)
					e.run(t, d)
					after := e.notes(t, tenantID, inv.ID)
					acted = 0
					for k := range after {
						acted += after[k] - before[k]
					}
				}
				assertCounts(t, tt.name, e.notes(t, tenantID, inv.ID), tt.want)
				if acted != tt.wantActed {
					t.Errorf("the last run sent %d notifications for the invoice, want %d", acted, tt.wantActed)
				}
				if got := e.mustGet(t, tenantID, inv.ID); got.Status != billing.StatusOpen {
					t.Errorf("status %s without dunning, want open", got.Status)
				}
			})
		}
	})
}

// TestDunningModuleOff: turning collections.reminders off stops the
// reminders that fall due from then on, also once it is on again; turning
// collections.dunning off keeps the invoice open.
func TestDunningModuleOff(t *testing.T) {
	eachCollect(t, func(t *testing.T, e collectEnv) {
		tenantID := e.mustTenant(t, "modules", catalog.PlanEnterprise)
		inv := e.mustInvoice(t, tenantID)
		steps := []struct {
			toggle  string // module switched before the run
			on      bool
			day     float64
			want    map[string]int
			wantSts billing.Status
		}{
			{"", false, 1, map[string]int{"overdue": 1, "reminder_1": 1}, billing.StatusOpen},
			{catalog.ModuleReminders, false, 7, map[string]int{"overdue": 1, "reminder_1": 1}, billing.StatusOpen},
			{"", false, 14, map[string]int{"overdue": 1, "reminder_1": 1}, billing.StatusOpen},
			{catalog.ModuleReminders, true, 15, map[string]int{"overdue": 1, "reminder_1": 1}, billing.StatusOpen},
			{catalog.ModuleDunning, false, 21, map[string]int{"overdue": 1, "reminder_1": 1}, billing.StatusOpen},
			{catalog.ModuleDunning, true, 30, map[string]int{"overdue": 1, "reminder_1": 1}, billing.StatusOpen},
		}
		for _, st := range steps {
			if st.toggle != "" {
				e.toggle(t, tenantID, st.toggle, st.on)
			}
			e.run(t, st.day)
			assertCounts(t, "module off", e.notes(t, tenantID, inv.ID), st.want)
			if got := e.mustGet(t, tenantID, inv.ID); got.Status != st.wantSts {
				t.Errorf("day %v: status %s, want %s", st.day, got.Status, st.wantSts)
			}
		}
		got := e.steps(t, tenantID, inv.ID)
		for name, want := range map[string]billing.StepOutcome{
			"overdue": billing.StepDone, "reminder_1": billing.StepDone, "reminder_7": billing.StepSkipped,
			"reminder_14": billing.StepSkipped, "dunning": billing.StepSkipped,
		} {
			if got[name] != want {
				t.Errorf("step %s: %q, want %q", name, got[name], want)
			}
		}

		// An invoice falling due after the module is back on gets its
		// reminders.
		later := e.mustInvoice(t, tenantID)
		e.run(t, 40)
		assertCounts(t, "module back on", e.notes(t, tenantID, later.ID),
			map[string]int{"overdue": 1, "reminder_1": 1, "reminder_7": 1, "reminder_14": 1, "dunning": 1})
	})
}

// TestDunningWritesOff: with collections.dunning an invoice still unpaid
// on day 21 is marked uncollectible with reason dunning, once, and the
// tenant is told; a partly paid one too (amount_due keeps what was not
// paid); a paid one is left alone.
func TestDunningWritesOff(t *testing.T) {
	eachCollect(t, func(t *testing.T, e collectEnv) {
		ctx := context.Background()
		tenantID := e.mustTenant(t, "dunning", catalog.PlanEnterprise)
		unpaid := e.mustInvoice(t, tenantID)
		partly := e.mustInvoice(t, tenantID)
		paid := e.mustInvoice(t, tenantID)

		e.run(t, 10)
		if _, err := (bills{Service: e.app.Billing, ledger: e.app.Payments}).ApplyPayment(ctx, tenantID, partly.ID, 400, "USD"); err != nil {
			t.Fatal(err)
		}
		if _, err := (bills{Service: e.app.Billing, ledger: e.app.Payments}).ApplyPayment(ctx, tenantID, paid.ID, 1000, "USD"); err != nil {
			t.Fatal(err)
		}
		e.run(t, 20.99)
		if got := e.mustGet(t, tenantID, unpaid.ID); got.Status != billing.StatusOpen || !got.Overdue {
			t.Fatalf("day 20.99: status %s, overdue %v; want open, overdue", got.Status, got.Overdue)
		}
		for range 3 {
			e.run(t, 21)
		}
		e.run(t, 25)

		tests := []struct {
			name       string
			inv        billing.Invoice
			wantStatus billing.Status
			wantReason billing.UncollectibleReason
			wantDue    int64
			wantNotes  map[string]int
		}{
			{"Unpaid", unpaid, billing.StatusUncollectible, billing.ReasonDunning, 1000,
				map[string]int{"overdue": 1, "reminder_1": 1, "reminder_7": 1, "reminder_14": 1, "dunning": 1}},
			{"PartlyPaid", partly, billing.StatusUncollectible, billing.ReasonDunning, 600,
				map[string]int{"overdue": 1, "reminder_1": 1, "reminder_7": 1, "reminder_14": 1, "dunning": 1}},
			{"Paid", paid, billing.StatusPaid, "", 0,
				map[string]int{"overdue": 1, "reminder_1": 1, "reminder_7": 1}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := e.mustGet(t, tenantID, tt.inv.ID)
				if got.Status != tt.wantStatus || got.UncollectibleReason != tt.wantReason || got.AmountDue != tt.wantDue || got.Overdue {
					t.Errorf("status %s, reason %q, amount_due %d, overdue %v; want %s, %q, %d, false",
						got.Status, got.UncollectibleReason, got.AmountDue, got.Overdue, tt.wantStatus, tt.wantReason, tt.wantDue)
				}
				assertCounts(t, tt.name, e.notes(t, tenantID, tt.inv.ID), tt.wantNotes)
			})
		}
	})
}

// TestDunningConcurrentRuns: runs racing on one database take each step
// once: one notification per step, one write-off.
func TestDunningConcurrentRuns(t *testing.T) {
	eachCollect(t, func(t *testing.T, e collectEnv) {
		tenantID := e.mustTenant(t, "race", catalog.PlanEnterprise)
		invs := make([]billing.Invoice, 5)
		for i := range invs {
			invs[i] = e.mustInvoice(t, tenantID)
		}
		const runners = 6
		var wg sync.WaitGroup
		acted := make([]int, runners)
		errs := make([]error, runners)
		for i := range runners {
			wg.Go(func() {
				for _, d := range []float64{0, 8, 30} {
					n, err := e.app.Dunning.Run(context.Background(), e.day(d))
					acted[i] += n
					errs[i] = errors.Join(errs[i], err)
				}
			})
		}
		wg.Wait()
		total := 0
		for i := range runners {
			if errs[i] != nil {
				t.Fatalf("runner %d: %v", i, errs[i])
			}
			total += acted[i]
		}
		if want := len(invs) * len(billing.Schedule()); total != want {
			t.Errorf("runs acted %d times in all, want %d (each step of each invoice once)", total, want)
		}
		all := map[string]int{"overdue": 1, "reminder_1": 1, "reminder_7": 1, "reminder_14": 1, "dunning": 1}
		for _, inv := range invs {
			assertCounts(t, inv.Number, e.notes(t, tenantID, inv.ID), all)
			if got := e.mustGet(t, tenantID, inv.ID); got.Status != billing.StatusUncollectible || got.UncollectibleReason != billing.ReasonDunning {
				t.Errorf("%s: %s (%q), want uncollectible (dunning)", inv.Number, got.Status, got.UncollectibleReason)
			}
		}
	})
}

// TestMarkUncollectibleReason: the tenant's write-off is "manual"; a
// reason that is neither is refused and changes nothing.
func TestMarkUncollectibleReason(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		mark    func(svc *billing.Service, id string) (billing.Invoice, error)
		want    billing.UncollectibleReason
		wantErr error
	}{
		{"Manual", func(svc *billing.Service, id string) (billing.Invoice, error) {
			return svc.MarkUncollectible(ctx, tenantA, id)
		},
			billing.ReasonManual, nil},
		{"Dunning", func(svc *billing.Service, id string) (billing.Invoice, error) {
			return svc.MarkUncollectibleFor(ctx, tenantA, id, billing.ReasonDunning)
		}, billing.ReasonDunning, nil},
		{"ErrReason", func(svc *billing.Service, id string) (billing.Invoice, error) {
			return svc.MarkUncollectibleFor(ctx, tenantA, id, "bored")
		}, "", billing.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
			got, err := tt.mark(svc.Service, inv.ID)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			stored, _ := svc.Get(ctx, tenantA, inv.ID)
			if tt.wantErr != nil {
				assertSameInvoice(t, stored, inv)
				return
			}
			if got.UncollectibleReason != tt.want || stored.UncollectibleReason != tt.want || stored.Status != billing.StatusUncollectible {
				t.Errorf("reason %q (stored %q, %s), want %q, uncollectible", got.UncollectibleReason, stored.UncollectibleReason, stored.Status, tt.want)
			}
		})
	}
}
