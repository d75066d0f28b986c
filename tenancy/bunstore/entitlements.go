package bunstore

import (
	"context"
	"errors"
	"slices"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
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

// ConsumeUsage implements tenancy.EntitlementStore with one upsert: it
// inserts the period's counter at n, or adds n to it only while the sum
// stays within limit, and returns the new usage. The conflicting row's
// lock (Postgres) or the write lock (SQLite) serialises concurrent
// consumers, and the condition is checked on the row as the previous one
// left it, so none can pass the limit. A counter that is not there yet is
// created only when n itself is within the limit, which is decided before
// the statement.
//
// With then, the upsert and then run on the caller's transaction when ctx
// carries one, without a savepoint (database.JoinTx): the two round trips
// of SAVEPOINT and RELEASE that a nested transaction would add to every
// invoice and ticket create are saved, and a failure fails the caller's
// transaction anyway. Without a caller's transaction they run in one of
// their own.
func (s *Store) ConsumeUsage(ctx context.Context, tenantID, feature, period string, n, limit int64, then func(ctx context.Context, used int64) error) (int64, error) {
	if limit >= 0 && n > limit {
		return 0, tenancy.ErrLimitExceeded
	}
	if then == nil {
		return s.consume(ctx, tenantID, feature, period, n, limit)
	}
	var used int64
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		var err error
		if used, err = s.consume(ctx, tenantID, feature, period, n, limit); err != nil {
			return err
		}
		return then(ctx, used)
	})
	return used, err
}

// consume is ConsumeUsage's upsert. With a limit, the update's WHERE
// keeps the row as it was when the sum would pass it, and RETURNING then
// yields no row.
func (s *Store) consume(ctx context.Context, tenantID, feature, period string, n, limit int64) (int64, error) {
	row := usageRow{TenantID: tenantID, Feature: feature, Period: period, Used: n}
	q := s.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (tenant_id, feature, period) DO UPDATE").
		Set("used = ?TableAlias.used + EXCLUDED.used").
		Returning("used")
	if limit >= 0 {
		q = q.Where("?TableAlias.used + EXCLUDED.used <= ?", limit)
	}
	err := q.Scan(ctx)
	if errors.Is(translate(err), tenancy.ErrNotFound) {
		return 0, tenancy.ErrLimitExceeded
	}
	return row.Used, translate(err)
}

// stateRow is one row of EntitlementState's query: the tenant itself
// ("tenant": plan id, seats), or one of its switches, add-ons, overrides,
// usage counters, or the member count.
type stateRow struct {
	Kind string `bun:"kind"`
	Name string `bun:"name"`
	Num  *int64 `bun:"num"`
	// Extra is the tenant row's enabled_webhook_endpoints; NULL elsewhere.
	Extra *int64 `bun:"extra"`
}

// stateQuery is EntitlementState's UNION ALL: the tenant's row, then one
// part per kind of state, each confined to the tenant. Only the tenant's
// row fills the fourth column (extra), with its count of enabled webhook
// endpoints.
func (s *Store) stateQuery(ctx context.Context, tenantID string, sq tenancy.StateQuery) *bun.SelectQuery {
	db := s.conn(ctx)
	part := func(table, columns string) *bun.SelectQuery {
		return database.ForTenant(db.NewSelect().TableExpr(table).ColumnExpr(columns), tenantID)
	}
	q := db.NewSelect().TableExpr("tenants").
		ColumnExpr("'tenant' AS kind, plan_id AS name, seats AS num, enabled_webhook_endpoints AS extra").
		Where("id = ?", tenantID).
		UnionAll(part("module_toggles", "'toggle', module, CASE WHEN enabled THEN 1 ELSE 0 END, NULL")).
		UnionAll(part("contract_add_ons", "'add_on', module, NULL, NULL")).
		UnionAll(part("limit_overrides", "'limit', feature, lim, NULL")).
		UnionAll(db.NewSelect().TableExpr("tenants").ColumnExpr("'test', '', NULL, NULL").Where("id = ?", tenantID).Where("test"))
	if sq.Period != "" {
		q = q.UnionAll(part("usage_counters", "'usage', feature, used, NULL").Where("period = ?", sq.Period)).
			UnionAll(part("memberships", "'members', '', count(*), NULL"))
	}
	if sq.MemberID != "" {
		q = q.UnionAll(part("memberships", "'member', role, NULL, NULL").Where("user_id = ?", sq.MemberID))
	}
	return q
}

// EntitlementState implements tenancy.EntitlementStore with one UNION ALL
// query: a row for the tenant and one per switch, add-on, override and
// (for a period) usage counter, plus the member count, plus the asked
// member's role. Each part is confined to the tenant.
func (s *Store) EntitlementState(ctx context.Context, tenantID string, sq tenancy.StateQuery) (tenancy.EntitlementState, error) {
	period := sq.Period
	rows := make([]stateRow, 0, 8)
	if err := s.stateQuery(ctx, tenantID, sq).Scan(ctx, &rows); err != nil {
		return tenancy.EntitlementState{}, translate(err)
	}
	st := tenancy.EntitlementState{TenantID: tenantID, Toggles: map[string]bool{}, AddOns: []string{}, Overrides: map[string]*int64{}}
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
			if r.Extra != nil {
				st.WebhookEndpoints = int(*r.Extra)
			}
		case "test":
			st.Test = true
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
			st.Member = &tenancy.Membership{TenantID: tenantID, UserID: sq.MemberID, Role: tenancy.Role(r.Name)}
		}
	}
	if !found {
		return tenancy.EntitlementState{}, tenancy.ErrNotFound
	}
	slices.Sort(st.AddOns)
	return st, nil
}

// Usage implements tenancy.EntitlementStore.
func (s *Store) Usage(ctx context.Context, tenantID, feature, period string) (int64, error) {
	var used int64
	err := database.ForTenant(s.conn(ctx).NewSelect().Model((*usageRow)(nil)), tenantID).Column("used").
		Where("feature = ?", feature).Where("period = ?", period).
		Scan(ctx, &used)
	if errors.Is(translate(err), tenancy.ErrNotFound) {
		return 0, nil
	}
	return used, translate(err)
}

// LimitOverrides implements tenancy.EntitlementStore.
func (s *Store) LimitOverrides(ctx context.Context, tenantID string) (map[string]*int64, error) {
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

// SetLimitOverride implements tenancy.EntitlementStore.
func (s *Store) SetLimitOverride(ctx context.Context, tenantID, feature string, limit *int64) error {
	row := limitRow{TenantID: tenantID, Feature: feature, Limit: limit}
	_, err := s.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (tenant_id, feature) DO UPDATE").Set("lim = EXCLUDED.lim").Exec(ctx)
	return translate(err)
}

// DeleteLimitOverride implements tenancy.EntitlementStore.
func (s *Store) DeleteLimitOverride(ctx context.Context, tenantID, feature string) error {
	_, err := database.ForTenant(s.conn(ctx).NewDelete().Model((*limitRow)(nil)), tenantID).
		Where("feature = ?", feature).Exec(ctx)
	return translate(err)
}
