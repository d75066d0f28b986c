package tenancy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
)

// MaxContractSeats is the most seats a contract may have. It keeps every
// price computed from seats far inside int64.
const MaxContractSeats = 100_000

// Contract is what a tenant has agreed with the platform, as the invoice
// preview prices it: a plan of the catalog, a number of seats, and the paid
// add-on modules (catalog.Plan.AddOns) bought on top of the plan. It is a
// read model over the tenant (plan, seats) and its add-ons; the period is
// not stored but is the calendar month (UTC) of the service clock, the same
// period as Period and the entitlements.
type Contract struct {
	TenantID string `json:"tenant_id"`
	// PlanID is the catalog plan the tenant is on.
	PlanID string `json:"plan_id"`
	// Seats is the contracted number of members; it is the seats limit
	// unless an operator overrode it (Service.SetLimit).
	Seats int `json:"seats"`
	// AddOns lists, sorted, the modules bought as paid add-ons of the plan.
	// A contracted add-on is on (see Service.Modules) and billed every period.
	AddOns []string `json:"add_ons"`
	// PeriodStart and PeriodEnd bound the current billing period: the
	// calendar month in UTC, end exclusive.
	PeriodStart time.Time `json:"period_start"`
	PeriodEnd   time.Time `json:"period_end"`
}

// HasAddOn reports whether module is one of the contract's add-ons.
func (c Contract) HasAddOn(module string) bool { return slices.Contains(c.AddOns, module) }

// ContractChange is a change of a tenant's contract. Zero fields keep what
// the contract has.
type ContractChange struct {
	// PlanID, when set, moves the tenant to that catalog plan.
	PlanID string
	// Seats, when set, is the new number of seats.
	Seats *int
	// AddModules are modules to buy as add-ons of the (new) plan.
	AddModules []string
	// RemoveModules are contracted add-ons to give up.
	RemoveModules []string
}

// With returns the contract that results from applying ch to c, for a
// tenant with members members, under the plans of cat. It is pure: the
// service applies it (ApplyContractChange) and billing prices it (the
// invoice preview), so both agree on the rules:
//
//   - A plan change keeps the add-ons the new plan sells, and drops those
//     it includes (they are now part of the plan) and those it does not
//     offer at all (they lapse with the old plan).
//   - A plan change without explicit seats keeps the seats, raised to the
//     new plan's included seats and capped by its seat limit.
//   - Seats are 1..MaxContractSeats, at most the plan's seat limit, and at
//     least the tenant's members.
//   - An added module must be sold by the (new) plan as an add-on and not be
//     on the contract yet; a removed one must be a contracted add-on.
//
// Broken rules are an *InvalidError keyed "plan_id", "seats" or "modules".
// The period of c is kept.
func (c Contract) With(cat *catalog.Catalog, ch ContractChange, members int64) (Contract, error) {
	fields := map[string]string{}
	next := c
	next.AddOns = slices.Clone(c.AddOns)
	planID := c.PlanID
	if ch.PlanID != "" {
		planID = ch.PlanID
	}
	plan, ok := cat.Plan(planID)
	if !ok {
		fields["plan_id"] = fmt.Sprintf("unknown plan %q", planID)
		return Contract{}, &InvalidError{Fields: fields}
	}
	next.PlanID = plan.ID
	seatLimit, unlimitedSeats, _ := plan.Limit(catalog.FeatureSeats)
	if plan.ID != c.PlanID {
		next.AddOns = slices.DeleteFunc(next.AddOns, func(m string) bool {
			_, sold := plan.AddOn(m)
			return !sold
		})
		next.Seats = max(next.Seats, plan.IncludedSeats)
		if !unlimitedSeats {
			next.Seats = min(next.Seats, int(seatLimit))
		}
	}

	for _, m := range ch.RemoveModules {
		switch {
		case c.HasAddOn(m):
			next.AddOns = slices.DeleteFunc(next.AddOns, func(a string) bool { return a == m })
		case plan.Includes(m):
			fields["modules"] = fmt.Sprintf("module %q is included in plan %q, not a paid add-on you can remove", m, plan.ID)
		default:
			fields["modules"] = fmt.Sprintf("module %q is not an add-on of your contract", m)
		}
	}
	for _, m := range ch.AddModules {
		if msg := addOnProblem(cat, plan, next, m); msg != "" {
			fields["modules"] = msg
			continue
		}
		next.AddOns = append(next.AddOns, m)
	}
	slices.Sort(next.AddOns)
	next.AddOns = slices.Compact(next.AddOns)

	seatsField := "plan_id" // when the plan forces the seats
	if ch.Seats != nil {
		seatsField, next.Seats = "seats", *ch.Seats
	}
	switch {
	case next.Seats < 1 || next.Seats > MaxContractSeats:
		fields["seats"] = fmt.Sprintf("must be between 1 and %d", MaxContractSeats)
	case !unlimitedSeats && int64(next.Seats) > seatLimit:
		fields["seats"] = fmt.Sprintf("plan %q allows at most %d seats", plan.ID, seatLimit)
	case int64(next.Seats) < members:
		if seatsField == "plan_id" {
			fields["plan_id"] = fmt.Sprintf("plan %q allows at most %d seats and the organisation has %d members", plan.ID, next.Seats, members)
		} else {
			fields["seats"] = fmt.Sprintf("must be at least the organisation's %d members", members)
		}
	}
	if len(fields) > 0 {
		return Contract{}, &InvalidError{Fields: fields}
	}
	return next, nil
}

// addOnProblem says why module cannot be added to c on plan, or "".
func addOnProblem(cat *catalog.Catalog, plan catalog.Plan, c Contract, module string) string {
	if _, ok := cat.Module(module); !ok {
		return fmt.Sprintf("unknown module %q", module)
	}
	if plan.Includes(module) {
		return fmt.Sprintf("module %q is already included in plan %q", module, plan.ID)
	}
	if _, sold := plan.AddOn(module); !sold {
		var offered []string
		for _, a := range plan.AddOns {
			offered = append(offered, a.Module)
		}
		if len(offered) == 0 {
			return fmt.Sprintf("plan %q sells no add-ons", plan.ID)
		}
		return fmt.Sprintf("plan %q does not offer module %q (add-ons: %s)", plan.ID, module, strings.Join(offered, ", "))
	}
	if c.HasAddOn(module) {
		return fmt.Sprintf("module %q is already on your contract", module)
	}
	return ""
}

// Contract returns the tenant's current contract. ErrNotFound when the
// tenant does not exist.
func (s *Service) Contract(ctx context.Context, tenantID string) (Contract, error) {
	st, err := s.readState(ctx, tenantID, "")
	if err != nil {
		return Contract{}, fmt.Errorf("tenancy: contract: %w", err)
	}
	return s.contractOf(Tenant{ID: tenantID, PlanID: st.PlanID, Seats: st.Seats}, st.AddOns), nil
}

// ContractUsage returns the tenant's current contract with its usage of
// every feature in the current period (members for seats), from one read:
// what an invoice preview and a contract change request are checked
// against. ErrNotFound when the tenant does not exist.
func (s *Service) ContractUsage(ctx context.Context, tenantID string) (Contract, map[string]int64, error) {
	now := s.now()
	st, err := s.readState(ctx, tenantID, periodKey(now))
	if err != nil {
		return Contract{}, nil, fmt.Errorf("tenancy: contract: %w", err)
	}
	usage := make(map[string]int64, len(catalog.Features()))
	for _, f := range catalog.Features() {
		usage[f] = st.Usage[f]
	}
	usage[catalog.FeatureSeats] = st.Members
	_, start, end := Period(now)
	c := s.contractOf(Tenant{ID: tenantID, PlanID: st.PlanID, Seats: st.Seats}, st.AddOns)
	c.PeriodStart, c.PeriodEnd = start, end
	return c, usage, nil
}

// contractOf builds the read model of t's contract in the current period.
func (s *Service) contractOf(t Tenant, addOns []string) Contract {
	_, start, end := Period(s.now())
	if addOns == nil {
		addOns = []string{}
	}
	return Contract{TenantID: t.ID, PlanID: t.PlanID, Seats: t.Seats, AddOns: addOns, PeriodStart: start, PeriodEnd: end}
}

// ApplyContractChange changes the tenant's plan, seats and add-ons as ch
// says (see Contract.With for the rules) and returns the new contract. The
// entitlements follow at once: limits come from the new plan, the seats
// limit from the new seats, and a contracted add-on is on.
//
// Module switches (ToggleModule) survive a change only where they still
// mean the same: the switch of a module the new plan no longer lets the
// tenant switch is dropped (so a later plan that offers it again starts
// from its default), and the switch of an add-on bought or given up is
// dropped so that the module starts from its new default: on when bought,
// off when given up.
//
// Everything runs in one transaction (a savepoint of the one in ctx, so
// that a caller such as billing commits the change with its own records),
// holding the tenant's row lock so that concurrent changes apply one after
// the other. *InvalidError for a change the rules refuse; ErrNotFound for
// an unknown tenant.
func (s *Service) ApplyContractChange(ctx context.Context, tenantID string, ch ContractChange) (Contract, error) {
	var out Contract
	err := s.store.RunInTx(ctx, func(ctx context.Context) error {
		t, err := s.store.TenantForUpdate(ctx, tenantID)
		if err != nil {
			return err
		}
		addOns, err := s.store.ContractAddOns(ctx, t.ID)
		if err != nil {
			return err
		}
		members, err := s.store.CountMembers(ctx, t.ID)
		if err != nil {
			return err
		}
		cur := s.contractOf(t, addOns)
		next, err := cur.With(s.catalog, ch, members)
		if err != nil {
			return err
		}
		if err := s.store.SetContract(ctx, next, s.now().UTC()); err != nil {
			return err
		}
		if stale := s.staleToggles(cur, next); len(stale) > 0 {
			if err := s.store.DeleteModuleToggles(ctx, t.ID, stale); err != nil {
				return err
			}
		}
		out = next
		return nil
	})
	if err != nil {
		return Contract{}, fmt.Errorf("tenancy: change contract of %s: %w", tenantID, err)
	}
	return out, nil
}

// staleToggles lists the modules whose switch a change from cur to next
// drops: those next's plan does not let the tenant switch, and the add-ons
// bought or given up.
func (s *Service) staleToggles(cur, next Contract) []string {
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
