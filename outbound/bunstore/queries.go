package bunstore

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/outbound"
)

// CreateEndpoint implements outbound.Store.
func (s *Store) CreateEndpoint(ctx context.Context, e outbound.StoredEndpoint) error {
	r, err := newEndpointRow(e)
	if err != nil {
		return database.Wrap(err)
	}
	a := database.NewArgs(s.db)
	_, err = database.Exec(ctx, s.db, database.BindRow(s.conn(ctx).NewInsert().Model(&r), a, &r), a)
	return translate(err)
}

// CountEndpoints implements outbound.Store. On Postgres it first takes a
// transaction-scoped advisory lock keyed by the tenant, which serialises
// the counts (and so the creates) of one tenant; SQLite's transactions
// already run one writer at a time (BEGIN IMMEDIATE).
func (s *Store) CountEndpoints(ctx context.Context, tenantID string) (int, error) {
	conn := s.conn(ctx)
	if database.IsPostgres(s.db) {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "webhook_endpoints:"+tenantID); err != nil {
			return 0, translate(err)
		}
	}
	n, err := database.ForTenant(conn.NewSelect().Model((*endpointRow)(nil)), tenantID).Count(ctx)
	if err != nil {
		return 0, translate(err)
	}
	return int(n), nil
}

// Endpoint implements outbound.Store.
func (s *Store) Endpoint(ctx context.Context, tenantID, id string) (outbound.StoredEndpoint, error) {
	var r endpointRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&r), a.Add(tenantID)).Where("id = ?", a.Add(id))
	if err := database.Scan(ctx, s.db, q, a, &r); err != nil {
		return outbound.StoredEndpoint{}, translate(err)
	}
	return r.stored()
}

// Endpoints implements outbound.Store.
func (s *Store) Endpoints(ctx context.Context, tenantID string, p outbound.Page) ([]outbound.Endpoint, bool, error) {
	limit := max(p.Limit, 1)
	var rows []endpointRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), a.Add(tenantID)).OrderExpr("id DESC").Limit(int64(limit) + 1)
	if p.Before != "" {
		q = q.Where("id < ?", a.Add(p.Before))
	}
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, endpointRow.endpoint)
}

// UpdateEndpoint implements outbound.Store.
func (s *Store) UpdateEndpoint(ctx context.Context, e outbound.StoredEndpoint) error {
	r, err := newEndpointRow(e)
	if err != nil {
		return database.Wrap(err)
	}
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewUpdate().Table("webhook_endpoints").
		Set("url = ?", a.Add(r.URL)).Set("description = ?", a.Add(r.Description)).
		Set("event_types = ?", a.Add(r.EventTypes)).Set("enabled = ?", a.Add(r.Enabled)).
		Set("disabled_reason = ?", a.Add(r.DisabledReason)).Set("secret = ?", a.Add(r.Secret)).
		Set("previous_secret = ?", a.Add(r.PreviousSecret)).Set("secret_rotated_at = ?", a.Add(r.SecretRotatedAt)).
		Set("previous_secret_expires_at = ?", a.Add(r.PreviousSecretExpiresAt)).
		Set("failing_since = ?", a.Add(r.FailingSince)).Set("updated_at = ?", a.Add(r.UpdatedAt))
	q = database.ForTenant(q, a.Add(r.TenantID)).Where("id = ?", a.Add(r.ID))
	res, err := database.Exec(ctx, s.db, q, a)
	return affected(res, err, outbound.ErrNotFound)
}

// DeleteEndpoint implements outbound.Store.
func (s *Store) DeleteEndpoint(ctx context.Context, tenantID, id string) error {
	return database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		a := database.NewArgs(s.db)
		owned := s.conn(ctx).NewSelect().Table("webhook_endpoints").Column("id")
		owned = database.ForTenant(owned, a.Add(tenantID)).Where("id = ?", a.Add(id))
		deliveries := s.conn(ctx).NewSelect().Table("webhook_deliveries").Column("id").Where("endpoint_id IN (?)", owned)
		if _, err := database.Exec(ctx, s.db, s.conn(ctx).NewDelete().Table("webhook_attempts").
			Where("delivery_id IN (?)", deliveries), a); err != nil {
			return translate(err)
		}
		a = database.NewArgs(s.db)
		if _, err := database.Exec(ctx, s.db, database.ForTenant(s.conn(ctx).NewDelete().Table("webhook_deliveries"),
			a.Add(tenantID)).Where("endpoint_id = ?", a.Add(id)), a); err != nil {
			return translate(err)
		}
		a = database.NewArgs(s.db)
		res, err := database.Exec(ctx, s.db, database.ForTenant(s.conn(ctx).NewDelete().Table("webhook_endpoints"),
			a.Add(tenantID)).Where("id = ?", a.Add(id)), a)
		return affected(res, err, outbound.ErrNotFound)
	})
}

// EnabledEndpoints implements outbound.Store: one indexed query
// (webhook_endpoints_enabled_idx), on the path of every event.
func (s *Store) EnabledEndpoints(ctx context.Context, tenantID string) ([]outbound.Endpoint, error) {
	var rows []endpointRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows).Column("id", "tenant_id", "event_types", "enabled"),
		a.Add(tenantID)).Where("enabled")
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return nil, translate(err)
	}
	out, _, err := database.Page(rows, len(rows), endpointRow.endpoint)
	return out, err
}

// CreateDeliveries implements outbound.Store, in one statement.
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

// Delivery implements outbound.Store.
func (s *Store) Delivery(ctx context.Context, tenantID, id string) (outbound.Delivery, error) {
	var r deliveryRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&r).ExcludeColumn("payload"), a.Add(tenantID)).
		Where("id = ?", a.Add(id))
	if err := database.Scan(ctx, s.db, q, a, &r); err != nil {
		return outbound.Delivery{}, translate(err)
	}
	ds, err := s.withAttempts(ctx, []deliveryRow{r})
	if err != nil {
		return outbound.Delivery{}, err
	}
	return ds[0], nil
}

// Deliveries implements outbound.Store.
func (s *Store) Deliveries(ctx context.Context, tenantID, endpointID string, p outbound.Page) ([]outbound.Delivery, bool, error) {
	limit := max(p.Limit, 1)
	var rows []deliveryRow
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows).ExcludeColumn("payload"), a.Add(tenantID)).
		Where("endpoint_id = ?", a.Add(endpointID)).OrderExpr("id DESC").Limit(int64(limit) + 1)
	if p.Before != "" {
		q = q.Where("id < ?", a.Add(p.Before))
	}
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return nil, false, translate(err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	ds, err := s.withAttempts(ctx, rows)
	return ds, more, err
}

// withAttempts turns rows into deliveries with their attempts, read in
// one query.
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
	if err := s.conn(ctx).NewSelect().Model(&as).Where("delivery_id IN (?)", bun.In(ids)).
		OrderExpr("delivery_id, number").Scan(ctx); err != nil {
		return nil, translate(err)
	}
	for _, ar := range as {
		i := index[ar.DeliveryID]
		out[i].Attempts = append(out[i].Attempts, ar.attempt())
	}
	return out, nil
}

// Job implements outbound.Store.
func (s *Store) Job(ctx context.Context, deliveryID string) (outbound.Job, error) {
	var d deliveryRow
	a := database.NewArgs(s.db)
	if err := database.Scan(ctx, s.db, s.conn(ctx).NewSelect().Model(&d).Where("id = ?", a.Add(deliveryID)), a, &d); err != nil {
		return outbound.Job{}, translate(err)
	}
	var e endpointRow
	a = database.NewArgs(s.db)
	if err := database.Scan(ctx, s.db, s.conn(ctx).NewSelect().Model(&e).Where("id = ?", a.Add(d.EndpointID)), a, &e); err != nil {
		return outbound.Job{}, translate(err)
	}
	ep, err := e.stored()
	if err != nil {
		return outbound.Job{}, err
	}
	return outbound.Job{Delivery: d.delivery(), TenantID: d.TenantID, Attempts: d.AttemptCount,
		RoundStart: d.RoundStart, Retries: d.Retries, Payload: []byte(d.Payload), Endpoint: ep}, nil
}

// RecordAttempt implements outbound.Store: the delivery's update claims
// the attempt's number (attempt_count = number-1, pending), so that of two
// attempts racing only one is written. A failed attempt's update also
// asks for the retries it began with; when a retry came in meanwhile, a
// second update records the attempt and leaves the retry's due time.
func (s *Store) RecordAttempt(ctx context.Context, r outbound.AttemptRecord) (*time.Time, error) {
	var next *time.Time
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		at := r.Attempt.AttemptedAt.UTC()
		a := database.NewArgs(s.db)
		q := s.conn(ctx).NewUpdate().Table("webhook_deliveries").
			Set("status = ?", a.Add(r.Status)).Set("next_attempt_at = ?", a.Add(utc(r.NextAttemptAt))).
			Set("attempt_count = ?", a.Add(r.Attempt.Number)).Set("updated_at = ?", a.Add(at)).
			Where("id = ?", a.Add(r.DeliveryID)).Where("status = ?", a.Add(outbound.DeliveryPending)).
			Where("attempt_count = ?", a.Add(r.Attempt.Number-1))
		if r.Attempt.Status != outbound.DeliverySucceeded {
			q = q.Where("retries = ?", a.Add(r.Retries))
		}
		res, err := database.Exec(ctx, s.db, q, a)
		switch err := affected(res, err, outbound.ErrConflict); {
		case err == nil:
			next = utc(r.NextAttemptAt)
		case errors.Is(err, outbound.ErrConflict) && r.Attempt.Status != outbound.DeliverySucceeded:
			if next, err = s.recordRetried(ctx, r); err != nil {
				return err
			}
		default:
			return err
		}
		row := attemptRow{DeliveryID: r.DeliveryID, Number: r.Attempt.Number, Status: r.Attempt.Status,
			HTTPStatus: r.Attempt.HTTPStatus, LatencyMS: r.Attempt.LatencyMS, Response: r.Attempt.Response, AttemptedAt: at}
		a = database.NewArgs(s.db)
		_, err = database.Exec(ctx, s.db, database.BindRow(s.conn(ctx).NewInsert().Model(&row), a, &row), a)
		return translate(err)
	})
	if err != nil {
		return nil, err
	}
	return next, nil
}

// recordRetried counts failed attempt r of a delivery retried while it
// ran, keeping it pending when the retry made it due, its new round
// starting after r; ErrConflict when the delivery is not pending with r
// as its next attempt.
func (s *Store) recordRetried(ctx context.Context, r outbound.AttemptRecord) (*time.Time, error) {
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewUpdate().Table("webhook_deliveries").
		Set("attempt_count = ?", a.Add(r.Attempt.Number)).Set("round_start = ?", a.Add(r.Attempt.Number)).
		Set("updated_at = ?", a.Add(r.Attempt.AttemptedAt.UTC())).
		Where("id = ?", a.Add(r.DeliveryID)).Where("status = ?", a.Add(outbound.DeliveryPending)).
		Where("attempt_count = ?", a.Add(r.Attempt.Number-1)).Where("retries <> ?", a.Add(r.Retries))
	res, err := database.Exec(ctx, s.db, q, a)
	if err := affected(res, err, outbound.ErrConflict); err != nil {
		return nil, err
	}
	var next *time.Time
	a = database.NewArgs(s.db)
	sel := s.conn(ctx).NewSelect().Table("webhook_deliveries").Column("next_attempt_at").Where("id = ?", a.Add(r.DeliveryID))
	if err := database.Scan(ctx, s.db, sel, a, &next); err != nil {
		return nil, translate(err)
	}
	return utc(next), nil
}

// RetryDelivery implements outbound.Store.
func (s *Store) RetryDelivery(ctx context.Context, tenantID, id string, at time.Time) (int, error) {
	var attempts int
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		at := at.UTC()
		a := database.NewArgs(s.db)
		q := s.conn(ctx).NewUpdate().Table("webhook_deliveries").
			Set("status = ?", a.Add(outbound.DeliveryPending)).Set("next_attempt_at = ?", a.Add(at)).
			Set("round_start = attempt_count").Set("retries = retries + 1").Set("updated_at = ?", a.Add(at))
		q = database.ForTenant(q, a.Add(tenantID)).Where("id = ?", a.Add(id)).Where("status <> ?", a.Add(outbound.DeliverySucceeded))
		res, err := database.Exec(ctx, s.db, q, a)
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
		a = database.NewArgs(s.db)
		sel := s.conn(ctx).NewSelect().Table("webhook_deliveries").Column("attempt_count").Where("id = ?", a.Add(id))
		return translate(database.Scan(ctx, s.db, sel, a, &attempts))
	})
	return attempts, err
}

// FailPending implements outbound.Store.
func (s *Store) FailPending(ctx context.Context, endpointID string, at time.Time) (int64, error) {
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewUpdate().Table("webhook_deliveries").
		Set("status = ?", a.Add(outbound.DeliveryFailed)).Set("next_attempt_at = NULL").
		Set("updated_at = ?", a.Add(at.UTC())).
		Where("endpoint_id = ?", a.Add(endpointID)).Where("status = ?", a.Add(outbound.DeliveryPending))
	res, err := database.Exec(ctx, s.db, q, a)
	if err != nil {
		return 0, translate(err)
	}
	n, err := res.RowsAffected()
	return n, database.Wrap(err)
}

// MarkFailing implements outbound.Store.
func (s *Store) MarkFailing(ctx context.Context, endpointID string, at time.Time) (time.Time, error) {
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewUpdate().Table("webhook_endpoints").Set("failing_since = ?", a.Add(at.UTC())).
		Where("id = ?", a.Add(endpointID)).Where("failing_since IS NULL")
	if _, err := database.Exec(ctx, s.db, q, a); err != nil {
		return time.Time{}, translate(err)
	}
	var since *time.Time
	a = database.NewArgs(s.db)
	sel := s.conn(ctx).NewSelect().Table("webhook_endpoints").Column("failing_since").Where("id = ?", a.Add(endpointID))
	if err := database.Scan(ctx, s.db, sel, a, &since); err != nil {
		return time.Time{}, translate(err)
	}
	if since == nil {
		return at.UTC(), nil
	}
	return since.UTC(), nil
}

// MarkHealthy implements outbound.Store.
func (s *Store) MarkHealthy(ctx context.Context, endpointID string) error {
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewUpdate().Table("webhook_endpoints").Set("failing_since = NULL").
		Where("id = ?", a.Add(endpointID)).Where("failing_since IS NOT NULL")
	_, err := database.Exec(ctx, s.db, q, a)
	return translate(err)
}

// DisableEndpoint implements outbound.Store.
func (s *Store) DisableEndpoint(ctx context.Context, endpointID, reason string, at time.Time) (bool, error) {
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewUpdate().Table("webhook_endpoints").
		Set("enabled = ?", a.Add(false)).Set("disabled_reason = ?", a.Add(reason)).Set("updated_at = ?", a.Add(at.UTC())).
		Where("id = ?", a.Add(endpointID)).Where("enabled")
	res, err := database.Exec(ctx, s.db, q, a)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n > 0, database.Wrap(err)
}
