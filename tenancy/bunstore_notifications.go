package tenancy

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
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

func (r notificationRow) notification() (Notification, error) {
	data, err := decodeData([]byte(r.Data))
	if err != nil {
		return Notification{}, database.Wrap(err)
	}
	n := Notification{
		ID: r.ID, TenantID: r.TenantID, Type: r.Type, Title: r.Title, Body: r.Body,
		Data: data, CreatedAt: r.CreatedAt.UTC(),
	}
	if r.ReadAt != nil {
		t := r.ReadAt.UTC()
		n.ReadAt = &t
	}
	return n, nil
}

// CreateNotification implements Store. ON CONFLICT DO NOTHING, rather than
// catching the unique violation, keeps the caller's Postgres transaction
// usable when the key is taken.
func (s *BunStore) CreateNotification(ctx context.Context, n Notification, key string) error {
	data, err := encodeData(n.Data)
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
	a := database.NewArgs(s.db)
	res, err := database.Exec(ctx, s.db, database.BindRow(s.conn(ctx).NewInsert().Model(&row), a, &row).On("CONFLICT DO NOTHING"), a)
	return affected(res, err, ErrConflict)
}

// Notifications implements Store.
func (s *BunStore) Notifications(ctx context.Context, tenantID string, f NotificationFilter) ([]Notification, bool, error) {
	limit := clampLimit(f.Limit)
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
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	out := make([]Notification, len(rows))
	for i, r := range rows {
		n, err := r.notification()
		if err != nil {
			return nil, false, err
		}
		out[i] = n
	}
	return out, more, nil
}

// MarkNotificationRead implements Store.
func (s *BunStore) MarkNotificationRead(ctx context.Context, tenantID, id string, at time.Time) (Notification, error) {
	var row notificationRow
	err := database.ForTenant(s.conn(ctx).NewUpdate().Model(&row), tenantID).
		Set("read_at = COALESCE(read_at, ?)", at).
		Where("id = ?", id).
		Returning("*").
		Scan(ctx)
	if err != nil {
		return Notification{}, translate(err)
	}
	return row.notification()
}
