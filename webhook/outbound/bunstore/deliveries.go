package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// CreateDeliveries implements outbound.DeliveryStore, in one statement.
func (s *Store) CreateDeliveries(ctx context.Context, ds []outbound.NewDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	rows := make([]deliveryRow, len(ds))
	for i, d := range ds {
		rows[i] = deliveryRow{
			ID: d.ID, TenantID: d.TenantID, EndpointID: d.EndpointID, EventID: d.EventID, EventType: d.EventType,
			Status: d.Status, Payload: string(d.Payload), NextAttemptAt: utc(d.NextAttemptAt),
			CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
		}
	}
	_, err := s.conn(ctx).NewInsert().Model(&rows).Exec(ctx)
	return translate(err)
}

// Delivery implements outbound.DeliveryStore.
// The delivery and its attempts are read in one snapshot.
func (s *Store) Delivery(ctx context.Context, tenantID, id string) (d outbound.Delivery, err error) {
	err = database.ReadSnapshot(ctx, s.db, func(ctx context.Context) error {
		var r deliveryRow
		q := database.ForTenant(s.conn(ctx).NewSelect().Model(&r).ExcludeColumn("payload"), tenantID).Where("id = ?", id)
		if err := q.Scan(ctx); err != nil {
			return translate(err)
		}
		ds, err := s.withAttempts(ctx, []deliveryRow{r})
		if err == nil {
			d = ds[0]
		}
		return err
	})
	return d, err
}

// Deliveries implements outbound.DeliveryStore.
// The page and its attempts are read in one snapshot.
func (s *Store) Deliveries(ctx context.Context, tenantID, endpointID string, p outbound.Page) (ds []outbound.Delivery, more bool, err error) {
	limit := max(p.Limit, 1)
	err = database.ReadSnapshot(ctx, s.db, func(ctx context.Context) error {
		var rows []deliveryRow
		q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows).ExcludeColumn("payload"), tenantID).
			Where("endpoint_id = ?", endpointID)
		if p.Before != "" {
			q = q.Where("id < ?", p.Before)
		}
		if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
			return translate(err)
		}
		if more = len(rows) > limit; more {
			rows = rows[:limit]
		}
		var err error
		ds, err = s.withAttempts(ctx, rows)
		return err
	})
	return ds, more, err
}

// withAttempts turns rows, deliveries already confined to their tenant,
// into deliveries with their attempts, read in one query.
func (s *Store) withAttempts(ctx context.Context, rows []deliveryRow) ([]outbound.Delivery, error) {
	out := make([]outbound.Delivery, len(rows))
	index := make(map[string]int, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i], index[r.ID], ids[i] = r.delivery(), i, r.ID
	}
	if len(rows) == 0 {
		return out, nil
	}
	var as []attemptRow
	if err := database.ForTenant(s.conn(ctx).NewSelect().Model(&as), rows[0].TenantID).Where("delivery_id IN (?)", bun.In(ids)).
		OrderExpr("delivery_id, number").Scan(ctx); err != nil {
		return nil, translate(err)
	}
	for _, ar := range as {
		i := index[ar.DeliveryID]
		out[i].Attempts = append(out[i].Attempts, ar.attempt())
	}
	return out, nil
}

// RetryDelivery implements outbound.DeliveryStore.
func (s *Store) RetryDelivery(ctx context.Context, tenantID, id string, at time.Time) (int, error) {
	var attempts int
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		at := at.UTC()
		conn := s.conn(ctx)
		q := conn.NewUpdate().Model((*deliveryRow)(nil)).
			Set("status = ?", outbound.DeliveryPending).Set("next_attempt_at = ?", at).
			Set("round_start = attempt_count").Set("retries = retries + 1").Set("updated_at = ?", at)
		res, err := database.ForTenant(q, tenantID).Where("id = ?", id).Where("status <> ?", outbound.DeliverySucceeded).Exec(ctx)
		if err != nil {
			return translate(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return database.Wrap(err)
		}
		if n == 0 {
			// No row changed: absent, another tenant's, or succeeded.
			if _, err := s.Delivery(ctx, tenantID, id); err != nil {
				return err
			}
			return outbound.ErrConflict
		}
		// The row is this transaction's now: its count is the one the
		// update saw, whatever attempt was recorded before it.
		sel := database.ForTenant(conn.NewSelect().Model((*deliveryRow)(nil)).Column("attempt_count"), tenantID).Where("id = ?", id)
		return translate(sel.Scan(ctx, &attempts))
	})
	return attempts, err
}
