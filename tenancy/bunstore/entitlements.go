package bunstore

import (
	"context"
	"errors"
	"slices"
	"strings"

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

// consume is ConsumeUsage's upsert.
func (s *Store) consume(ctx context.Context, tenantID, feature, period string, n, limit int64) (int64, error) {
	var used int64
	var err error
	if limit >= 0 {
		err = s.stmts.consumeLimited.Scan(ctx, &used, tenantID, feature, period, n, limit)
	} else {
		err = s.stmts.consumeUnlimited.Scan(ctx, &used, tenantID, feature, period, n)
	}
	if errors.Is(translate(err), tenancy.ErrNotFound) {
		return 0, tenancy.ErrLimitExceeded // the condition kept the row as it was
	}
	return used, translate(err)
}

// consume's statements, without and with a limit (both constant: joined
// on every create, the text was copied twice per call).
const (
	consumeUnlimited = `INSERT INTO usage_counters (tenant_id, feature, period, used) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id, feature, period) DO UPDATE SET used = usage_counters.used + excluded.used RETURNING used`
	consumeLimited = `INSERT INTO usage_counters (tenant_id, feature, period, used) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id, feature, period) DO UPDATE SET used = usage_counters.used + excluded.used WHERE usage_counters.used + excluded.used <= ? RETURNING used`
)

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

// stateStmts are EntitlementState's query on db, [with usage][with
// member]. They are written out rather than built with Bun on every
// request: building the six to eight SELECTs of their parts allocated 150
// of the 594 MB an invoice preview run allocated (bench --profile, heap).
// ?0 is the tenant, then the period, then the member.
func stateStmts(db bun.IDB) (stmts [2][2]*database.Stmt) {
	for usage := range 2 {
		for member := range 2 {
			stmts[usage][member] = database.NewStmt(db, stateQuery(database.IsPostgres(db), usage == 1, member == 1))
		}
	}
	return stmts
}

// stateQuery writes the UNION ALL of the state's parts; only the tenant's
// row fills the fourth column (extra), with its count of enabled webhook
// endpoints. Postgres takes each part in parentheses, SQLite none.
func stateQuery(postgres, usage, member bool) string {
	parts := []string{
		`SELECT 'tenant' AS kind, plan_id AS name, seats AS num, enabled_webhook_endpoints AS extra FROM tenants WHERE (id = ?0)`,
		`SELECT 'toggle', module, CASE WHEN enabled THEN 1 ELSE 0 END, NULL FROM module_toggles WHERE (tenant_id = ?0)`,
		`SELECT 'add_on', module, NULL, NULL FROM contract_add_ons WHERE (tenant_id = ?0)`,
		`SELECT 'limit', feature, lim, NULL FROM limit_overrides WHERE (tenant_id = ?0)`,
	}
	memberArg := "?1"
	if usage {
		parts = append(parts,
			`SELECT 'usage', feature, used, NULL FROM usage_counters WHERE (tenant_id = ?0) AND (period = ?1)`,
			`SELECT 'members', '', count(*), NULL FROM memberships WHERE (tenant_id = ?0)`)
		memberArg = "?2"
	}
	if member {
		parts = append(parts, `SELECT 'member', role, NULL, NULL FROM memberships WHERE (tenant_id = ?0) AND (user_id = `+memberArg+`)`)
	}
	if postgres {
		for i, p := range parts {
			parts[i] = "(" + p + ")"
		}
	}
	return strings.Join(parts, " UNION ALL ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// EntitlementState implements tenancy.EntitlementStore with one UNION ALL
// query: a row for the tenant and one per switch, add-on, override and
// (for a period) usage counter, plus the member count, plus the asked
// member's role. Each part is confined to the tenant.
func (s *Store) EntitlementState(ctx context.Context, tenantID string, sq tenancy.StateQuery) (tenancy.EntitlementState, error) {
	period := sq.Period
	args := make([]any, 1, 3)
	args[0] = tenantID
	if period != "" {
		args = append(args, period)
	}
	if sq.MemberID != "" {
		args = append(args, sq.MemberID)
	}
	rows := make([]stateRow, 0, 8)
	if err := s.stmts.state[b2i(period != "")][b2i(sq.MemberID != "")].Scan(ctx, &rows, args...); err != nil {
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
