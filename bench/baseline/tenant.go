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

// moduleOn tells whether a module is on for the caller's tenant: the
// tenant's switch when the plan lets it switch the module (one query),
// else its default: included in the plan (no query), or a contracted
// add-on the plan sells (one query).
func (s *server) moduleOn(ctx context.Context, c caller, module string) (bool, error) {
	if s.cat.Toggleable(c.plan, module) {
		var on bool
		err := s.db.QueryRow(ctx, `SELECT enabled FROM module_toggles WHERE tenant_id = $1 AND module = $2`,
			c.tenantID, module).Scan(&on)
		if err == nil || !errors.Is(err, pgx.ErrNoRows) {
			return on, err
		}
	}
	if c.plan.Includes(module) {
		return true, nil
	}
	if _, sold := c.plan.AddOn(module); !sold {
		return false, nil
	}
	var n int
	err := s.db.QueryRow(ctx, `SELECT count(*) FROM contract_add_ons WHERE tenant_id = $1 AND module = $2`,
		c.tenantID, module).Scan(&n)
	return n > 0, err
}

// limitOf returns the tenant's limit of feature, -1 for unlimited: its
// override, else its plan's (seats: its contract's seats).
func limitOf(ctx context.Context, q querier, c caller, feature string) (int64, error) {
	var lim *int64
	err := q.QueryRow(ctx, `SELECT lim FROM limit_overrides WHERE tenant_id = $1 AND feature = $2`,
		c.tenantID, feature).Scan(&lim)
	switch {
	case err == nil && lim == nil:
		return -1, nil
	case err == nil:
		return *lim, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return 0, err
	}
	return planLimit(c, feature, nil), nil
}

// planLimit is the limit of feature from the overrides map, else the plan.
func planLimit(c caller, feature string, overrides map[string]*int64) int64 {
	if l, ok := overrides[feature]; ok {
		if l == nil {
			return -1
		}
		return *l
	}
	if feature == catalog.FeatureSeats {
		return int64(c.seats)
	}
	l, unlimited, _ := c.plan.Limit(feature)
	if unlimited {
		return -1
	}
	return l
}

// consume spends one unit of a metered feature in tx, as tenancy's
// ConsumeUsage does: seed the counter, then one conditional UPDATE …
// RETURNING; crossing 80 % or 100 % of a finite limit inserts a
// notification (deduplicated per period).
func consume(ctx context.Context, tx pgx.Tx, c caller, feature string) error {
	limit, err := limitOf(ctx, tx, c, feature)
	if err != nil {
		return err
	}
	per, _, _ := period(time.Now())
	if _, err := tx.Exec(ctx, `INSERT INTO usage_counters (tenant_id, feature, period, used) VALUES ($1, $2, $3, 0)
		ON CONFLICT DO NOTHING`, c.tenantID, feature, per); err != nil {
		return err
	}
	var used int64
	if limit >= 0 {
		err = tx.QueryRow(ctx, `UPDATE usage_counters SET used = used + 1
			WHERE tenant_id = $1 AND feature = $2 AND period = $3 AND used + 1 <= $4 RETURNING used`,
			c.tenantID, feature, per, limit).Scan(&used)
	} else {
		err = tx.QueryRow(ctx, `UPDATE usage_counters SET used = used + 1
			WHERE tenant_id = $1 AND feature = $2 AND period = $3 RETURNING used`,
			c.tenantID, feature, per).Scan(&used)
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
		if _, err := tx.Exec(ctx, `INSERT INTO notifications (tenant_id, id, type, title, body, data, dedupe_key, created_at)
			VALUES ($1, $2, 'entitlement.threshold', $3, '', $4, $5, $6) ON CONFLICT DO NOTHING`,
			c.tenantID, newID("ntf"), fmt.Sprintf("%s: %d%% of the monthly limit used", feature, pct), string(data),
			fmt.Sprintf("entitlement.threshold:%s:%s:%d", feature, per, pct), time.Now().UTC()); err != nil {
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

// entitlements answers GET /api/tenant/entitlements/limit: overrides,
// usage of the period, member count and module switches, four queries.
func (s *server) entitlements(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "", "entitlements:read")
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	overrides := map[string]*int64{}
	if err := collect(ctx, s.db, `SELECT feature, lim FROM limit_overrides WHERE tenant_id = $1`, []any{c.tenantID},
		func(rows pgx.Rows) error {
			var f string
			var l *int64
			err := rows.Scan(&f, &l)
			overrides[f] = l
			return err
		}); err != nil {
		respondError(w, err)
		return
	}
	per, start, end := period(time.Now())
	usage := map[string]int64{}
	if err := collect(ctx, s.db, `SELECT feature, used FROM usage_counters WHERE tenant_id = $1 AND period = $2`,
		[]any{c.tenantID, per}, func(rows pgx.Rows) error {
			var f string
			var n int64
			err := rows.Scan(&f, &n)
			usage[f] = n
			return err
		}); err != nil {
		respondError(w, err)
		return
	}
	var members int64
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM memberships WHERE tenant_id = $1`, c.tenantID).Scan(&members); err != nil {
		respondError(w, err)
		return
	}
	usage[catalog.FeatureSeats] = members
	toggles, err := s.toggles(ctx, c.tenantID)
	if err != nil {
		respondError(w, err)
		return
	}
	addOns, err := s.addOns(ctx, c.tenantID)
	if err != nil {
		respondError(w, err)
		return
	}
	out := struct {
		TenantID string        `json:"tenant_id"`
		Data     []entitlement `json:"data"`
		Modules  []moduleState `json:"modules"`
	}{TenantID: c.tenantID, Modules: s.modules(c.plan, toggles, addOns)}
	for _, f := range catalog.Features() {
		e := entitlement{Feature: f, Usage: usage[f], PeriodStart: start, PeriodEnd: end}
		if l := planLimit(c, f, overrides); l >= 0 {
			rem := max(l-e.Usage, 0)
			e.Limit, e.Remaining = &l, &rem
		}
		out.Data = append(out.Data, e)
	}
	writeJSON(w, http.StatusOK, out)
}

// toggles reads the tenant's module switches.
func (s *server) toggles(ctx context.Context, tenantID string) (map[string]bool, error) {
	toggles := map[string]bool{}
	err := collect(ctx, s.db, `SELECT module, enabled FROM module_toggles WHERE tenant_id = $1`, []any{tenantID},
		func(rows pgx.Rows) error {
			var m string
			var on bool
			err := rows.Scan(&m, &on)
			toggles[m] = on
			return err
		})
	return toggles, err
}

// addOns reads the tenant's contracted add-on modules.
func (s *server) addOns(ctx context.Context, tenantID string) (map[string]bool, error) {
	out := map[string]bool{}
	err := collect(ctx, s.db, `SELECT module FROM contract_add_ons WHERE tenant_id = $1 ORDER BY module`, []any{tenantID},
		func(rows pgx.Rows) error {
			var m string
			err := rows.Scan(&m)
			out[m] = true
			return err
		})
	return out, err
}

// modules lists the modules the plan includes or sells, with their state:
// included modules and contracted add-ons are on unless switched off.
func (s *server) modules(plan catalog.Plan, toggles, addOns map[string]bool) []moduleState {
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
// plan's own limits where the plan prices overage. Three queries: the
// contract's add-ons, the period's usage and the member count. It stores
// nothing; hypothetical changes are not supported (422).
func (s *server) previewInvoice(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "", "billing:preview")
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
	ctx := r.Context()
	addOns, err := s.addOns(ctx, c.tenantID)
	if err != nil {
		respondError(w, err)
		return
	}
	per, start, end := period(time.Now())
	usage := map[string]int64{}
	if err := collect(ctx, s.db, `SELECT feature, used FROM usage_counters WHERE tenant_id = $1 AND period = $2`,
		[]any{c.tenantID, per}, func(rows pgx.Rows) error {
			var f string
			var n int64
			err := rows.Scan(&f, &n)
			usage[f] = n
			return err
		}); err != nil {
		respondError(w, err)
		return
	}
	var members int64
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM memberships WHERE tenant_id = $1`, c.tenantID).Scan(&members); err != nil {
		respondError(w, err)
		return
	}
	usage[catalog.FeatureSeats] = members
	plan := c.plan
	lines := []previewLine{{Kind: "plan", Description: plan.Name + " plan", Quantity: 1, UnitAmount: plan.BasePrice, Amount: plan.BasePrice}}
	if extra := int64(c.seats - plan.IncludedSeats); extra > 0 {
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
