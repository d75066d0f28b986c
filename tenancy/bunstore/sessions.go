package bunstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

var _ tenancy.SessionStore = (*Store)(nil)

type sessionRow struct {
	bun.BaseModel `bun:"table:sessions"`
	ID            string     `bun:"id,pk"`
	UserID        string     `bun:"user_id"`
	CreatedAt     time.Time  `bun:"created_at"`
	ExpiresAt     time.Time  `bun:"expires_at"`
	EndedAt       *time.Time `bun:"ended_at"`
}

// CreateSession implements tenancy.SessionStore.
func (s *Store) CreateSession(ctx context.Context, sess tenancy.Session) error {
	row := sessionRow{ID: sess.ID, UserID: sess.UserID, CreatedAt: sess.CreatedAt.UTC(), ExpiresAt: sess.ExpiresAt.UTC()}
	_, err := s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// LiveSession implements tenancy.SessionStore.
func (s *Store) LiveSession(ctx context.Context, sessionID, userID string, now time.Time) error {
	n, err := s.conn(ctx).NewSelect().Model((*sessionRow)(nil)).
		Where("id = ?", sessionID).Where("user_id = ?", userID).
		Where("ended_at IS NULL").Where("expires_at > ?", now.UTC()).Count(ctx)
	switch {
	case err != nil:
		return translate(err)
	case n == 0:
		return tenancy.ErrNotFound
	}
	return nil
}

// EndSession implements tenancy.SessionStore.
func (s *Store) EndSession(ctx context.Context, sessionID string, at time.Time) error {
	_, err := s.live(ctx, at).Where("id = ?", sessionID).Exec(ctx)
	return translate(err)
}

// EndUserSessions implements tenancy.SessionStore.
func (s *Store) EndUserSessions(ctx context.Context, userID string, at time.Time) (int64, error) {
	return ended(s.live(ctx, at).Where("user_id = ?", userID).Exec(ctx))
}

// EndTenantSessions implements tenancy.SessionStore: the sessions whose
// credential ("sid:" + id) has the tenant selected.
func (s *Store) EndTenantSessions(ctx context.Context, tenantID, userID string, at time.Time) (int64, error) {
	db := s.conn(ctx)
	selected := database.ForTenant(db.NewSelect().Model((*selectionRow)(nil)).Column("credential"), tenantID).
		Where("user_id = ?", userID)
	return ended(s.live(ctx, at).Where("user_id = ?", userID).
		Where("'sid:' || id IN (?)", selected).Exec(ctx))
}

// live is an UPDATE ending, at at, the sessions not ended yet that the
// caller's conditions select.
func (s *Store) live(ctx context.Context, at time.Time) *bun.UpdateQuery {
	return s.conn(ctx).NewUpdate().Model((*sessionRow)(nil)).
		Set("ended_at = ?", at.UTC()).Where("ended_at IS NULL")
}

// ended returns how many sessions an UPDATE of live ended.
func ended(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, database.Wrap(err)
	}
	return n, nil
}
