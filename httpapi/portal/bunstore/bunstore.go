// Package bunstore keeps the portal's sign-in links and the server's
// generated secrets on Postgres or SQLite through Bun.
package bunstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi/portal"
	"github.com/tenantkit/tenantkit/internal/database"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the portal's schema for both dialects.
func Migrations() fs.FS { return database.Embedded(migrations) }

// Store is the portal's store.
type Store struct{ db bun.IDB }

var _ portal.LinkStore = (*Store)(nil)

// New returns the Store on db. Apply Migrations first.
func New(db bun.IDB) *Store { return &Store{db: db} }

type linkRow struct {
	bun.BaseModel `bun:"table:portal_login_links"`
	TokenHash     string     `bun:"token_hash,pk"`
	UserID        string     `bun:"user_id"`
	TenantID      *string    `bun:"tenant_id"`
	CreatedAt     time.Time  `bun:"created_at"`
	ExpiresAt     time.Time  `bun:"expires_at"`
	UsedAt        *time.Time `bun:"used_at"`
}

// CreateLink implements portal.LinkStore.
func (s *Store) CreateLink(ctx context.Context, l portal.LoginLink) error {
	var tenant *string
	if l.TenantID != "" {
		tenant = &l.TenantID
	}
	db := database.Conn(ctx, s.db)
	a := database.NewArgs(db)
	q := db.NewRaw("INSERT INTO portal_login_links (token_hash, user_id, tenant_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
		a.AddAll(l.TokenHash, l.UserID, tenant, l.CreatedAt.UTC(), l.ExpiresAt.UTC())...)
	if _, err := database.Exec(ctx, db, q, a); err != nil {
		return database.Wrap(err)
	}
	return nil
}

// ConsumeLink implements portal.LinkStore: one UPDATE … WHERE used_at IS
// NULL … RETURNING, so that of two concurrent uses only one finds the row
// unused.
func (s *Store) ConsumeLink(ctx context.Context, tokenHash string, now time.Time) (portal.LoginLink, error) {
	db := database.Conn(ctx, s.db)
	a := database.NewArgs(db)
	q := db.NewUpdate().Model((*linkRow)(nil)).
		Set("used_at = ?", a.Add(now.UTC())).
		Where("token_hash = ?", a.Add(tokenHash)).
		Where("used_at IS NULL").
		Where("expires_at > ?", a.Add(now.UTC())).
		Returning("user_id, tenant_id, created_at, expires_at")
	var row linkRow
	err := database.Scan(ctx, db, q, a, &row.UserID, &row.TenantID, &row.CreatedAt, &row.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return portal.LoginLink{}, portal.ErrLinkInvalid
	}
	if err != nil {
		return portal.LoginLink{}, fmt.Errorf("portal: consume link: %w", database.Wrap(err))
	}
	l := portal.LoginLink{TokenHash: tokenHash, UserID: row.UserID, CreatedAt: row.CreatedAt, ExpiresAt: row.ExpiresAt}
	if row.TenantID != nil {
		l.TenantID = *row.TenantID
	}
	return l, nil
}

// PurgeLinks deletes the links that expired before cutoff, used or not.
func (s *Store) PurgeLinks(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.NewDelete().Model((*linkRow)(nil)).Where("expires_at < ?", cutoff.UTC()).Exec(ctx)
	if err != nil {
		return 0, database.Wrap(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Secret returns the secret called name, generating size random bytes
// the first time any replica asks: every replica on the database then
// signs with the same one.
func (s *Store) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	fresh := make([]byte, size)
	_, _ = rand.Read(fresh)
	if _, err := s.db.NewRaw("INSERT INTO portal_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
		name, fresh, time.Now().UTC()).Exec(ctx); err != nil {
		return nil, fmt.Errorf("portal: secret %s: %w", name, database.Wrap(err))
	}
	var value []byte
	if err := s.db.NewRaw("SELECT value FROM portal_secrets WHERE name = ?", name).Scan(ctx, &value); err != nil {
		return nil, fmt.Errorf("portal: secret %s: %w", name, database.Wrap(err))
	}
	return value, nil
}
