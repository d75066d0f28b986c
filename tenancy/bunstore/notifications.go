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
	res, err := s.stmts.insertNotification.Exec(ctx, row.TenantID, row.ID, row.Type, row.Title, row.Body,
		row.Data, row.DedupeKey, row.CreatedAt, row.ReadAt)
	return affected(res, err, tenancy.ErrConflict)
}

// insertNotification is CreateNotification's statement, on every payment
// the provider's webhook reports. It is written out as Bun wrote it from
// notificationRow, as membershipOf is, rather than built with reflection
// on every request.
const insertNotification = `INSERT INTO "notifications" AS "notification_row" ("tenant_id", "id", "type", "title", ` +
	`"body", "data", "dedupe_key", "created_at", "read_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`

// Notifications implements tenancy.NotificationStore.
func (s *Store) Notifications(ctx context.Context, tenantID string, f tenancy.NotificationFilter) ([]tenancy.Notification, bool, error) {
	limit := max(f.Limit, 1) // the service clamped it; never scan without a bound
	var rows []notificationRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), a.Add(tenantID)).
		OrderExpr("id DESC").Limit(int64(limit) + 1)
	if f.UnreadOnly {
		q = q.Where("read_at IS NULL")
	}
	if f.Before != "" {
		q = q.Where("id < ?", a.Add(f.Before))
	}
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return nil, false, translate(err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	out := make([]tenancy.Notification, len(rows))
	for i, r := range rows {
		n, err := r.notification()
		if err != nil {
			return nil, false, err
		}
		out[i] = n
	}
	return out, more, nil
}

// MarkNotificationRead implements tenancy.NotificationStore.
func (s *Store) MarkNotificationRead(ctx context.Context, tenantID, id string, at time.Time) (tenancy.Notification, error) {
	var row notificationRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewUpdate().Model(&row), a.Add(tenantID)).
		Set("read_at = COALESCE(read_at, ?)", a.Add(at)).
		Where("id = ?", a.Add(id)).
		Returning("*")
	if err := database.Scan(ctx, s.db, q, a, &row); err != nil {
		return tenancy.Notification{}, translate(err)
	}
	return row.notification()
}

// MarkNotificationsRead implements tenancy.NotificationStore. One UPDATE
// on the unread rows (the partial index notifications_unread_idx holds
// exactly them); read_at IS NULL keeps every first read time.
func (s *Store) MarkNotificationsRead(ctx context.Context, tenantID, upTo string, at time.Time) (int64, error) {
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewUpdate().Table("notifications"), a.Add(tenantID)).
		Set("read_at = ?", a.Add(at)).
		Where("read_at IS NULL")
	if upTo != "" {
		q = q.Where("id <= ?", a.Add(upTo))
	}
	res, err := database.Exec(ctx, s.db, q, a)
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
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Table("notifications").ColumnExpr("count(*)"), a.Add(tenantID)).
		Where("read_at IS NULL")
	var n int64
	if err := database.Scan(ctx, s.db, q, a, &n); err != nil {
		return 0, translate(err)
	}
	return n, nil
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
