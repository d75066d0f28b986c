// Package contract is a tenant's contract with the platform, all of it:
// its terms (a plan of the catalog, seats, paid add-on modules) and the
// rules for changing them (Terms.With), the change requests a tenant
// submits and the platform's operator decides (Request, and the lifecycle
// in CanTransitionRequest), applying them when they fall due, and the
// preview of the platform's next invoice to the tenant (Preview,
// ComputePreview).
//
// It lives under tenancy because the terms are tenancy's data: the plan
// and seats are the tenant's own row, and the add-ons and module switches
// are what the entitlements are computed from, so a change takes effect on
// the entitlements the moment it commits. Its errors are tenancy's
// sentinels (tenancy.ErrNotFound, tenancy.ErrConflict,
// *tenancy.InvalidError), and its Store is implemented beside tenancy's in
// tenancy/bunstore, with the conformance suite beside tenancy's
// (tenancytest.RunContracts).
//
// Billing is not involved: billing holds the tenant's own invoices to its
// customers, while the preview here prices what the platform charges the
// tenant.
package contract

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

// MaxSeats is the most seats a contract may have. It keeps every price
// computed from seats far inside int64.
const MaxSeats = 100_000

// Terms is what a tenant has agreed with the platform, as the invoice
// preview prices it: a plan of the catalog, a number of seats, and the paid
// add-on modules (catalog.Plan.AddOns) bought on top of the plan. It is a
// read model over the tenant (plan, seats) and its add-ons; the period is
// not stored but is the calendar month (UTC) of the service clock, the same
// period as tenancy.Period and the entitlements.
type Terms struct {
	TenantID string `json:"tenant_id"`
	// PlanID is the catalog plan the tenant is on.
	PlanID string `json:"plan_id"`
	// Seats is the contracted number of members; it is the seats limit
	// unless an operator overrode it (tenancy.Entitlements.SetLimit).
	Seats int `json:"seats"`
	// AddOns lists, sorted, the modules bought as paid add-ons of the plan.
	// A contracted add-on is on (see tenancy.Modules.List) and billed every
	// period.
	AddOns []string `json:"add_ons"`
	// PeriodStart and PeriodEnd bound the current billing period: the
	// calendar month in UTC, end exclusive.
	PeriodStart time.Time `json:"period_start"`
	PeriodEnd   time.Time `json:"period_end"`
}

// HasAddOn reports whether module is one of the contract's add-ons.
func (c Terms) HasAddOn(module string) bool { return slices.Contains(c.AddOns, module) }

// Change is a change of a tenant's contract. Zero fields keep what the
// contract has. Service.Change checks its tags, the rules of each value
// (the rules of the resulting terms are With's); its plan and seats, by
// their json names, are the body of PATCH /api/operator/tenants/{id}.
type Change struct {
	// PlanID, when set, moves the tenant to that catalog plan (whose ids
	// have at most 64 characters).
	PlanID string `json:"plan_id" validate:"max=64,line"`
	// Seats, when set, is the new number of seats: 1..MaxSeats.
	Seats *int `json:"seats" validate:"omitempty,min=1,max=100000"`
	// AddModules are modules to buy as add-ons of the (new) plan.
	AddModules []string `json:"-"`
	// RemoveModules are contracted add-ons to give up.
	RemoveModules []string `json:"-"`
}

// With returns the terms that result from applying ch to c, for a tenant
// with members members, under the plans of cat. It is pure: the service
// applies it (Service.Change) and the invoice preview prices it, so both
// agree on the rules:
//
//   - A plan change keeps the add-ons the new plan sells, and drops those
//     it includes (they are now part of the plan) and those it does not
//     offer at all (they lapse with the old plan).
//   - A plan change without explicit seats keeps the seats, raised to the
//     new plan's included seats and capped by its seat limit.
//   - Seats are 1..MaxSeats, at most the plan's seat limit, and at
//     least the tenant's members.
//   - An added module must be sold by the (new) plan as an add-on and not be
//     on the contract yet; a removed one must be a contracted add-on.
//
// Broken rules are a *tenancy.InvalidError keyed "plan_id", "seats" or
// "modules". The period of c is kept.
func (c Terms) With(cat *catalog.Catalog, ch Change, members int64) (Terms, error) {
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
		return Terms{}, &tenancy.InvalidError{Fields: fields}
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
	case next.Seats < 1 || next.Seats > MaxSeats:
		fields["seats"] = fmt.Sprintf("must be between 1 and %d", MaxSeats)
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
		return Terms{}, &tenancy.InvalidError{Fields: fields}
	}
	return next, nil
}

// addOnProblem says why module cannot be added to c on plan, or "".
func addOnProblem(cat *catalog.Catalog, plan catalog.Plan, c Terms, module string) string {
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
