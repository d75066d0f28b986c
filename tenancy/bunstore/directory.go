package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

type tenantRow struct {
	bun.BaseModel `bun:"table:tenants"`
	ID            string     `bun:"id,pk"`
	Slug          string     `bun:"slug"`
	Name          string     `bun:"name"`
	PlanID        string     `bun:"plan_id"`
	Seats         int        `bun:"seats"`
	CreatedAt     time.Time  `bun:"created_at"`
	Test          bool       `bun:"test"`
	TestClock     *time.Time `bun:"test_clock"`
	// BilledThrough is the start of the first period not invoiced yet.
	BilledThrough *time.Time `bun:"billed_through"`
}

func (r tenantRow) tenant() tenancy.Tenant {
	t := tenancy.Tenant{ID: r.ID, Slug: r.Slug, Name: r.Name, PlanID: r.PlanID, Seats: r.Seats, CreatedAt: r.CreatedAt.UTC(), Test: r.Test}
	if r.TestClock != nil {
		clock := r.TestClock.UTC()
		t.TestClock = &clock
	}
	return t
}

type userRow struct {
	bun.BaseModel `bun:"table:users"`
	ID            string    `bun:"id,pk"`
	Email         string    `bun:"email"`
	Name          string    `bun:"name"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r userRow) user() tenancy.User {
	return tenancy.User{ID: r.ID, Email: r.Email, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

type membershipRow struct {
	bun.BaseModel `bun:"table:memberships"`
	TenantID      string    `bun:"tenant_id,pk"`
	UserID        string    `bun:"user_id,pk"`
	Role          string    `bun:"role"`
	CreatedAt     time.Time `bun:"created_at"`
}

// CreateTenant implements tenancy.DirectoryStore. ON CONFLICT DO NOTHING,
// rather than catching the unique violation, keeps the caller's Postgres
// transaction usable when the slug is taken (an operator's create under
// an Idempotency-Key runs in one, which must still store the 409).
func (s *Store) CreateTenant(ctx context.Context, t tenancy.Tenant) error {
	// Billed from the period it is created in (its clock's, for a test
	// tenant).
	created := t.CreatedAt
	if t.TestClock != nil {
		created = *t.TestClock
	}
	_, billed, _ := tenancy.Period(created)
	row := tenantRow{ID: t.ID, Slug: t.Slug, Name: t.Name, PlanID: t.PlanID, Seats: t.Seats, CreatedAt: t.CreatedAt,
		Test: t.Test, TestClock: t.TestClock, BilledThrough: &billed}
	res, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
	return affected(res, err, tenancy.ErrConflict)
}

// Tenant implements tenancy.DirectoryStore.
func (s *Store) Tenant(ctx context.Context, id string) (tenancy.Tenant, error) {
	var row tenantRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	return row.tenant(), translate(err)
}

// TenantBySlug implements tenancy.DirectoryStore.
func (s *Store) TenantBySlug(ctx context.Context, slug string) (tenancy.Tenant, error) {
	var row tenantRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("slug = ?", slug).Scan(ctx)
	return row.tenant(), translate(err)
}

// CreateUser implements tenancy.DirectoryStore, with ON CONFLICT DO
// NOTHING as CreateTenant.
func (s *Store) CreateUser(ctx context.Context, u tenancy.User) error {
	row := userRow{ID: u.ID, Email: u.Email, Name: u.Name, CreatedAt: u.CreatedAt}
	res, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
	return affected(res, err, tenancy.ErrConflict)
}

// User implements tenancy.DirectoryStore.
func (s *Store) User(ctx context.Context, id string) (tenancy.User, error) {
	var row userRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	return row.user(), translate(err)
}

// UserByEmail implements tenancy.DirectoryStore.
func (s *Store) UserByEmail(ctx context.Context, email string) (tenancy.User, error) {
	var row userRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("email = ?", email).Scan(ctx)
	return row.user(), translate(err)
}

// AddMembership implements tenancy.DirectoryStore, with ON CONFLICT DO
// NOTHING as CreateTenant. (An unknown tenant or user still fails its
// foreign key; Members.Add has found both before.)
func (s *Store) AddMembership(ctx context.Context, m tenancy.Membership) error {
	row := membershipRow{TenantID: m.TenantID, UserID: m.UserID, Role: string(m.Role), CreatedAt: m.CreatedAt}
	res, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
	return affected(res, err, tenancy.ErrConflict)
}

// Membership implements tenancy.DirectoryStore.
func (s *Store) Membership(ctx context.Context, tenantID, userID string) (tenancy.Membership, error) {
	// The tenant's test clock comes along: a request for a test tenant
	// runs on it, for no second round trip.
	var row struct {
		membershipRow `bun:",extend"`
		TestClock     *time.Time `bun:"test_clock"`
	}
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), tenantID).
		ColumnExpr("membership_row.*, t.test_clock").Join("JOIN tenants AS t ON t.id = membership_row.tenant_id").
		Where("user_id = ?", userID).Scan(ctx)
	if err != nil {
		return tenancy.Membership{}, translate(err)
	}
	return tenancy.Membership{TenantID: row.TenantID, UserID: row.UserID, Role: tenancy.Role(row.Role),
		CreatedAt: row.CreatedAt.UTC(), TestClock: utc(row.TestClock)}, nil
}

// Memberships implements tenancy.DirectoryStore: the user's memberships
// in every tenant, which is why it spans tenants.
func (s *Store) Memberships(ctx context.Context, userID string) ([]tenancy.TenantMembership, error) {
	var rows []struct {
		tenantRow `bun:",extend"`
		Role      string `bun:"role"`
	}
	err := database.AcrossTenants(s.conn(ctx).NewSelect()).
		ColumnExpr("t.id, t.slug, t.name, t.plan_id, t.seats, t.created_at, m.role").
		TableExpr("memberships AS m").
		Join("JOIN tenants AS t ON t.id = m.tenant_id").
		Where("m.user_id = ?", userID).
		OrderExpr("t.slug").
		Scan(ctx, &rows)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]tenancy.TenantMembership, len(rows))
	for i, r := range rows {
		out[i] = tenancy.TenantMembership{Tenant: r.tenant(), Role: tenancy.Role(r.Role)}
	}
	return out, nil
}

type selectionRow struct {
	bun.BaseModel `bun:"table:tenant_selections"`
	Credential    string    `bun:"credential,pk"`
	UserID        string    `bun:"user_id"`
	TenantID      string    `bun:"tenant_id"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// SetSelection implements tenancy.DirectoryStore.
func (s *Store) SetSelection(ctx context.Context, credential, userID, tenantID string, at time.Time) error {
	row := selectionRow{Credential: credential, UserID: userID, TenantID: tenantID, UpdatedAt: at}
	_, err := s.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (credential) DO UPDATE").
		Set("user_id = EXCLUDED.user_id, tenant_id = EXCLUDED.tenant_id, updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return translate(err)
}

// Selection implements tenancy.DirectoryStore. It spans tenants: the
// credential is what finds the tenant.
func (s *Store) Selection(ctx context.Context, credential string) (string, error) {
	var tenantID string
	err := database.AcrossTenants(s.conn(ctx).NewSelect()).Model((*selectionRow)(nil)).Column("tenant_id").
		Where("credential = ?", credential).Scan(ctx, &tenantID)
	return tenantID, translate(err)
}
