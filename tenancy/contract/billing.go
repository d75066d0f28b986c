package contract

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunBilling generates the platform invoices of every period that ended
// at or before now, for every tenant but test tenants (whose clocks run
// them: AdvanceClock), and marks the open invoices whose due date passed
// overdue. It returns how many invoices it generated and marked.
//
// Each tenant's periods are closed in a transaction holding its row lock,
// and an invoice per tenant and period is all a database constraint lets
// in: any number of replicas may run it at once, and again after a crash,
// and every invoice is generated once. The billing run is a scheduler job
// (tenantkit.JobBilling).
func (s *Service) RunBilling(ctx context.Context, now time.Time) (int, error) {
	const batch = 200
	now = now.UTC().Truncate(time.Microsecond)
	_, start, _ := tenancy.Period(now)
	done := 0
	after := ""
	for {
		ids, err := s.periods.TenantsToBill(ctx, start, after, batch)
		if err != nil {
			return done, fmt.Errorf("contract: billing run: %w", err)
		}
		for _, tenantID := range ids {
			n, err := s.closeTenant(ctx, tenantID, now)
			if err != nil && !errors.Is(err, tenancy.ErrNotFound) {
				return done, fmt.Errorf("contract: billing run of %s: %w", tenantID, err)
			}
			done += n
		}
		if len(ids) < batch {
			break
		}
		after = ids[len(ids)-1]
	}
	n, err := s.markOverdue(ctx, "", now)
	return done + n, err
}

// closeTenant closes the tenant's periods that ended by now, in one
// transaction holding its row lock.
func (s *Service) closeTenant(ctx context.Context, tenantID string, now time.Time) (int, error) {
	n := 0
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		terms, members, err := s.store.LockTerms(ctx, tenantID)
		if err != nil {
			return err
		}
		n, err = s.closePeriods(ctx, terms, members, now)
		return err
	})
	return n, err
}

// closePeriods generates the invoice of every period of the tenant that
// ended at or before now and is not invoiced yet, oldest first, and moves
// its billed-through mark past them. It runs on the transaction in ctx,
// which holds the tenant's row lock (LockTerms gave terms and members):
// every change of terms calls it first, so that a period is always
// invoiced under the terms it ended with.
func (s *Service) closePeriods(ctx context.Context, terms Terms, members int64, now time.Time) (int, error) {
	from, set, err := s.periods.BilledThrough(ctx, terms.TenantID)
	if err != nil {
		return 0, err
	}
	_, current, _ := tenancy.Period(now)
	if !set {
		// A tenant from before billing: billed from its current period.
		return 0, s.periods.SetBilledThrough(ctx, terms.TenantID, current)
	}
	n := 0
	for start := from; start.Before(current); start = start.AddDate(0, 1, 0) {
		if err := s.generate(ctx, terms, members, start); err != nil {
			return n, err
		}
		n++
	}
	if n > 0 {
		return n, s.periods.SetBilledThrough(ctx, terms.TenantID, current)
	}
	return 0, nil
}

// generate creates the tenant's invoice of the period starting at start:
// the preview of that period taken in its last second.
func (s *Service) generate(ctx context.Context, terms Terms, members int64, start time.Time) error {
	period, err := s.periods.Period(ctx, terms.TenantID, start)
	if err != nil {
		return err
	}
	key, _, end := tenancy.Period(start)
	usage, err := s.usageOf(ctx, terms.TenantID, key, members)
	if err != nil {
		return err
	}
	p, err := ComputePreview(s.catalog, terms, period, usage, nil, end.Add(-time.Second))
	if err != nil {
		return err
	}
	number, err := s.invoices.NextInvoiceNumber(ctx)
	if err != nil {
		return err
	}
	created := s.clock(ctx)
	inv := Invoice{
		ID: id.At(id.PlatformInvoice, created), Number: number, TenantID: terms.TenantID,
		PeriodStart: p.PeriodStart, PeriodEnd: p.PeriodEnd, Currency: p.Currency, Lines: p.Lines,
		Subtotal: p.Subtotal, Total: p.Total, Status: InvoiceOpen,
		DueDate: end.Add(s.paymentTerms(terms.PlanID)), CreatedAt: created,
	}
	if inv.Total <= 0 {
		// Nothing to pay (a free plan): paid as it is made.
		inv.Status, inv.PaidAt = InvoicePaid, &created
	}
	inv.settle()
	if err := s.invoices.CreateInvoice(ctx, inv); err != nil {
		return err
	}
	if err := s.recordInvoice(ctx, event.PlatformInvoiceCreated, inv); err != nil {
		return err
	}
	_, err = s.notes.Notify(ctx, inv.TenantID, invoiceNotification(inv, "created"))
	return err
}

// usageOf returns the tenant's usage of every feature in the period with
// key, members for seats.
func (s *Service) usageOf(ctx context.Context, tenantID, key string, members int64) (map[string]int64, error) {
	st, err := s.ent.State(ctx, tenantID, key)
	if err != nil {
		return nil, err
	}
	usage := make(map[string]int64, len(catalog.Features()))
	for _, f := range catalog.Features() {
		usage[f] = st.Usage[f]
	}
	usage[catalog.FeatureSeats] = members
	return usage, nil
}

// paymentTerms is how long after the period's end the plan's invoices are
// due.
func (s *Service) paymentTerms(planID string) time.Duration {
	if plan, ok := s.catalog.Plan(planID); ok && plan.PaymentTermsDays > 0 {
		return time.Duration(plan.PaymentTermsDays) * 24 * time.Hour
	}
	return DefaultPaymentTerms
}

// markOverdue marks the open invoices due before now overdue, of tenantID
// when set and otherwise of every real tenant, each once: the event and
// the tenant's notification commit with the mark.
func (s *Service) markOverdue(ctx context.Context, tenantID string, now time.Time) (int, error) {
	const batch = 200
	done := 0
	for {
		due, err := s.invoices.OverdueInvoices(ctx, tenantID, now, batch)
		if err != nil {
			return done, fmt.Errorf("contract: overdue invoices: %w", err)
		}
		for _, inv := range due {
			err := s.tx.InTx(ctx, func(ctx context.Context) error {
				marked, err := s.invoices.MarkOverdue(ctx, inv.TenantID, inv.ID, now)
				if err != nil || !marked {
					return err
				}
				done++
				if err := s.recordInvoice(ctx, event.PlatformInvoiceOverdue, inv); err != nil {
					return err
				}
				_, err = s.notes.Notify(ctx, inv.TenantID, invoiceNotification(inv, "overdue"))
				return err
			})
			if err != nil {
				return done, fmt.Errorf("contract: mark %s overdue: %w", inv.ID, err)
			}
		}
		if len(due) < batch {
			return done, nil
		}
	}
}

// recordInvoice writes the event typ about inv.
func (s *Service) recordInvoice(ctx context.Context, typ string, inv Invoice) error {
	if s.events == nil {
		return nil
	}
	return s.events.Record(ctx, inv.TenantID, typ, "platform_invoice", inv.ID, inv)
}
