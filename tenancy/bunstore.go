package tenancy

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

// BunStore is the Store on Postgres or SQLite through Bun. Every query runs
// on the transaction carried by the context when there is one.
type BunStore struct {
	db bun.IDB
}

var _ Store = (*BunStore)(nil)

// NewBunStore returns a Store on db. Apply Migrations first.
func NewBunStore(db bun.IDB) *BunStore { return &BunStore{db: db} }

func (s *BunStore) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// RunInTx implements Store with database.RunInTx, so that a transaction
// begun here is the one other domains' stores join too.
func (s *BunStore) RunInTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return database.RunInTx(ctx, s.db, fn)
}

// JoinTx implements Store with database.JoinTx.
func (s *BunStore) JoinTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return database.JoinTx(ctx, s.db, fn)
}

type tenantRow struct {
	bun.BaseModel `bun:"table:tenants"`
	ID            string    `bun:"id,pk"`
	Slug          string    `bun:"slug"`
	Name          string    `bun:"name"`
	PlanID        string    `bun:"plan_id"`
	Seats         int       `bun:"seats"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r tenantRow) tenant() Tenant {
	return Tenant{ID: r.ID, Slug: r.Slug, Name: r.Name, PlanID: r.PlanID, Seats: r.Seats, CreatedAt: r.CreatedAt.UTC()}
}

type userRow struct {
	bun.BaseModel `bun:"table:users"`
	ID            string    `bun:"id,pk"`
	Email         string    `bun:"email"`
	Name          string    `bun:"name"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r userRow) user() User {
	return User{ID: r.ID, Email: r.Email, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

type membershipRow struct {
	bun.BaseModel `bun:"table:memberships"`
	TenantID      string    `bun:"tenant_id,pk"`
	UserID        string    `bun:"user_id,pk"`
	Role          string    `bun:"role"`
	CreatedAt     time.Time `bun:"created_at"`
}

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys"`
	ID            string     `bun:"id,pk"`
	UserID        string     `bun:"user_id"`
	Name          string     `bun:"name"`
	Scopes        string     `bun:"scopes"`
	TenantID      *string    `bun:"tenant_id"`
	Prefix        string     `bun:"prefix"`
	SecretHash    string     `bun:"secret_hash"`
	CreatedAt     time.Time  `bun:"created_at"`
	RevokedAt     *time.Time `bun:"revoked_at"`
}

func (r apiKeyRow) key() APIKey {
	k := APIKey{ID: r.ID, UserID: r.UserID, Name: r.Name, Prefix: r.Prefix, CreatedAt: r.CreatedAt.UTC()}
	for _, sc := range strings.Fields(r.Scopes) {
		k.Scopes = append(k.Scopes, Scope(sc))
	}
	if r.TenantID != nil {
		k.TenantID = *r.TenantID
	}
	if r.RevokedAt != nil {
		t := r.RevokedAt.UTC()
		k.RevokedAt = &t
	}
	return k
}

// CreateTenant implements Store.
func (s *BunStore) CreateTenant(ctx context.Context, t Tenant) error {
	row := tenantRow{ID: t.ID, Slug: t.Slug, Name: t.Name, PlanID: t.PlanID, Seats: t.Seats, CreatedAt: t.CreatedAt}
	_, err := s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// Tenant implements Store.
func (s *BunStore) Tenant(ctx context.Context, id string) (Tenant, error) {
	var row tenantRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	return row.tenant(), translate(err)
}

// TenantBySlug implements Store.
func (s *BunStore) TenantBySlug(ctx context.Context, slug string) (Tenant, error) {
	var row tenantRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("slug = ?", slug).Scan(ctx)
	return row.tenant(), translate(err)
}

// CreateUser implements Store.
func (s *BunStore) CreateUser(ctx context.Context, u User) error {
	row := userRow{ID: u.ID, Email: u.Email, Name: u.Name, CreatedAt: u.CreatedAt}
	_, err := s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// User implements Store.
func (s *BunStore) User(ctx context.Context, id string) (User, error) {
	var row userRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	return row.user(), translate(err)
}

// UserByEmail implements Store.
func (s *BunStore) UserByEmail(ctx context.Context, email string) (User, error) {
	var row userRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("email = ?", email).Scan(ctx)
	return row.user(), translate(err)
}

// AddMembership implements Store.
func (s *BunStore) AddMembership(ctx context.Context, m Membership) error {
	row := membershipRow{TenantID: m.TenantID, UserID: m.UserID, Role: string(m.Role), CreatedAt: m.CreatedAt}
	_, err := s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// Membership implements Store.
func (s *BunStore) Membership(ctx context.Context, tenantID, userID string) (Membership, error) {
	var row membershipRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), a.Add(tenantID)).Where("user_id = ?", a.Add(userID))
	if err := database.Scan(ctx, s.db, q, a, &row); err != nil {
		return Membership{}, translate(err)
	}
	return Membership{TenantID: row.TenantID, UserID: row.UserID, Role: Role(row.Role), CreatedAt: row.CreatedAt.UTC()}, nil
}

// Memberships implements Store.
func (s *BunStore) Memberships(ctx context.Context, userID string) ([]TenantMembership, error) {
	var rows []struct {
		tenantRow `bun:",extend"`
		Role      string `bun:"role"`
	}
	err := s.conn(ctx).NewSelect().
		ColumnExpr("t.*, m.role").
		TableExpr("memberships AS m").
		Join("JOIN tenants AS t ON t.id = m.tenant_id").
		Where("m.user_id = ?", userID).
		OrderExpr("t.slug").
		Scan(ctx, &rows)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]TenantMembership, len(rows))
	for i, r := range rows {
		out[i] = TenantMembership{Tenant: r.tenant(), Role: Role(r.Role)}
	}
	return out, nil
}

// CountMembers implements Store.
func (s *BunStore) CountMembers(ctx context.Context, tenantID string) (int64, error) {
	n, err := database.ForTenant(s.conn(ctx).NewSelect().Model((*membershipRow)(nil)), tenantID).Count(ctx)
	return int64(n), translate(err)
}

// CreateAPIKey implements Store.
func (s *BunStore) CreateAPIKey(ctx context.Context, k APIKey, secretHash string) error {
	scopes := make([]string, len(k.Scopes))
	for i, sc := range k.Scopes {
		scopes[i] = string(sc)
	}
	row := apiKeyRow{ID: k.ID, UserID: k.UserID, Name: k.Name, Scopes: strings.Join(scopes, " "),
		Prefix: k.Prefix, SecretHash: secretHash, CreatedAt: k.CreatedAt}
	if k.TenantID != "" {
		row.TenantID = &k.TenantID
	}
	_, err := s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// APIKeyByHash implements Store with one query joining the key to its
// user; both are shared tables, not tenant data.
func (s *BunStore) APIKeyByHash(ctx context.Context, secretHash string) (APIKey, User, error) {
	var row struct {
		apiKeyRow     `bun:",extend"`
		UserEmail     string    `bun:"user_email"`
		UserName      string    `bun:"user_name"`
		UserCreatedAt time.Time `bun:"user_created_at"`
	}
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewSelect().
		ColumnExpr("k.*, u.email AS user_email, u.name AS user_name, u.created_at AS user_created_at").
		TableExpr("api_keys AS k").
		Join("JOIN users AS u ON u.id = k.user_id").
		Where("k.secret_hash = ?", a.Add(secretHash))
	err := database.Scan(ctx, s.db, q, a, &row)
	if err != nil {
		return APIKey{}, User{}, translate(err)
	}
	u := userRow{ID: row.UserID, Email: row.UserEmail, Name: row.UserName, CreatedAt: row.UserCreatedAt}
	return row.key(), u.user(), nil
}

// RevokeAPIKey implements Store.
func (s *BunStore) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	res, err := s.conn(ctx).NewUpdate().Model((*apiKeyRow)(nil)).
		Set("revoked_at = COALESCE(revoked_at, ?)", at).
		Where("id = ?", id).Exec(ctx)
	return affected(res, err, ErrNotFound)
}

type selectionRow struct {
	bun.BaseModel `bun:"table:tenant_selections"`
	Credential    string    `bun:"credential,pk"`
	UserID        string    `bun:"user_id"`
	TenantID      string    `bun:"tenant_id"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// SetSelection implements Store.
func (s *BunStore) SetSelection(ctx context.Context, credential, userID, tenantID string, at time.Time) error {
	row := selectionRow{Credential: credential, UserID: userID, TenantID: tenantID, UpdatedAt: at}
	_, err := s.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (credential) DO UPDATE").
		Set("user_id = EXCLUDED.user_id, tenant_id = EXCLUDED.tenant_id, updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return translate(err)
}

// Selection implements Store.
func (s *BunStore) Selection(ctx context.Context, credential string) (string, error) {
	var tenantID string
	err := s.conn(ctx).NewSelect().Model((*selectionRow)(nil)).Column("tenant_id").
		Where("credential = ?", credential).Scan(ctx, &tenantID)
	return tenantID, translate(err)
}

// translate turns driver errors into the domain's sentinels.
func translate(err error) error { return database.Translate(err, ErrNotFound, ErrConflict) }

// affected translates the outcome of a write that must touch a row: none
// when it touched nothing.
func affected(res sql.Result, err error, none error) error {
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return database.Wrap(err)
	} else if n == 0 {
		return none
	}
	return nil
}
