package tenancy

import (
	"context"
	"errors"
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

// ConsumeUsage implements Store. The check and the increment are one
// UPDATE … WHERE used + n <= limit, so the row lock (Postgres) or the
// write lock (SQLite) serialises concurrent consumers and none can pass
// the limit.
func (s *BunStore) ConsumeUsage(ctx context.Context, tenantID, feature, period string, n, limit int64) (int64, error) {
	db := s.conn(ctx)
	seed := usageRow{TenantID: tenantID, Feature: feature, Period: period}
	if _, err := db.NewInsert().Model(&seed).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
		return 0, translate(err)
	}
	q := database.ForTenant(db.NewUpdate().Model((*usageRow)(nil)), tenantID).
		Set("used = used + ?", n).
		Where("feature = ?", feature).Where("period = ?", period)
	if limit >= 0 {
		q = q.Where("used + ? <= ?", n, limit)
	}
	var used int64
	err := q.Returning("used").Scan(ctx, &used)
	if errors.Is(translate(err), ErrNotFound) {
		return 0, ErrLimitExceeded
	}
	return used, translate(err)
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
