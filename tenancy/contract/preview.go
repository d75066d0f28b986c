package contract

import (
	"fmt"
	"slices"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/arith"
	"github.com/tenantkit/tenantkit/tenancy"
)

// maxAmount bounds every amount of a preview line, as billing.MaxAmount
// bounds an invoice's: 10¹⁸ minor units, far inside int64, so that sums of
// a few dozen lines cannot overflow.
const maxAmount = 1_000_000_000_000_000

// LineKind says what a preview line charges for.
type LineKind string

// The line kinds.
const (
	LinePlan      LineKind = "plan"
	LineSeats     LineKind = "seats"
	LineAddOn     LineKind = "add_on"
	LineOverage   LineKind = "overage"
	LineProration LineKind = "proration"
)

// PreviewLine is one line of a preview. Amount is Quantity × UnitAmount,
// negative for a proration credit.
type PreviewLine struct {
	Kind        LineKind `json:"kind"`
	Description string   `json:"description"`
	Quantity    int64    `json:"quantity"`
	UnitAmount  int64    `json:"unit_amount"`
	Amount      int64    `json:"amount"`
}

// Preview is the platform's next invoice to a tenant, computed from its
// terms and never stored, as POST /api/invoices/preview answers it.
// Amounts are minor units of Currency.
//
// An invoice covers one billing period, a calendar month in UTC (the
// period of tenancy.Period), and holds:
//
//   - the plan's base price (kind "plan"), always, even when 0;
//   - the seats beyond the plan's included seats at its seat price ("seats");
//   - each contracted add-on the plan sells, at its price ("add_on");
//   - for each metered feature the plan prices overage for, the usage of
//     the period beyond the plan's own limit ("overage"). Limits are caps,
//     so there is overage only where an operator raised the tenant's limit.
//
// Without a change the preview is the current period's invoice, with the
// usage so far. A hypothetical change (Change) is priced by when it would
// take effect:
//
//   - next_period (the default): the invoice of the next period under the
//     changed contract, without usage (none has happened yet);
//   - immediately: the current period's invoice, whose recurring lines are
//     the current contract's, plus proration lines for every recurring line
//     whose amount the change alters: the unused rest of the period of the
//     old line is credited (a negative amount) and the new line is charged
//     for that rest. The rest is counted in whole seconds, from now
//     (rounded down to the second) to the period end, and each proration is
//     amount × rest / seconds-in-the-period, rounded half away from zero.
//     Usage so far is priced under the current plan.
//
// Proration lines have quantity 1 and unit_amount equal to their amount.
// Previews carry no tax: total equals subtotal. Only monthly plans are
// priced; a plan with another interval is refused.
type Preview struct {
	Currency string `json:"currency"`
	// PeriodStart and PeriodEnd bound the billing period invoiced, end
	// exclusive.
	PeriodStart time.Time     `json:"period_start"`
	PeriodEnd   time.Time     `json:"period_end"`
	Lines       []PreviewLine `json:"lines"`
	// Subtotal is the sum of the line amounts.
	Subtotal int64 `json:"subtotal"`
	// Total is what would be invoiced: Subtotal (previews carry no tax).
	Total int64 `json:"total"`
}

// PreviewChange is a hypothetical change of a contract that a preview
// prices. Zero fields keep what the contract has.
type PreviewChange struct {
	// PlanID, when set, is another plan.
	PlanID string
	// Seats, when set, is another number of seats.
	Seats *int
	// Modules, when not nil, is the whole set of add-on modules wanted:
	// modules the (new) plan includes are ignored, contracted add-ons left
	// out are removed. nil keeps the contract's add-ons.
	Modules []string
	// Effective is when the change would take effect: EffectiveNextPeriod
	// when empty, or EffectiveImmediately.
	Effective Effective
}

// ComputePreview computes the preview of a tenant's next invoice from its
// current terms, what the current period recorded (its opening terms and
// the prorations of the changes made in it), its usage in the current
// period (by feature; seats is its members), an optional hypothetical
// change and the current time. It is a pure function: the result depends
// on its arguments only. The period is the one of now (the terms' own
// period fields are not read).
//
// The current period's invoice charges the terms it opened with for the
// whole period, then the recorded prorations, then the usage beyond the
// current plan's limits: the invoice generated at the period's end is
// this computation, with no change, in the period's last second.
//
// A change the contract's rules refuse (Terms.With), an unknown plan or
// module, an immediate change to a plan in another currency, or a plan
// that is not monthly, is a *tenancy.InvalidError on plan_id, seats,
// modules or effective.
func ComputePreview(cat *catalog.Catalog, terms Terms, period Period, usage map[string]int64, change *PreviewChange, now time.Time) (Preview, error) {
	_, start, end := tenancy.Period(now)
	cur, err := previewPlan(cat, terms.PlanID)
	if err != nil {
		return Preview{}, fmt.Errorf("contract: preview: %w", err)
	}
	if change == nil {
		lines, currency, err := periodLines(cat, cur, terms, period, usage, nil)
		if err != nil {
			return Preview{}, err
		}
		return newPreview(currency, start, end, lines), nil
	}

	effective := change.Effective
	if effective == "" {
		effective = EffectiveNextPeriod
	}
	if !effective.Valid() {
		return Preview{}, fmt.Errorf("contract: preview: %w", invalid("effective", "must be one of: next_period, immediately"))
	}
	next, err := terms.With(cat, contractChange(cat, terms, change), usage[catalog.FeatureSeats])
	if err != nil {
		return Preview{}, fmt.Errorf("contract: preview: %w", err)
	}
	plan, err := previewPlan(cat, next.PlanID)
	if err != nil {
		return Preview{}, fmt.Errorf("contract: preview: %w", err)
	}
	if effective == EffectiveNextPeriod {
		newLines, err := recurringLines(cat, plan, next)
		if err != nil {
			return Preview{}, err
		}
		return newPreview(plan.Currency, end, end.AddDate(0, 1, 0), newLines), nil
	}
	prorations, err := changeProrations(cat, terms, next, now)
	if err != nil {
		return Preview{}, err
	}
	lines, currency, err := periodLines(cat, cur, terms, period, usage, prorations)
	if err != nil {
		return Preview{}, err
	}
	return newPreview(currency, start, end, lines), nil
}

// periodLines prices the current period: the opening terms' recurring
// lines, the recorded prorations and then extra (a hypothetical change's),
// and the usage beyond the plan cur's limits; and the period's currency.
func periodLines(cat *catalog.Catalog, cur catalog.Plan, terms Terms, period Period, usage map[string]int64, extra []keyedLine) ([]keyedLine, string, error) {
	opening := period.opening(terms)
	openPlan, err := previewPlan(cat, opening.PlanID)
	if err != nil {
		return nil, "", fmt.Errorf("contract: preview: %w", err)
	}
	lines, err := recurringLines(cat, openPlan, opening)
	if err != nil {
		return nil, "", err
	}
	for _, l := range period.Prorations {
		lines = append(lines, keyedLine{"proration", l})
	}
	lines = append(lines, extra...)
	over, err := overageLines(cat, cur, usage)
	if err != nil {
		return nil, "", err
	}
	return append(lines, over...), openPlan.Currency, nil
}

// changeProrations returns the proration lines of changing from terms to
// next at now: the unused rest of the period of every recurring line the
// change alters is credited, and the new line charged for it. A change to
// a plan in another currency cannot be prorated: it is refused.
func changeProrations(cat *catalog.Catalog, terms, next Terms, now time.Time) ([]keyedLine, error) {
	_, start, end := tenancy.Period(now)
	cur, err := previewPlan(cat, terms.PlanID)
	if err != nil {
		return nil, fmt.Errorf("contract: preview: %w", err)
	}
	plan, err := previewPlan(cat, next.PlanID)
	if err != nil {
		return nil, fmt.Errorf("contract: preview: %w", err)
	}
	if plan.Currency != cur.Currency {
		return nil, fmt.Errorf("contract: preview: %w", invalid("plan_id",
			"plan %q is priced in %s and yours in %s: a change of currency can only take effect at the next period", plan.ID, plan.Currency, cur.Currency))
	}
	oldLines, err := recurringLines(cat, cur, terms)
	if err != nil {
		return nil, err
	}
	newLines, err := recurringLines(cat, plan, next)
	if err != nil {
		return nil, err
	}
	return prorationLines(oldLines, newLines, now, start, end), nil
}

// previewPlan returns the plan with id, which must be monthly.
func previewPlan(cat *catalog.Catalog, planID string) (catalog.Plan, error) {
	plan, ok := cat.Plan(planID)
	switch {
	case !ok:
		return catalog.Plan{}, invalid("plan_id", "unknown plan %q", planID)
	case plan.Interval != catalog.IntervalMonth:
		return catalog.Plan{}, invalid("plan_id", "plan %q is billed per %s; previews price monthly plans only", plan.ID, plan.Interval)
	}
	return plan, nil
}

// contractChange turns a preview's declarative change into the change of
// terms it amounts to.
func contractChange(cat *catalog.Catalog, c Terms, ch *PreviewChange) Change {
	out := Change{PlanID: ch.PlanID, Seats: ch.Seats}
	if ch.Modules == nil {
		return out
	}
	planID := c.PlanID
	if ch.PlanID != "" {
		planID = ch.PlanID
	}
	plan, _ := cat.Plan(planID) // an unknown plan adds nothing; With reports it
	wanted := slices.Compact(slices.Sorted(slices.Values(ch.Modules)))
	for _, m := range wanted {
		if plan.Includes(m) {
			continue
		}
		if _, sold := plan.AddOn(m); sold && c.HasAddOn(m) {
			continue
		}
		out.AddModules = append(out.AddModules, m)
	}
	for _, m := range c.AddOns {
		if !slices.Contains(wanted, m) {
			out.RemoveModules = append(out.RemoveModules, m)
		}
	}
	return out
}

// keyedLine is a recurring line with the key that matches it across two
// contracts ("plan", "seats", "add_on:support.sla").
type keyedLine struct {
	key string
	PreviewLine
}

// recurringLines prices a contract's plan, extra seats and add-ons for one
// period.
func recurringLines(cat *catalog.Catalog, plan catalog.Plan, c Terms) ([]keyedLine, error) {
	lines := []keyedLine{{"plan", PreviewLine{Kind: LinePlan, Description: plan.Name + " plan",
		Quantity: 1, UnitAmount: plan.BasePrice, Amount: plan.BasePrice}}}
	if extra := int64(c.Seats - plan.IncludedSeats); extra > 0 {
		amount, ok := arith.MulBounded(extra, plan.SeatPrice, maxAmount)
		if !ok {
			return nil, fmt.Errorf("contract: preview: %d seats at %d exceed %d", extra, plan.SeatPrice, int64(maxAmount))
		}
		lines = append(lines, keyedLine{"seats", PreviewLine{Kind: LineSeats,
			Description: fmt.Sprintf("Seats beyond the %d included", plan.IncludedSeats),
			Quantity:    extra, UnitAmount: plan.SeatPrice, Amount: amount}})
	}
	for _, m := range c.AddOns {
		a, sold := plan.AddOn(m)
		if !sold {
			continue // the catalog stopped selling it: neither on nor billed
		}
		lines = append(lines, keyedLine{"add_on:" + m, PreviewLine{Kind: LineAddOn,
			Description: moduleName(cat, m) + " add-on", Quantity: 1, UnitAmount: a.Price, Amount: a.Price}})
	}
	return lines, nil
}

// overageLines prices the usage beyond the plan's own limits, for the
// metered features whose overage the plan prices.
func overageLines(cat *catalog.Catalog, plan catalog.Plan, usage map[string]int64) ([]keyedLine, error) {
	var lines []keyedLine
	for _, f := range catalog.Features() {
		price, priced := plan.OveragePrice(f)
		limit, unlimited, known := plan.Limit(f)
		if !catalog.Metered(f) || !priced || !known || unlimited || usage[f] <= limit {
			continue
		}
		excess := usage[f] - limit
		amount, ok := arith.MulBounded(excess, price, maxAmount)
		if !ok {
			return nil, fmt.Errorf("contract: preview: overage of %d %s at %d exceeds %d", excess, f, price, int64(maxAmount))
		}
		lines = append(lines, keyedLine{"overage:" + f, PreviewLine{Kind: LineOverage,
			Description: fmt.Sprintf("%s beyond the %d included", moduleName(cat, f), limit),
			Quantity:    excess, UnitAmount: price, Amount: amount}})
	}
	return lines, nil
}

// prorationLines credits the unused rest of the period of every old line
// the change alters and charges the new line for it.
func prorationLines(old, next []keyedLine, now, start, end time.Time) []keyedLine {
	rest := int64(end.Sub(now) / time.Second)
	period := int64(end.Sub(start) / time.Second)
	from := now.UTC().Truncate(time.Second).Format("2 Jan 2006 15:04:05 MST")
	find := func(lines []keyedLine, key string) (keyedLine, bool) {
		i := slices.IndexFunc(lines, func(l keyedLine) bool { return l.key == key })
		if i < 0 {
			return keyedLine{}, false
		}
		return lines[i], true
	}
	var keys []string
	for _, l := range append(slices.Clone(old), next...) {
		if !slices.Contains(keys, l.key) {
			keys = append(keys, l.key)
		}
	}
	var out []keyedLine
	add := func(key, desc string, amount int64) {
		if amount != 0 {
			out = append(out, keyedLine{key, PreviewLine{Kind: LineProration, Description: desc,
				Quantity: 1, UnitAmount: amount, Amount: amount}})
		}
	}
	for _, key := range keys {
		o, hadOld := find(old, key)
		n, hasNew := find(next, key)
		if hadOld && hasNew && o.Amount == n.Amount {
			continue
		}
		if hadOld {
			credit, _ := arith.MulDivRound(o.Amount, rest, period) // ≤ o.Amount: fits
			add(key, fmt.Sprintf("Unused time on %s from %s", o.Description, from), -credit)
		}
		if hasNew {
			charge, _ := arith.MulDivRound(n.Amount, rest, period)
			add(key, fmt.Sprintf("Remaining time on %s from %s", n.Description, from), charge)
		}
	}
	return out
}

// newPreview sums lines into a preview.
func newPreview(currency string, start, end time.Time, lines []keyedLine) Preview {
	p := Preview{Currency: currency, PeriodStart: start, PeriodEnd: end, Lines: make([]PreviewLine, len(lines))}
	for i, l := range lines {
		p.Lines[i] = l.PreviewLine
		p.Subtotal += l.Amount // each |amount| ≤ maxAmount, a few dozen lines: no overflow
	}
	p.Total = p.Subtotal
	return p
}

// moduleName is the display name of a module (or metered feature).
func moduleName(cat *catalog.Catalog, id string) string {
	if m, ok := cat.Module(id); ok {
		return m.Name
	}
	return id
}
