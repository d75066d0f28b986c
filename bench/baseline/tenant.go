package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tenantkit/tenantkit/catalog"
)

// querier is a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// newID makes an id like tenantkit's: prefix + lower-case ULID.
func newID(prefix string) string {
	return prefix + "_" + strings.ToLower(ulid.Make().String())
}

// period is the current usage period: the calendar month in UTC.
func period(now time.Time) (key string, start, end time.Time) {
	now = now.UTC()
	start = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start.Format("2006-01"), start, start.AddDate(0, 1, 0)
}

// state is a tenant's entitlement state as tenantkit reads it in one
// UNION ALL query: plan and seats, module switches, contracted add-ons,
// limit overrides, the member's role and, when asked, the period's usage
// and the member count.
type state struct {
	plan      catalog.Plan
	seats     int
	toggles   map[string]bool
	addOns    map[string]bool
	overrides map[string]*int64 // nil: unlimited
	usage     map[string]int64
	members   int64
	role      string
	// webhookEndpoints is the tenant's count of enabled webhook endpoints
	// (tenants.enabled_webhook_endpoints): a request that read the state
	// inserts its event without asking (recordEventAfter).
	webhookEndpoints int64
}

// readState runs one of the state queries (sqlState, sqlStateUsage).
func (s *server) readState(ctx context.Context, sql string, args ...any) (*state, error) {
	st := &state{toggles: map[string]bool{}, addOns: map[string]bool{}, overrides: map[string]*int64{}, usage: map[string]int64{}}
	planID := ""
	err := collect(ctx, s.db, sql, args, func(rows pgx.Rows) error {
		var (
			kind, name string
			num, extra *int64
		)
		if err := rows.Scan(&kind, &name, &num, &extra); err != nil {
			return err
		}
		n := int64(0)
		if num != nil {
			n = *num
		}
		switch kind {
		case "tenant":
			planID, st.seats = name, int(n)
			if extra != nil {
				st.webhookEndpoints = *extra
			}
		case "toggle":
			st.toggles[name] = n == 1
		case "add_on":
			st.addOns[name] = true
		case "limit":
			st.overrides[name] = num
		case "usage":
			st.usage[name] = n
		case "members":
			st.members = n
		case "member":
			st.role = name
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var ok bool
	if st.plan, ok = s.plans[planID]; !ok {
		return nil, fmt.Errorf("tenant is on unknown plan %q", planID)
	}
	return st, nil
}

// moduleOn tells whether a module is on for the tenant: its switch when
// the plan lets it switch the module, else included in the plan, or a
// contracted add-on the plan sells.
func (s *server) moduleOn(st *state, module string) bool {
	if on, ok := st.toggles[module]; ok && s.cat.Toggleable(st.plan, module) {
		return on
	}
	if st.plan.Includes(module) {
		return true
	}
	_, sold := st.plan.AddOn(module)
	return sold && st.addOns[module]
}

// limitOf is the tenant's limit of feature, -1 for unlimited: its
// override, else its plan's (seats: its contract's seats).
func limitOf(st *state, feature string) int64 {
	if l, ok := st.overrides[feature]; ok {
		if l == nil {
			return -1
		}
		return *l
	}
	if feature == catalog.FeatureSeats {
		return int64(st.seats)
	}
	l, unlimited, _ := st.plan.Limit(feature)
	if unlimited {
		return -1
	}
	return l
}

// Tenantkit's usage counter statements (a finite limit guards the
// increment) and its notification insert.
const (
	sqlConsume = `INSERT INTO "usage_counters" AS "usage_row" ("tenant_id", "feature", "period", "used") VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, feature, period) DO UPDATE SET used = "usage_row".used + EXCLUDED.used RETURNING used`
	sqlConsumeLimited = `INSERT INTO "usage_counters" AS "usage_row" ("tenant_id", "feature", "period", "used") VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, feature, period) DO UPDATE SET used = "usage_row".used + EXCLUDED.used WHERE ("usage_row".used + EXCLUDED.used <= $5) RETURNING used`
	sqlNotification = `INSERT INTO "notifications" AS "notification_row" ("tenant_id", "id", "type", "title", "body", "data", "dedupe_key", "created_at", "read_at") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING "read_at"`
)

// consume spends one unit of a metered feature in tx, as tenancy's
// ConsumeUsage does: one upsert, guarded by the limit when there is one;
// crossing 80 % or 100 % of a finite limit inserts a notification
// (deduplicated per period).
func consume(ctx context.Context, tx pgx.Tx, c caller, feature string) error {
	limit := limitOf(c.st, feature)
	per, _, _ := period(time.Now())
	var (
		used int64
		err  error
	)
	if limit >= 0 {
		err = tx.QueryRow(ctx, sqlConsumeLimited, c.tenantID, feature, per, 1, limit).Scan(&used)
	} else {
		err = tx.QueryRow(ctx, sqlConsume, c.tenantID, feature, per, 1).Scan(&used)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fail(http.StatusForbidden, "entitlement_limit_exceeded", "the monthly limit of "+feature+" is reached")
	}
	if err != nil || limit <= 0 {
		return err
	}
	for _, pct := range []int64{80, 100} {
		mark := limit/100*pct + (limit%100*pct+99)/100
		if used-1 >= mark || used < mark {
			continue
		}
		data, _ := json.Marshal(map[string]any{"feature": feature, "threshold": pct, "limit": limit, "usage": used})
		if _, err := tx.Exec(ctx, sqlNotification, c.tenantID, newID("ntf"), "entitlement.threshold",
			fmt.Sprintf("%s: %d%% of the monthly limit used", feature, pct), "", string(data),
			fmt.Sprintf("entitlement.threshold:%s:%s:%d", feature, per, pct), time.Now().UTC(), nil); err != nil {
			return err
		}
	}
	return nil
}

// entitlement is one row of GET /api/tenant/entitlements/limit.
type entitlement struct {
	Feature     string    `json:"feature"`
	Limit       *int64    `json:"limit"`
	Usage       int64     `json:"usage"`
	Remaining   *int64    `json:"remaining"`
	PeriodStart time.Time `json:"period_start"`
	PeriodEnd   time.Time `json:"period_end"`
}

type moduleState struct {
	Module  string `json:"module"`
	Enabled bool   `json:"enabled"`
}

// entitlements answers GET /api/tenant/entitlements/limit from the state
// (with usage and members) read with the membership: no further query.
func (s *server) entitlements(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "", "entitlements:read", readsUsage)
	if err != nil {
		respondError(w, err)
		return
	}
	st := c.st
	_, start, end := period(time.Now())
	st.usage[catalog.FeatureSeats] = st.members
	out := struct {
		TenantID string        `json:"tenant_id"`
		Data     []entitlement `json:"data"`
		Modules  []moduleState `json:"modules"`
	}{TenantID: c.tenantID, Modules: s.modules(st)}
	for _, f := range catalog.Features() {
		e := entitlement{Feature: f, Usage: st.usage[f], PeriodStart: start, PeriodEnd: end}
		if l := limitOf(st, f); l >= 0 {
			rem := max(l-e.Usage, 0)
			e.Limit, e.Remaining = &l, &rem
		}
		out.Data = append(out.Data, e)
	}
	writeJSON(w, http.StatusOK, out)
}

// modules lists the modules the plan includes or sells, with their state:
// included modules and contracted add-ons are on unless switched off.
func (s *server) modules(st *state) []moduleState {
	plan, toggles, addOns := st.plan, st.toggles, st.addOns
	out := []moduleState{}
	for _, app := range s.cat.Apps {
		for _, m := range app.Modules {
			_, sold := plan.AddOn(m.ID)
			if !plan.Includes(m.ID) && !sold {
				continue
			}
			on := plan.Includes(m.ID) || (sold && addOns[m.ID])
			if v, ok := toggles[m.ID]; ok && s.cat.Toggleable(plan, m.ID) {
				on = v
			}
			out = append(out, moduleState{Module: m.ID, Enabled: on})
		}
	}
	return out
}

// collect runs a query and calls scan for each row.
func collect(ctx context.Context, q querier, sql string, args []any, scan func(pgx.Rows) error) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sqlPeriod reads a tenant's billing period record, as tenancy's store does.
const sqlPeriod = `SELECT "period_row"."tenant_id", "period_row"."period_start", "period_row"."opening", "period_row"."prorations" FROM "contract_periods" AS "period_row" WHERE (tenant_id = $1) AND (period_start = $2)`

// previewLine is one line of an invoice preview.
type previewLine struct {
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	UnitAmount  int64  `json:"unit_amount"`
	Amount      int64  `json:"amount"`
}

// previewInvoice answers POST /api/invoices/preview for the current
// contract (the bench sends {}): the plan's base price, seats beyond the
// included ones, contracted add-ons, and the period's usage beyond the
// plan's own limits where the plan prices overage, all from the state
// (with usage and members) read with the membership. It stores nothing;
// hypothetical changes are not supported (422).
func (s *server) previewInvoice(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "", "billing:preview", readsUsage)
	if err != nil {
		respondError(w, err)
		return
	}
	var in struct {
		PlanID    *string  `json:"plan_id,omitempty"`
		Seats     *int     `json:"seats,omitempty"`
		Modules   []string `json:"modules,omitempty"`
		Effective string   `json:"effective,omitempty"`
	}
	if r.ContentLength != 0 {
		if err := decodeBody(r, &in); err != nil {
			respondError(w, err)
			return
		}
	}
	if in.PlanID != nil || in.Seats != nil || in.Modules != nil || in.Effective != "" {
		respondError(w, fail(http.StatusUnprocessableEntity, "validation_failed", "the baseline previews the current contract only"))
		return
	}
	st := c.st
	addOns, usage := st.addOns, st.usage
	_, start, end := period(time.Now())
	// The period's record, as the contract keeps it: the terms it opened
	// with and the changes prorated within it. The bench's tenants have
	// none, and the baseline previews only such a period.
	var prorated int
	if err := collect(r.Context(), s.db, sqlPeriod, []any{c.tenantID, start}, func(pgx.Rows) error {
		prorated++
		return nil
	}); err != nil {
		respondError(w, err)
		return
	}
	if prorated > 0 {
		respondError(w, fail(http.StatusUnprocessableEntity, "validation_failed", "the baseline previews only a period without a record"))
		return
	}
	usage[catalog.FeatureSeats] = st.members
	plan := st.plan
	lines := []previewLine{{Kind: "plan", Description: plan.Name + " plan", Quantity: 1, UnitAmount: plan.BasePrice, Amount: plan.BasePrice}}
	if extra := int64(st.seats - plan.IncludedSeats); extra > 0 {
		lines = append(lines, previewLine{Kind: "seats", Description: fmt.Sprintf("Seats beyond the %d included", plan.IncludedSeats),
			Quantity: extra, UnitAmount: plan.SeatPrice, Amount: extra * plan.SeatPrice})
	}
	for _, a := range plan.AddOns {
		if addOns[a.Module] {
			name := a.Module
			if m, ok := s.cat.Module(a.Module); ok {
				name = m.Name
			}
			lines = append(lines, previewLine{Kind: "add_on", Description: name + " add-on", Quantity: 1, UnitAmount: a.Price, Amount: a.Price})
		}
	}
	for _, f := range catalog.Features() {
		price, priced := plan.OveragePrice(f)
		limit, unlimited, known := plan.Limit(f)
		if !catalog.Metered(f) || !priced || !known || unlimited || usage[f] <= limit {
			continue
		}
		over := usage[f] - limit
		lines = append(lines, previewLine{Kind: "overage", Description: fmt.Sprintf("%s beyond the %d included", f, limit),
			Quantity: over, UnitAmount: price, Amount: over * price})
	}
	var total int64
	for _, l := range lines {
		total += l.Amount
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"currency": plan.Currency, "period_start": start, "period_end": end,
		"lines": lines, "subtotal": total, "total": total,
	})
}
