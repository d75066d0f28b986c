package tenancy

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

type addOnRow struct {
	bun.BaseModel `bun:"table:contract_add_ons"`
	TenantID      string    `bun:"tenant_id,pk"`
	Module        string    `bun:"module,pk"`
	AddedAt       time.Time `bun:"added_at"`
}

// TenantForUpdate implements Store.
func (s *BunStore) TenantForUpdate(ctx context.Context, id string) (Tenant, error) {
	db := s.conn(ctx)
	var row tenantRow
	q := db.NewSelect().Model(&row).Where("id = ?", id)
	if database.IsPostgres(db) {
		q = q.For("UPDATE")
	}
	err := q.Scan(ctx)
	return row.tenant(), translate(err)
}

// ContractAddOns implements Store.
func (s *BunStore) ContractAddOns(ctx context.Context, tenantID string) ([]string, error) {
	var modules []string
	err := database.ForTenant(s.conn(ctx).NewSelect().Model((*addOnRow)(nil)), tenantID).
		Column("module").OrderExpr("module").Scan(ctx, &modules)
	if err != nil {
		return nil, translate(err)
	}
	return modules, nil
}

// SetContract implements Store: one UPDATE of the tenant, then the add-ons
// not in c are deleted and the new ones inserted.
func (s *BunStore) SetContract(ctx context.Context, c Contract, at time.Time) error {
	return s.RunInTx(ctx, func(ctx context.Context) error {
		db := s.conn(ctx)
		res, err := db.NewUpdate().Model((*tenantRow)(nil)).
			Set("plan_id = ?", c.PlanID).Set("seats = ?", c.Seats).
			Where("id = ?", c.TenantID).Exec(ctx)
		if err := affected(res, err, ErrNotFound); err != nil {
			return err
		}
		del := database.ForTenant(db.NewDelete().Model((*addOnRow)(nil)), c.TenantID)
		if len(c.AddOns) > 0 {
			del = del.Where("module NOT IN (?)", bun.In(c.AddOns))
		}
		if _, err := del.Exec(ctx); err != nil {
			return translate(err)
		}
		if len(c.AddOns) == 0 {
			return nil
		}
		rows := make([]addOnRow, len(c.AddOns))
		for i, m := range c.AddOns {
			rows[i] = addOnRow{TenantID: c.TenantID, Module: m, AddedAt: at}
		}
		_, err = db.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx)
		return translate(err)
	})
}

// DeleteModuleToggles implements Store.
func (s *BunStore) DeleteModuleToggles(ctx context.Context, tenantID string, modules []string) error {
	if len(modules) == 0 {
		return nil
	}
	_, err := database.ForTenant(s.conn(ctx).NewDelete().Model((*toggleRow)(nil)), tenantID).
		Where("module IN (?)", bun.In(modules)).Exec(ctx)
	return translate(err)
}
