package bunstore

import (
	"context"
	"time"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

// LockTenant implements tenancy.MemberStore: the tenant's row, locked
// FOR UPDATE on Postgres (as LockTerms locks it, so that member changes
// and contract changes of a tenant queue on one lock). On SQLite every
// transaction begins IMMEDIATE (database.Open), holding the write lock,
// so the read only checks that the tenant exists.
func (s *Store) LockTenant(ctx context.Context, tenantID string) error {
	db := s.conn(ctx)
	q := db.NewSelect().Model((*tenantRow)(nil)).Column("id").Where("id = ?", tenantID)
	if database.IsPostgres(db) {
		q = q.For("UPDATE")
	}
	var id string
	return translate(q.Scan(ctx, &id))
}

// CountMembers implements tenancy.MemberStore.
func (s *Store) CountMembers(ctx context.Context, tenantID string, role tenancy.Role) (int64, error) {
	q := database.ForTenant(s.conn(ctx).NewSelect().Model((*membershipRow)(nil)), tenantID)
	if role != "" {
		q = q.Where("role = ?", string(role))
	}
	n, err := q.Count(ctx)
	return int64(n), translate(err)
}

// memberRow is a membership joined with its user.
type memberRow struct {
	TenantID  string    `bun:"tenant_id"`
	UserID    string    `bun:"user_id"`
	Email     string    `bun:"email"`
	Name      string    `bun:"name"`
	Role      string    `bun:"role"`
	CreatedAt time.Time `bun:"created_at"`
}

// Members implements tenancy.MemberStore, keyset-paginated on the user id
// (the memberships' primary key is (tenant_id, user_id)).
func (s *Store) Members(ctx context.Context, tenantID string, f tenancy.MemberFilter) ([]tenancy.Member, bool, error) {
	limit := max(f.Limit, 1) // the service clamped it; never scan without a bound
	var rows []memberRow
	q := database.ForTenantAs(s.conn(ctx).NewSelect().
		ColumnExpr("m.tenant_id, m.user_id, u.email, u.name, m.role, m.created_at").
		TableExpr("memberships AS m").
		Join("JOIN users AS u ON u.id = m.user_id"), "m", tenantID)
	if f.Before != "" {
		q = q.Where("m.user_id < ?", f.Before)
	}
	if err := q.OrderExpr("m.user_id DESC").Limit(int64(limit)+1).Scan(ctx, &rows); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, func(r memberRow) (tenancy.Member, error) {
		return tenancy.Member{TenantID: r.TenantID, UserID: r.UserID, Email: r.Email, Name: r.Name,
			Role: tenancy.Role(r.Role), CreatedAt: r.CreatedAt.UTC()}, nil
	})
}

// SetMemberRole implements tenancy.MemberStore.
func (s *Store) SetMemberRole(ctx context.Context, tenantID, userID string, role tenancy.Role) error {
	res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model((*membershipRow)(nil)), tenantID).
		Set("role = ?", string(role)).Where("user_id = ?", userID).Exec(ctx)
	return affected(res, err, tenancy.ErrNotFound)
}

// RemoveMember implements tenancy.MemberStore: the membership and the
// selections that made the tenant active for the user's credentials, in
// one transaction.
func (s *Store) RemoveMember(ctx context.Context, tenantID, userID string) error {
	return database.RunInTx(ctx, s.db, func(ctx context.Context) error {
		db := s.conn(ctx)
		_, err := database.ForTenant(db.NewDelete().Model((*selectionRow)(nil)), tenantID).
			Where("user_id = ?", userID).Exec(ctx)
		if err != nil {
			return translate(err)
		}
		res, err := database.ForTenant(db.NewDelete().Model((*membershipRow)(nil)), tenantID).
			Where("user_id = ?", userID).Exec(ctx)
		return affected(res, err, tenancy.ErrNotFound)
	})
}
