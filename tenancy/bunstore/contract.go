package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

type addOnRow struct {
	bun.BaseModel `bun:"table:contract_add_ons"`
	TenantID      string    `bun:"tenant_id,pk"`
	Module        string    `bun:"module,pk"`
	AddedAt       time.Time `bun:"added_at"`
}

// LockTerms implements contract.Store: the tenant's row, locked, then its
// add-ons and its member count.
func (s *Store) LockTerms(ctx context.Context, tenantID string) (contract.Terms, int64, error) {
	db := s.conn(ctx)
	var row tenantRow
	q := db.NewSelect().Model(&row).Where("id = ?", tenantID)
	if database.IsPostgres(db) {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return contract.Terms{}, 0, translate(err)
	}
	var addOns []string
	err := database.ForTenant(db.NewSelect().Model((*addOnRow)(nil)), tenantID).
		Column("module").OrderExpr("module").Scan(ctx, &addOns)
	if err != nil {
		return contract.Terms{}, 0, translate(err)
	}
	members, err := database.ForTenant(db.NewSelect().Model((*membershipRow)(nil)), tenantID).Count(ctx)
	if err != nil {
		return contract.Terms{}, 0, translate(err)
	}
	if addOns == nil {
		addOns = []string{}
	}
	return contract.Terms{TenantID: row.ID, PlanID: row.PlanID, Seats: row.Seats, AddOns: addOns}, int64(members), nil
}

// SetTerms implements contract.Store: one UPDATE of the tenant, then the
// add-ons not in t are deleted and the new ones inserted.
func (s *Store) SetTerms(ctx context.Context, t contract.Terms, at time.Time) error {
	return database.RunInTx(ctx, s.db, func(ctx context.Context) error {
		db := s.conn(ctx)
		res, err := db.NewUpdate().Model((*tenantRow)(nil)).
			Set("plan_id = ?", t.PlanID).Set("seats = ?", t.Seats).
			Where("id = ?", t.TenantID).Exec(ctx)
		if err := affected(res, err, tenancy.ErrNotFound); err != nil {
			return err
		}
		del := database.ForTenant(db.NewDelete().Model((*addOnRow)(nil)), t.TenantID)
		if len(t.AddOns) > 0 {
			del = del.Where("module NOT IN (?)", bun.In(t.AddOns))
		}
		if _, err := del.Exec(ctx); err != nil {
			return translate(err)
		}
		if len(t.AddOns) == 0 {
			return nil
		}
		rows := make([]addOnRow, len(t.AddOns))
		for i, m := range t.AddOns {
			rows[i] = addOnRow{TenantID: t.TenantID, Module: m, AddedAt: at}
		}
		_, err = db.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx)
		return translate(err)
	})
}

// DeleteModuleToggles implements contract.Store.
func (s *Store) DeleteModuleToggles(ctx context.Context, tenantID string, modules []string) error {
	if len(modules) == 0 {
		return nil
	}
	_, err := database.ForTenant(s.conn(ctx).NewDelete().Model((*toggleRow)(nil)), tenantID).
		Where("module IN (?)", bun.In(modules)).Exec(ctx)
	return translate(err)
}
