package tenancy

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

type usageRow struct {
	bun.BaseModel `bun:"table:usage_counters"`
	TenantID      string `bun:"tenant_id,pk"`
	Feature       string `bun:"feature,pk"`
	Period        string `bun:"period,pk"`
	Used          int64  `bun:"used"`
}

type limitRow struct {
	bun.BaseModel `bun:"table:limit_overrides"`
	TenantID      string `bun:"tenant_id,pk"`
	Feature       string `bun:"feature,pk"`
	Limit         *int64 `bun:"lim"`
}

type toggleRow struct {
	bun.BaseModel `bun:"table:module_toggles"`
	TenantID      string    `bun:"tenant_id,pk"`
	Module        string    `bun:"module,pk"`
	Enabled       bool      `bun:"enabled"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// ConsumeUsage implements Store with one upsert: it inserts the period's
// counter at n, or adds n to it only while the sum stays within limit, and
// returns the new usage. The conflicting row's lock (Postgres) or the
// write lock (SQLite) serialises concurrent consumers, and the condition is
// checked on the row as the previous one left it, so none can pass the
// limit. A counter that is not there yet is created only when n itself is
// within the limit, which is decided before the statement.
func (s *BunStore) ConsumeUsage(ctx context.Context, tenantID, feature, period string, n, limit int64) (int64, error) {
	if limit >= 0 && n > limit {
		return 0, ErrLimitExceeded
	}
	a := database.NewArgs(s.db)
	query := `INSERT INTO usage_counters (tenant_id, feature, period, used) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id, feature, period) DO UPDATE SET used = usage_counters.used + excluded.used`
	args := []any{a.Add(tenantID), a.Add(feature), a.Add(period), a.Add(n)}
	if limit >= 0 {
		query += ` WHERE usage_counters.used + excluded.used <= ?`
		args = append(args, a.Add(limit))
	}
	q := s.conn(ctx).NewRaw(query+` RETURNING used`, args...)
	var used int64
	err := database.Scan(ctx, s.db, q, a, &used)
	if errors.Is(translate(err), ErrNotFound) {
		return 0, ErrLimitExceeded // the condition kept the row as it was
	}
	return used, translate(err)
}

// stateRow is one row of EntitlementState's query: the tenant itself
// ("tenant": plan id, seats), or one of its switches, add-ons, overrides,
// usage counters, or the member count.
type stateRow struct {
	Kind string `bun:"kind"`
	Name string `bun:"name"`
	Num  *int64 `bun:"num"`
}

// EntitlementState implements Store with one UNION ALL query: a row for the
// tenant and one per switch, add-on, override and (for a period) usage
// counter, plus the member count, plus the asked member's role. Each part
// is confined to the tenant.
func (s *BunStore) EntitlementState(ctx context.Context, tenantID string, sq StateQuery) (EntitlementState, error) {
	period := sq.Period
	db := s.conn(ctx)
	a := database.NewArgs(s.db)
	tenant := a.Add(tenantID)
	part := func(table, columns string) *bun.SelectQuery {
		return database.ForTenant(db.NewSelect().TableExpr(table).ColumnExpr(columns), tenant)
	}
	q := db.NewSelect().TableExpr("tenants").ColumnExpr("'tenant' AS kind, plan_id AS name, seats AS num").Where("id = ?", tenant).
		UnionAll(part("module_toggles", "'toggle', module, CASE WHEN enabled THEN 1 ELSE 0 END")).
		UnionAll(part("contract_add_ons", "'add_on', module, NULL")).
		UnionAll(part("limit_overrides", "'limit', feature, lim"))
	if period != "" {
		q = q.UnionAll(part("usage_counters", "'usage', feature, used").Where("period = ?", a.Add(period))).
			UnionAll(part("memberships", "'members', '', count(*)"))
	}
	if sq.MemberID != "" {
		q = q.UnionAll(part("memberships", "'member', role, NULL").Where("user_id = ?", a.Add(sq.MemberID)))
	}
	rows := make([]stateRow, 0, 8)
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return EntitlementState{}, translate(err)
	}
	st := EntitlementState{TenantID: tenantID, Toggles: map[string]bool{}, AddOns: []string{}, Overrides: map[string]*int64{}}
	found := false
	if period != "" {
		st.Period, st.Usage = period, map[string]int64{}
	}
	for _, r := range rows {
		num := int64(0)
		if r.Num != nil {
			num = *r.Num
		}
		switch r.Kind {
		case "tenant":
			found, st.PlanID, st.Seats = true, r.Name, int(num)
		case "toggle":
			st.Toggles[r.Name] = num != 0
		case "add_on":
			st.AddOns = append(st.AddOns, r.Name)
		case "limit":
			st.Overrides[r.Name] = r.Num
		case "usage":
			st.Usage[r.Name] = num
		case "members":
			st.Members = num
		case "member":
			st.Member = &Membership{TenantID: tenantID, UserID: sq.MemberID, Role: Role(r.Name)}
		}
	}
	if !found {
		return EntitlementState{}, ErrNotFound
	}
	slices.Sort(st.AddOns)
	return st, nil
}

// Usage implements Store.
func (s *BunStore) Usage(ctx context.Context, tenantID, feature, period string) (int64, error) {
	var used int64
	err := database.ForTenant(s.conn(ctx).NewSelect().Model((*usageRow)(nil)), tenantID).Column("used").
		Where("feature = ?", feature).Where("period = ?", period).
		Scan(ctx, &used)
	if errors.Is(translate(err), ErrNotFound) {
		return 0, nil
	}
	return used, translate(err)
}

// LimitOverrides implements Store.
func (s *BunStore) LimitOverrides(ctx context.Context, tenantID string) (map[string]*int64, error) {
	var rows []limitRow
	if err := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out := make(map[string]*int64, len(rows))
	for _, r := range rows {
		out[r.Feature] = r.Limit
	}
	return out, nil
}

// SetLimitOverride implements Store.
func (s *BunStore) SetLimitOverride(ctx context.Context, tenantID, feature string, limit *int64) error {
	row := limitRow{TenantID: tenantID, Feature: feature, Limit: limit}
	_, err := s.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (tenant_id, feature) DO UPDATE").Set("lim = EXCLUDED.lim").Exec(ctx)
	return translate(err)
}

// ModuleToggles implements Store.
func (s *BunStore) ModuleToggles(ctx context.Context, tenantID string) (map[string]bool, error) {
	var rows []toggleRow
	if err := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out := make(map[string]bool, len(rows))
	for _, r := range rows {
		out[r.Module] = r.Enabled
	}
	return out, nil
}

// SetModuleToggle implements Store. Like ConsumeUsage it seeds the row
// (with the initial state) and then changes it with one conditional
// UPDATE, whose row lock serialises concurrent callers: only the one that
// finds the other state reports a change. Asking for the initial state
// seeds nothing, so that a no-op request records no switch.
func (s *BunStore) SetModuleToggle(ctx context.Context, tenantID, module string, enabled, initial bool, at time.Time) (bool, error) {
	db := s.conn(ctx)
	if enabled != initial {
		seed := toggleRow{TenantID: tenantID, Module: module, Enabled: initial, UpdatedAt: at}
		if _, err := db.NewInsert().Model(&seed).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return false, translate(err)
		}
	}
	res, err := database.ForTenant(db.NewUpdate().Model((*toggleRow)(nil)), tenantID).
		Set("enabled = ?", enabled).Set("updated_at = ?", at).
		Where("module = ?", module).Where("enabled <> ?", enabled).
		Exec(ctx)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, database.Wrap(err)
	}
	return n > 0, nil
}
