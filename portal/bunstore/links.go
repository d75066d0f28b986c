package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/portal"
)

type linkRow struct {
	bun.BaseModel `bun:"table:portal_login_links,alias:l"`
	TokenHash     string     `bun:"token_hash,pk"`
	UserID        string     `bun:"user_id"`
	TenantID      *string    `bun:"tenant_id"`
	CreatedAt     time.Time  `bun:"created_at"`
	ExpiresAt     time.Time  `bun:"expires_at"`
	UsedAt        *time.Time `bun:"used_at"`
}

// CreateLink implements portal.LinkStore.
func (s *Store) CreateLink(ctx context.Context, l portal.LoginLink) error {
	r := linkRow{TokenHash: l.TokenHash, UserID: l.UserID, CreatedAt: l.CreatedAt.UTC(), ExpiresAt: l.ExpiresAt.UTC()}
	if l.TenantID != "" {
		r.TenantID = &l.TenantID
	}
	if _, err := s.conn(ctx).NewInsert().Model(&r).Exec(ctx); err != nil {
		return database.Wrap(err)
	}
	return nil
}

// ConsumeLink implements portal.LinkStore: one UPDATE … WHERE used_at IS
// NULL … RETURNING, so that of two concurrent uses only one finds the row
// unused. The link is found by its token alone, before anyone knows its
// tenant (a user's link has none): the statement spans tenants.
func (s *Store) ConsumeLink(ctx context.Context, tokenHash string, now time.Time) (portal.LoginLink, error) {
	var r linkRow
	err := database.AcrossTenants(s.conn(ctx).NewUpdate().Model(&r)).
		Set("used_at = ?", now.UTC()).
		Where("token_hash = ?", tokenHash).
		Where("used_at IS NULL").
		Where("expires_at > ?", now.UTC()).
		Returning("user_id, tenant_id, created_at, expires_at").
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return portal.LoginLink{}, portal.ErrLinkInvalid
	}
	if err != nil {
		return portal.LoginLink{}, fmt.Errorf("portal: consume link: %w", database.Wrap(err))
	}
	l := portal.LoginLink{TokenHash: tokenHash, UserID: r.UserID, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC()}
	if r.TenantID != nil {
		l.TenantID = *r.TenantID
	}
	return l, nil
}

// PurgeLinks deletes the links that expired before cutoff, used or not,
// of every tenant.
func (s *Store) PurgeLinks(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := database.AcrossTenants(s.conn(ctx).NewDelete().Model((*linkRow)(nil))).
		Where("expires_at < ?", cutoff.UTC()).Exec(ctx)
	if err != nil {
		return 0, database.Wrap(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
