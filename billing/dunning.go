package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Step is one step of the collection schedule that Dunning takes an open
// invoice through once its due date has passed.
type Step struct {
	// Name identifies the step ("overdue", "reminder_7", "dunning"); a step
	// is taken at most once per invoice.
	Name string
	// Day is when the step falls due: this many days after the invoice
	// became overdue (OverdueFrom).
	Day int
	// Module is the module the tenant must have on for the step to act, or
	// "" when the step always acts. A step that falls due while its module
	// is off is skipped for good.
	Module string
}

// The steps of Schedule.
const (
	StepOverdue    = "overdue"
	StepReminder1  = "reminder_1"
	StepReminder7  = "reminder_7"
	StepReminder14 = "reminder_14"
	StepDunning    = "dunning"
)

// Schedule returns the collection schedule, in order. Days count from the
// moment the invoice became overdue, 00:00 UTC on the day after its due
// date:
//
//	day  0  overdue      overdue: true, invoice.overdue notification      always
//	day  1  reminder_1   invoice.reminder notification                    collections.reminders
//	day  7  reminder_7   invoice.reminder notification                    collections.reminders
//	day 14  reminder_14  invoice.reminder notification                    collections.reminders
//	day 21  dunning      marked uncollectible (reason dunning),           collections.dunning
//	                     invoice.uncollectible notification
//
// Each step that acts records its event (WithEvents), by the system:
// invoice.overdue, invoice.reminder_sent (one per reminder) and
// invoice.marked_uncollectible. A skipped step records none: it changes
// nothing the tenant sees.
//
// An invoice due on 2026-12-01 is overdue from 2026-12-02, reminded on
// 2026-12-03, 12-09 and 12-16, and written off on 2026-12-23 if still
// unpaid. The schedule only concerns open invoices: paying, voiding or
// writing one off ends it.
func Schedule() []Step {
	return []Step{
		{Name: StepOverdue, Day: 0},
		{Name: StepReminder1, Day: 1, Module: catalog.ModuleReminders},
		{Name: StepReminder7, Day: 7, Module: catalog.ModuleReminders},
		{Name: StepReminder14, Day: 14, Module: catalog.ModuleReminders},
		{Name: StepDunning, Day: 21, Module: catalog.ModuleDunning},
	}
}

// dueAt returns when step falls due for an invoice due on dueDate; ok is
// false when the invoice has no due date.
func (st Step) dueAt(dueDate string) (time.Time, bool) {
	from, ok := OverdueFrom(dueDate)
	return from.AddDate(0, 0, st.Day), ok
}

// Notification types of the collection schedule.
const (
	// NotificationOverdue: an invoice became overdue (step "overdue").
	NotificationOverdue = "invoice.overdue"
	// NotificationReminder: an invoice is still unpaid some days after it
	// became overdue (the reminder steps); data.days_overdue says how many.
	NotificationReminder = "invoice.reminder"
	// NotificationUncollectible: dunning marked an invoice uncollectible.
	NotificationUncollectible = "invoice.uncollectible"
)

// StepOutcome is what taking a step did.
type StepOutcome string

// The outcomes of a step.
const (
	// StepDone: the step acted (notified, marked the invoice).
	StepDone StepOutcome = "done"
	// StepSkipped: the step's module was off when it fell due.
	StepSkipped StepOutcome = "skipped"
)

// CollectionStep records that a step was taken for an invoice.
type CollectionStep struct {
	// Step is the Name of a Step of Schedule.
	Step    string      `json:"step"`
	Outcome StepOutcome `json:"outcome"`
	// At is the scheduler's time when it took the step.
	At time.Time `json:"at"`
}

// DueStep asks DunningStore.DueForCollection for the invoices a step is
// due for: those whose due date is before DueBefore ("YYYY-MM-DD") and
// for which the step is not recorded.
type DueStep struct {
	Step      string
	DueBefore string
}

// InvoiceKey is a position in DueForCollection's order: (TenantID, ID).
type InvoiceKey struct {
	TenantID, ID string
}

// DunningStore is the persistence Dunning needs beside Store: which
// invoices have steps due, and the record of the steps taken, which is
// what makes each step happen once. It is a Store of its own so that
// Store stays about invoices; BunStore implements both, and Dunning needs
// both on the same database. Implementations must be safe for concurrent
// use and run on the transaction carried by ctx when there is one.
// billingtest.RunDunning checks all of it.
type DunningStore interface {
	// DueForCollection returns up to limit (≥ 1) open invoices not marked
	// by EndCollection, of tenantID when set and otherwise of every tenant
	// but test tenants (whose clocks run their schedule), ordered by
	// (TenantID, ID) and
	// after the position after (the
	// zero InvoiceKey starts at the beginning), for which at least one of
	// due is due: the invoice's due date is set and before the step's
	// DueBefore, and the step is not recorded for it. Like InvoiceTenant it
	// is not confined to a tenant: the scheduler works for all of them. No
	// error but a storage fault.
	DueForCollection(ctx context.Context, tenantID string, due []DueStep, after InvoiceKey, limit int) ([]Invoice, error)
	// EndCollection marks the tenant's invoice as through the schedule, on
	// the transaction in ctx: DueForCollection never returns it again, so
	// that invoices left open for good cost the scan nothing. ErrNotFound
	// when the tenant has no such invoice.
	EndCollection(ctx context.Context, tenantID, invoiceID string) error
	// RecordStep records step for the tenant's invoice unless that step is
	// recorded for it already, and reports whether it did. Check and write
	// are one atomic statement on the transaction in ctx, so that of
	// concurrent callers exactly one records — a concurrent call waits
	// for the first one's transaction to end rather than answer early —
	// and a rolled-back transaction takes its record with it. A
	// duplicate leaves the caller's transaction usable. ErrNotFound when
	// the tenant has no such invoice.
	RecordStep(ctx context.Context, tenantID, invoiceID string, step CollectionStep) (recorded bool, err error)
	// Steps returns the steps recorded for the tenant's invoice, in no
	// particular order; none for an invoice it does not have. No error but
	// a storage fault.
	Steps(ctx context.Context, tenantID, invoiceID string) ([]CollectionStep, error)
}

// Notifier tells a tenant what happened to its invoices, on the
// transaction in ctx. *tenancy.Notifications implements it.
type Notifier interface {
	// Notify creates the notification; tenancy.ErrConflict when n.Key was
	// used before, the caller's transaction still usable.
	Notify(ctx context.Context, tenantID string, n tenancy.NewNotification) (tenancy.Notification, error)
}

// Dunning takes every tenant's open invoices through the collection
// schedule (Schedule) once their due date has passed: the overdue flag
// and notification, reminders with collections.reminders, and the final
// write-off with collections.dunning. Run does what is due at the time it
// is given; call it periodically, from every replica if you like.
//
// Each step of each invoice happens exactly once, whoever runs it and how
// often: a step is taken in one transaction that locks the invoice,
// records the step (DunningStore.RecordStep) and does its effect, so that
// a concurrent Run finds it recorded and does nothing, and a failed one
// leaves no trace. A step's module is checked when it is taken: turning
// collections.reminders or collections.dunning off stops the steps that
// fall due from then on (they are recorded as skipped and not taken when
// the module is turned on again). Steps missed while no scheduler ran are
// taken at the next Run, in order.
type Dunning struct {
	invoices *Service
	store    DunningStore
	notes    Notifier
}

// NewDunning returns the Dunning of invoices: it reads and writes
// invoices through invoices' Store, checks modules with its Entitlements
// and runs each step in its Transactor, with store (on the same database)
// recording the steps and notes telling the tenants.
func NewDunning(invoices *Service, store DunningStore, notes Notifier) *Dunning {
	return &Dunning{invoices: invoices, store: store, notes: notes}
}

// dunningBatch is how many invoices Run reads at a time.
const dunningBatch = 100

// Run takes every step of Schedule that is due at now and not yet taken,
// for every tenant's open invoices, and returns how many steps acted
// (skipped ones not counted). An invoice whose step fails is left for the
// next Run and the others go on; the error then joins every failure.
func (d *Dunning) Run(ctx context.Context, now time.Time) (int, error) {
	return d.run(ctx, "", now)
}

// RunFor is Run for one tenant's invoices: what advancing a test
// tenant's clock runs at each stop (Run leaves test tenants out).
func (d *Dunning) RunFor(ctx context.Context, tenantID string, now time.Time) (int, error) {
	return d.run(ctx, tenantID, now)
}

// run is Run over tenantID's invoices, or every real tenant's when empty.
func (d *Dunning) run(ctx context.Context, tenantID string, now time.Time) (int, error) {
	now = now.UTC().Truncate(time.Microsecond)
	schedule := Schedule()
	due := make([]DueStep, len(schedule))
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	for i, st := range schedule {
		// Due at now ⇔ due_date + 1 + Day days ≤ now ⇔ due_date < today − Day days.
		due[i] = DueStep{Step: st.Name, DueBefore: today.AddDate(0, 0, -st.Day).Format(DateLayout)}
	}
	var (
		acted int
		errs  []error
		after InvoiceKey
	)
	for {
		batch, err := d.store.DueForCollection(ctx, tenantID, due, after, dunningBatch)
		if err != nil {
			return acted, errors.Join(append(errs, fmt.Errorf("billing: invoices due for collection: %w", err))...)
		}
		for _, inv := range batch {
			n, err := d.collect(ctx, inv, schedule, now)
			acted += n
			if err != nil {
				errs = append(errs, fmt.Errorf("billing: collect %s: %w", inv.ID, err))
			}
		}
		if len(batch) < dunningBatch {
			return acted, errors.Join(errs...)
		}
		last := batch[len(batch)-1]
		after = InvoiceKey{TenantID: last.TenantID, ID: last.ID}
	}
}

// collect takes the steps due at now for one invoice, in order, and
// returns how many acted. It stops at the first step that finds the
// invoice no longer open.
func (d *Dunning) collect(ctx context.Context, inv Invoice, schedule []Step, now time.Time) (int, error) {
	acted := 0
	for _, st := range schedule {
		at, ok := st.dueAt(inv.DueDate)
		if !ok || at.After(now) {
			break // the schedule is in order: no later step is due either
		}
		outcome, open, err := d.take(ctx, inv.TenantID, inv.ID, st, now)
		if err != nil {
			return acted, fmt.Errorf("step %s: %w", st.Name, err)
		}
		if !open {
			break
		}
		if outcome == StepDone {
			acted++
		}
	}
	return acted, nil
}

// take takes one step in one transaction, holding the invoice's lock: it
// checks that the invoice is still open and the step due, records the
// step, and does its effect only if this call recorded it. outcome is ""
// when the step was taken before; open is false when the invoice is no
// longer open.
func (d *Dunning) take(ctx context.Context, tenantID, invoiceID string, st Step, now time.Time) (outcome StepOutcome, open bool, err error) {
	err = d.invoices.tx(ctx, func(ctx context.Context) error {
		outcome, open = "", false
		inv, err := d.invoices.store.InvoiceForUpdate(ctx, tenantID, invoiceID)
		if err != nil {
			return err
		}
		if at, ok := st.dueAt(inv.DueDate); inv.Status != StatusOpen || !ok || at.After(now) {
			return nil
		}
		open = true
		result := StepDone
		if st.Module != "" {
			err := d.invoices.ent.RequireModule(ctx, tenantID, st.Module)
			switch {
			case errors.Is(err, tenancy.ErrModuleDisabled):
				result = StepSkipped
			case err != nil:
				return err
			}
		}
		recorded, err := d.store.RecordStep(ctx, tenantID, invoiceID, CollectionStep{Step: st.Name, Outcome: result, At: now})
		if err != nil || !recorded {
			return err
		}
		outcome = result
		if result == StepDone {
			if err := d.act(ctx, inv, st, now); err != nil {
				return err
			}
		}
		if schedule := Schedule(); st.Name == schedule[len(schedule)-1].Name {
			return d.store.EndCollection(ctx, tenantID, invoiceID)
		}
		return nil
	})
	if err != nil {
		return "", false, err
	}
	return outcome, open, nil
}

// act does what step st does to inv, which is open and locked.
func (d *Dunning) act(ctx context.Context, inv Invoice, st Step, now time.Time) error {
	switch st.Name {
	case StepOverdue:
		if !inv.Overdue {
			inv.Overdue = true
			if err := d.invoices.store.UpdateInvoice(ctx, inv); err != nil {
				return err
			}
		}
		if err := d.invoices.recordStep(ctx, event.InvoiceOverdue, inv, st); err != nil {
			return err
		}
		return d.notify(ctx, inv, st, now)
	case StepDunning:
		// MarkUncollectibleFor records invoice.marked_uncollectible.
		written, err := d.invoices.MarkUncollectibleFor(ctx, inv.TenantID, inv.ID, ReasonDunning)
		if err != nil {
			return err
		}
		return d.notify(ctx, written, st, now)
	default:
		if err := d.invoices.recordStep(ctx, event.InvoiceReminderSent, inv, st); err != nil {
			return err
		}
		return d.notify(ctx, inv, st, now)
	}
}

// notify tells the invoice's tenant about step st. The key makes the
// notification unique per invoice and step, a second guard beside the
// step's record.
func (d *Dunning) notify(ctx context.Context, inv Invoice, st Step, now time.Time) error {
	due := formatMoney(inv.AmountDue, inv.Currency)
	data := map[string]any{
		"invoice_id": inv.ID, "invoice_number": inv.Number, "invoice_status": string(inv.Status),
		"customer_email": inv.Customer.Email, "due_date": inv.DueDate, "days_overdue": st.Day,
		"amount_due": inv.AmountDue, "currency": inv.Currency, "step": st.Name,
	}
	n := tenancy.NewNotification{Data: data, Key: "collections:" + inv.ID + ":" + st.Name}
	switch st.Name {
	case StepOverdue:
		n.Type = NotificationOverdue
		n.Title = fmt.Sprintf("Invoice %s is overdue", inv.Number)
		n.Body = fmt.Sprintf("Invoice %s to %s was due on %s and %s is unpaid.", inv.Number, inv.Customer.Name, inv.DueDate, due)
	case StepDunning:
		n.Type = NotificationUncollectible
		n.Title = fmt.Sprintf("Invoice %s marked uncollectible", inv.Number)
		n.Body = fmt.Sprintf("Invoice %s to %s was still unpaid %d days after its due date (%s) and was marked uncollectible by dunning; %s was not collected.",
			inv.Number, inv.Customer.Name, st.Day, inv.DueDate, due)
	default:
		n.Type = NotificationReminder
		n.Title = fmt.Sprintf("Invoice %s is %s overdue", inv.Number, days(st.Day))
		n.Body = fmt.Sprintf("Reminder: invoice %s to %s was due on %s and %s is still unpaid.", inv.Number, inv.Customer.Name, inv.DueDate, due)
	}
	_, err := d.notes.Notify(ctx, inv.TenantID, n)
	if err != nil && !errors.Is(err, tenancy.ErrConflict) {
		return err
	}
	return nil
}

// Steps returns the steps taken for the tenant's invoice, in schedule
// order. ErrNotFound when the tenant has no such invoice.
func (d *Dunning) Steps(ctx context.Context, tenantID, invoiceID string) ([]CollectionStep, error) {
	if _, err := d.invoices.Get(ctx, tenantID, invoiceID); err != nil {
		return nil, err
	}
	steps, err := d.store.Steps(ctx, tenantID, invoiceID)
	if err != nil {
		return nil, fmt.Errorf("billing: collection steps of %s: %w", invoiceID, err)
	}
	order := map[string]int{}
	for i, st := range Schedule() {
		order[st.Name] = i
	}
	slices.SortFunc(steps, func(a, b CollectionStep) int { return order[a.Step] - order[b.Step] })
	return steps, nil
}

// days writes a number of days for people: "1 day", "7 days".
func days(n int) string {
	if n == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}

// formatMoney writes minor units for people: "19.99 USD".
func formatMoney(amount int64, currency string) string { return FormatMoney(amount, currency) }

// FormatMoney writes amount, in minor units of currency, for people:
// "1,234.50 USD"; an unknown currency's amount as minor units.
func FormatMoney(amount int64, currency string) string {
	s, err := FormatAmount(amount, currency)
	if err != nil {
		return fmt.Sprintf("%d (minor units) %s", amount, currency)
	}
	return s + " " + currency
}
