package bunstore

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

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

func (r apiKeyRow) key() tenancy.APIKey {
	k := tenancy.APIKey{ID: r.ID, UserID: r.UserID, Name: r.Name, Prefix: r.Prefix, CreatedAt: r.CreatedAt.UTC()}
	for _, sc := range strings.Fields(r.Scopes) {
		k.Scopes = append(k.Scopes, tenancy.Scope(sc))
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

// CreateAPIKey implements tenancy.KeyStore.
func (s *Store) CreateAPIKey(ctx context.Context, k tenancy.APIKey, secretHash string) error {
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

// APIKeyByHash implements tenancy.KeyStore with one query joining the key
// to its user. It spans tenants: the secret is what finds the key, and
// with it the tenant it may act for.
func (s *Store) APIKeyByHash(ctx context.Context, secretHash string) (tenancy.APIKey, tenancy.User, error) {
	var row struct {
		apiKeyRow     `bun:",extend"`
		UserEmail     string    `bun:"user_email"`
		UserName      string    `bun:"user_name"`
		UserCreatedAt time.Time `bun:"user_created_at"`
	}
	err := database.AcrossTenants(s.conn(ctx).NewSelect()).
		ColumnExpr("k.*, u.email AS user_email, u.name AS user_name, u.created_at AS user_created_at").
		TableExpr("api_keys AS k").
		Join("JOIN users AS u ON u.id = k.user_id").
		Where("k.secret_hash = ?", secretHash).
		Scan(ctx, &row)
	if err != nil {
		return tenancy.APIKey{}, tenancy.User{}, translate(err)
	}
	u := userRow{ID: row.UserID, Email: row.UserEmail, Name: row.UserName, CreatedAt: row.UserCreatedAt}
	return row.key(), u.user(), nil
}

// RevokeAPIKey implements tenancy.KeyStore. It spans tenants: a key is
// its user's, named by its id alone.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	res, err := database.AcrossTenants(s.conn(ctx).NewUpdate()).Model((*apiKeyRow)(nil)).
		Set("revoked_at = COALESCE(revoked_at, ?)", at).
		Where("id = ?", id).Exec(ctx)
	return affected(res, err, tenancy.ErrNotFound)
}
