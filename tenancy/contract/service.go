package contract

import (
	"context"
	"fmt"
	"github.com/tenantkit/tenantkit/event"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Entitlements reads a tenant's entitlement state, from which its current
// terms and usage are read. *tenancy.Entitlements implements it, using the
// state the request's context carries (tenancy.WithState) when there is
// one.
type Entitlements interface {
	// State returns the tenant's entitlement state, with its usage of
	// period and its member count when period is set; an error wrapping
	// tenancy.ErrNotFound for an unknown tenant.
	State(ctx context.Context, tenantID, period string) (tenancy.EntitlementState, error)
}

// Notifier tells a tenant where its requests stand. *tenancy.Notifications
// implements it.
type Notifier interface {
	// Notify creates a notification for the tenant on the transaction in
	// ctx.
	Notify(ctx context.Context, tenantID string, n tenancy.NewNotification) (tenancy.Notification, error)
}

// Service holds the rules of contracts: reading and changing a tenant's
// terms, the lifecycle of change requests, and the invoice preview.
type Service struct {
	store    Store
	periods  PeriodStore
	invoices InvoiceStore
	ent      Entitlements
	notes    Notifier
	tx       tenancy.Transactor
	catalog  *catalog.Catalog
	now      func() time.Time
	// events records the audit trail (WithEvents); nil records nothing.
	events Events
	// steps are the other domains' steps a test clock runs
	// (WithClockSteps).
	steps []Step
}

// Option configures a Service.
type Option func(*Service)

// WithClock makes the service read time from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// NewService returns a Service keeping terms, requests, periods and
// invoices in stores,
// reading current terms and usage with ent, notifying tenants with notes,
// and pricing with the plans of cat. Each change runs as one transaction
// of tx: a change of terms, the request it decides and the tenant's
// notification commit together or not at all. A nil tx is a programming
// error that would lose that: NewService panics.
func NewService(stores Stores, ent Entitlements, notes Notifier, tx tenancy.Transactor, cat *catalog.Catalog, opts ...Option) *Service {
	if tx == nil {
		panic("contract: NewService without a Transactor: a contract change, its request's status and the tenant's notification would not commit as one")
	}
	s := &Service{store: stores.Contracts, periods: stores.Periods, invoices: stores.Invoices,
		ent: ent, notes: notes, tx: tx, catalog: cat, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// clock returns the current time for the tenant ctx acts for (its test
// clock, tenancy.WithTestClock, or the service's) as stored: UTC, to the
// microsecond (what Postgres keeps), so that what a method returns equals
// what is read back.
func (s *Service) clock(ctx context.Context) time.Time {
	return tenancy.Now(ctx, s.now).UTC().Truncate(time.Microsecond)
}

// withTenantClock returns ctx carrying the tenant's test clock when it is
// a test tenant: for the calls that name a tenant without a request of
// its (an operator's, a payment's).
func (s *Service) withTenantClock(ctx context.Context, tenantID string) (context.Context, error) {
	test, at, err := s.periods.TestClock(ctx, tenantID)
	if err != nil || !test {
		return ctx, err
	}
	return tenancy.WithTestClock(ctx, at), nil
}

// Current returns the tenant's current terms, in the current period.
// tenancy.ErrNotFound when the tenant does not exist.
func (s *Service) Current(ctx context.Context, tenantID string) (Terms, error) {
	st, err := s.ent.State(ctx, tenantID, "")
	if err != nil {
		return Terms{}, fmt.Errorf("contract: terms: %w", err)
	}
	return s.termsOf(ctx, tenantID, st.PlanID, st.Seats, st.AddOns), nil
}

// currentUsage returns the tenant's current terms with its usage of every
// feature in the current period (members for seats), from one read: what
// an invoice preview and a change request are checked against.
// tenancy.ErrNotFound when the tenant does not exist.
func (s *Service) currentUsage(ctx context.Context, tenantID string) (Terms, map[string]int64, error) {
	period, _, _ := tenancy.Period(s.clock(ctx))
	st, err := s.ent.State(ctx, tenantID, period)
	if err != nil {
		return Terms{}, nil, fmt.Errorf("contract: terms: %w", err)
	}
	usage := make(map[string]int64, len(catalog.Features()))
	for _, f := range catalog.Features() {
		usage[f] = st.Usage[f]
	}
	usage[catalog.FeatureSeats] = st.Members
	return s.termsOf(ctx, tenantID, st.PlanID, st.Seats, st.AddOns), usage, nil
}

// termsOf builds the read model of a tenant's terms in the current period.
func (s *Service) termsOf(ctx context.Context, tenantID, planID string, seats int, addOns []string) Terms {
	_, start, end := tenancy.Period(s.clock(ctx))
	if addOns == nil {
		addOns = []string{}
	}
	return Terms{TenantID: tenantID, PlanID: planID, Seats: seats, AddOns: addOns, PeriodStart: start, PeriodEnd: end}
}

// Change changes the tenant's plan, seats and add-ons as ch says (see
// Terms.With for the rules) and returns the new terms. The entitlements
// follow at once: limits come from the new plan, the seats limit from the
// new seats, and a contracted add-on is on.
//
// Module switches (tenancy.Modules.Toggle) survive a change only where
// they still mean the same: the switch of a module the new plan no longer
// lets the tenant switch is dropped (so a later plan that offers it again
// starts from its default), and the switch of an add-on bought or given up
// is dropped so that the module starts from its new default: on when
// bought, off when given up.
//
// Everything runs in one transaction (a savepoint of the one in ctx, so
// that a caller commits the change with its own records), holding the
// tenant's row lock so that concurrent changes apply one after the other.
// *tenancy.InvalidError for a change the rules refuse (ch's tags, then
// Terms.With's); tenancy.ErrNotFound for an unknown tenant. It records a tenant.plan_changed event (the new
// terms) in the same transaction.
func (s *Service) Change(ctx context.Context, tenantID string, ch Change) (Terms, error) {
	if err := field.Check(ch); err != nil {
		return Terms{}, fmt.Errorf("contract: change %s: %w", tenantID, err)
	}
	ctx, err := s.withTenantClock(ctx, tenantID)
	if err != nil {
		return Terms{}, fmt.Errorf("contract: change %s: %w", tenantID, err)
	}
	var out Terms
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if out, err = s.change(ctx, tenantID, ch, asCorrection); err != nil {
			return err
		}
		if s.events == nil {
			return nil
		}
		return s.events.Record(ctx, tenantID, event.TenantPlanChanged, "tenant", tenantID, out)
	})
	if err != nil {
		return Terms{}, err
	}
	return out, nil
}

// How a change of terms is billed.
type billedAs int

const (
	// asBoundary: the change takes effect at a period boundary (an
	// approved next_period request); the period it opens bills it.
	asBoundary billedAs = iota
	// asProrated: the change takes effect now, within the period (an
	// immediate request): the period keeps its opening terms and carries
	// the change's proration lines.
	asProrated
	// asCorrection: an operator sets the contract (Change): the current
	// period is billed as if it had opened with the new terms, without
	// the prorations of the changes before.
	asCorrection
)

// change is Change without its event: applying a contract request records
// the request's own. It first invoices the periods that ended under the
// terms it replaces, then records the change in the current period as how
// says.
func (s *Service) change(ctx context.Context, tenantID string, ch Change, how billedAs) (Terms, error) {
	var out Terms
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		locked, members, err := s.store.LockTerms(ctx, tenantID)
		if err != nil {
			return err
		}
		now := s.clock(ctx)
		if _, err := s.closePeriods(ctx, locked, members, now); err != nil {
			return err
		}
		cur := s.termsOf(ctx, locked.TenantID, locked.PlanID, locked.Seats, locked.AddOns)
		next, err := cur.With(s.catalog, ch, members)
		if err != nil {
			return err
		}
		if err := s.recordChange(ctx, cur, next, now, how); err != nil {
			return err
		}
		if err := s.store.SetTerms(ctx, next, now); err != nil {
			return err
		}
		if stale := s.staleToggles(cur, next); len(stale) > 0 {
			if err := s.store.DeleteModuleToggles(ctx, tenantID, stale); err != nil {
				return err
			}
		}
		out = next
		return nil
	})
	if err != nil {
		return Terms{}, fmt.Errorf("contract: change terms of %s: %w", tenantID, err)
	}
	return out, nil
}

// recordChange records a change from cur to next made at now in the
// period of now, as how says: a prorated change its proration lines (and
// the period's opening terms, if it is the first), a correction the new
// opening terms in place of everything the period recorded.
func (s *Service) recordChange(ctx context.Context, cur, next Terms, now time.Time, how billedAs) error {
	if how == asBoundary {
		return nil
	}
	_, start, _ := tenancy.Period(now)
	p, err := s.periods.Period(ctx, cur.TenantID, start)
	if err != nil {
		return err
	}
	if how == asCorrection {
		if p.Opening == nil {
			return nil // the period opens with the current terms: next
		}
		p.Opening, p.Prorations = &next, nil
		return s.periods.SavePeriod(ctx, cur.TenantID, p)
	}
	lines, err := changeProrations(s.catalog, cur, next, now)
	if err != nil {
		return err
	}
	if p.Opening == nil {
		opening := cur
		p.Opening = &opening
	}
	for _, l := range lines {
		p.Prorations = append(p.Prorations, l.PreviewLine)
	}
	return s.periods.SavePeriod(ctx, cur.TenantID, p)
}

// staleToggles lists the modules whose switch a change from cur to next
// drops: those next's plan does not let the tenant switch, and the add-ons
// bought or given up.
func (s *Service) staleToggles(cur, next Terms) []string {
	plan, _ := s.catalog.Plan(next.PlanID) // With checked it
	var stale []string
	for _, app := range s.catalog.Apps {
		for _, m := range app.Modules {
			if !s.catalog.Toggleable(plan, m.ID) || cur.HasAddOn(m.ID) != next.HasAddOn(m.ID) {
				stale = append(stale, m.ID)
			}
		}
	}
	return stale
}
