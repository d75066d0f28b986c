package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

type toggleRow struct {
	bun.BaseModel `bun:"table:module_toggles"`
	TenantID      string    `bun:"tenant_id,pk"`
	Module        string    `bun:"module,pk"`
	Enabled       bool      `bun:"enabled"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// ModuleToggles implements tenancy.ModuleStore.
func (s *Store) ModuleToggles(ctx context.Context, tenantID string) (map[string]bool, error) {
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

// SetModuleToggle implements tenancy.ModuleStore. Like ConsumeUsage it
// seeds the row (with the initial state) and then changes it with one
// conditional UPDATE, whose row lock serialises concurrent callers: only
// the one that finds the other state reports a change. Asking for the
// initial state seeds nothing, so that a no-op request records no switch.
func (s *Store) SetModuleToggle(ctx context.Context, tenantID, module string, enabled, initial bool, at time.Time) (bool, error) {
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
