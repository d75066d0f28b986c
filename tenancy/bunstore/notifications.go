package bunstore

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

type notificationRow struct {
	bun.BaseModel `bun:"table:notifications"`
	TenantID      string     `bun:"tenant_id,pk"`
	ID            string     `bun:"id,pk"`
	Type          string     `bun:"type"`
	Title         string     `bun:"title"`
	Body          string     `bun:"body"`
	Data          string     `bun:"data"`
	DedupeKey     *string    `bun:"dedupe_key"`
	CreatedAt     time.Time  `bun:"created_at"`
	ReadAt        *time.Time `bun:"read_at"`
}

func (r notificationRow) notification() (tenancy.Notification, error) {
	data, err := decodeData(r.Data)
	if err != nil {
		return tenancy.Notification{}, database.Wrap(err)
	}
	n := tenancy.Notification{
		ID: r.ID, TenantID: r.TenantID, Type: r.Type, Title: r.Title, Body: r.Body,
		Data: data, CreatedAt: r.CreatedAt.UTC(),
	}
	if r.ReadAt != nil {
		t := r.ReadAt.UTC()
		n.ReadAt = &t
	}
	return n, nil
}

// CreateNotification implements tenancy.NotificationStore. ON CONFLICT DO
// NOTHING, rather than catching the unique violation, keeps the caller's
// Postgres transaction usable when the key is taken.
func (s *Store) CreateNotification(ctx context.Context, n tenancy.Notification, key string) error {
	if n.Data == nil {
		n.Data = map[string]any{}
	}
	data, err := json.Marshal(n.Data)
	if err != nil {
		return database.Wrap(err)
	}
	row := notificationRow{
		TenantID: n.TenantID, ID: n.ID, Type: n.Type, Title: n.Title, Body: n.Body,
		Data: string(data), CreatedAt: n.CreatedAt, ReadAt: n.ReadAt,
	}
	if key != "" {
		row.DedupeKey = &key
	}
	res, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
	return affected(res, err, tenancy.ErrConflict)
}

// Notifications implements tenancy.NotificationStore.
func (s *Store) Notifications(ctx context.Context, tenantID string, f tenancy.NotificationFilter) ([]tenancy.Notification, bool, error) {
	limit := max(f.Limit, 1) // the service clamped it; never scan without a bound
	var rows []notificationRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).
		OrderExpr("id DESC").Limit(int64(limit) + 1)
	if f.UnreadOnly {
		q = q.Where("read_at IS NULL")
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, notificationRow.notification)
}

// MarkNotificationRead implements tenancy.NotificationStore.
func (s *Store) MarkNotificationRead(ctx context.Context, tenantID, id string, at time.Time) (tenancy.Notification, error) {
	var row notificationRow
	err := database.ForTenant(s.conn(ctx).NewUpdate().Model(&row), tenantID).
		Set("read_at = COALESCE(read_at, ?)", at).
		Where("id = ?", id).
		Returning("*").
		Scan(ctx)
	if err != nil {
		return tenancy.Notification{}, translate(err)
	}
	return row.notification()
}

// MarkNotificationsRead implements tenancy.NotificationStore. One UPDATE
// on the unread rows (the partial index notifications_unread_idx holds
// exactly them); read_at IS NULL keeps every first read time.
func (s *Store) MarkNotificationsRead(ctx context.Context, tenantID, upTo string, at time.Time) (int64, error) {
	q := database.ForTenant(s.conn(ctx).NewUpdate().Model((*notificationRow)(nil)), tenantID).
		Set("read_at = ?", at).
		Where("read_at IS NULL")
	if upTo != "" {
		q = q.Where("id <= ?", upTo)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, database.Wrap(err)
	}
	return n, nil
}

// UnreadNotifications implements tenancy.NotificationStore.
func (s *Store) UnreadNotifications(ctx context.Context, tenantID string) (int64, error) {
	n, err := database.ForTenant(s.conn(ctx).NewSelect().Model((*notificationRow)(nil)), tenantID).
		Where("read_at IS NULL").Count(ctx)
	if err != nil {
		return 0, translate(err)
	}
	return int64(n), nil
}

// decodeData decodes a notification's stored data, keeping numbers as
// json.Number so that amounts keep every digit, as Notifications.Notify
// returns them.
func decodeData(stored string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(stored))
	dec.UseNumber()
	var data map[string]any
	if err := dec.Decode(&data); err != nil {
		return nil, err
	}
	if data == nil {
		data = map[string]any{}
	}
	return data, nil
}
