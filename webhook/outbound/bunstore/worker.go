package bunstore

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// The delivery worker's methods below know a delivery or an endpoint by
// its id alone (the queue holds the deliveries of every tenant), so their
// statements are marked database.AcrossTenants; once the delivery is read
// (Job), its tenant confines the rest (RecordAttempt).

// Job implements outbound.DeliveryStore: the delivery with its endpoint,
// joined on the delivery's tenant, in one query.
func (s *Store) Job(ctx context.Context, deliveryID string) (outbound.Job, error) {
	var d jobRow
	q := database.AcrossTenants(s.conn(ctx).NewSelect().Model(&d)).Relation("Endpoint").Where("?TableAlias.id = ?", deliveryID)
	if err := q.Scan(ctx); err != nil {
		return outbound.Job{}, translate(err)
	}
	if d.Endpoint == nil || d.Endpoint.ID == "" { // the join found none
		return outbound.Job{}, outbound.ErrNotFound
	}
	ep, err := d.Endpoint.stored()
	if err != nil {
		return outbound.Job{}, err
	}
	return outbound.Job{Delivery: d.delivery(), TenantID: d.TenantID, Attempts: d.AttemptCount,
		RoundStart: d.RoundStart, Retries: d.Retries, Payload: []byte(d.Payload), Endpoint: ep}, nil
}

// jobRow is a delivery with its endpoint, the endpoint's tenant the
// delivery's.
type jobRow struct {
	deliveryRow `bun:",extend"`
	Endpoint    *endpointRow `bun:"rel:belongs-to,join:tenant_id=tenant_id,join:endpoint_id=id"`
}

// RecordAttempt implements outbound.DeliveryStore: the delivery's update claims
// the attempt's number (attempt_count = number-1, pending), so that of two
// attempts racing only one is written. A failed attempt's update also
// asks for the retries it began with; when a retry came in meanwhile, a
// second update records the attempt and leaves the retry's due time.
func (s *Store) RecordAttempt(ctx context.Context, r outbound.AttemptRecord) (*time.Time, error) {
	if r.Attempt.Status == outbound.DeliverySucceeded && database.IsPostgres(s.db) {
		return nil, s.recordSucceeded(ctx, r)
	}
	var next *time.Time
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		conn := s.conn(ctx)
		res, err := s.claim(conn, r).Exec(ctx)
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
		row := attemptRow{TenantID: r.TenantID, DeliveryID: r.DeliveryID, Number: r.Attempt.Number, Status: r.Attempt.Status,
			HTTPStatus: r.Attempt.HTTPStatus, LatencyMS: r.Attempt.LatencyMS, Response: r.Attempt.Response,
			AttemptedAt: r.Attempt.AttemptedAt.UTC()}
		_, err = conn.NewInsert().Model(&row).Exec(ctx)
		return translate(err)
	})
	if err != nil {
		return nil, err
	}
	return next, nil
}

// claim is the update that sets the delivery's status and next attempt
// provided r is its next attempt: pending, r's number next and, for a
// failed attempt, no retry since it began.
func (s *Store) claim(conn bun.IDB, r outbound.AttemptRecord) *bun.UpdateQuery {
	q := database.ForTenant(conn.NewUpdate().Model((*deliveryRow)(nil)), r.TenantID).
		Set("status = ?", r.Status).Set("next_attempt_at = ?", utc(r.NextAttemptAt)).
		Set("attempt_count = ?", r.Attempt.Number).Set("updated_at = ?", r.Attempt.AttemptedAt.UTC()).
		Where("id = ?", r.DeliveryID).Where("status = ?", outbound.DeliveryPending).
		Where("attempt_count = ?", r.Attempt.Number-1)
	if r.Attempt.Status != outbound.DeliverySucceeded {
		q = q.Where("retries = ?", r.Retries)
	}
	return q
}

// recordSucceeded records successful attempt r on Postgres in one
// statement, the claim and the attempt's insert, so that it needs no
// transaction of its own: the attempt is written only when the claim
// updates the delivery (whose updated_at is the attempt's time);
// ErrConflict when it does not.
func (s *Store) recordSucceeded(ctx context.Context, r outbound.AttemptRecord) error {
	conn := s.conn(ctx)
	a := r.Attempt
	claim := s.claim(conn, r).Returning("tenant_id, id AS delivery_id, ? AS number, ? AS status, ? AS http_status, ? AS latency_ms, ? AS response, updated_at AS attempted_at",
		a.Number, a.Status, a.HTTPStatus, a.LatencyMS, a.Response)
	q := database.AcrossTenants(conn.NewInsert()).With("claimed", claim).Table("webhook_attempts", "claimed").
		Column("tenant_id", "delivery_id", "number", "status", "http_status", "latency_ms", "response", "attempted_at")
	res, err := q.Exec(ctx)
	return affected(res, err, outbound.ErrConflict)
}

// recordRetried counts failed attempt r of a delivery retried while it
// ran, keeping it pending when the retry made it due, its new round
// starting after r; ErrConflict when the delivery is not pending with r
// as its next attempt.
func (s *Store) recordRetried(ctx context.Context, r outbound.AttemptRecord) (*time.Time, error) {
	conn := s.conn(ctx)
	q := database.ForTenant(conn.NewUpdate().Model((*deliveryRow)(nil)), r.TenantID).
		Set("attempt_count = ?", r.Attempt.Number).Set("round_start = ?", r.Attempt.Number).
		Set("updated_at = ?", r.Attempt.AttemptedAt.UTC()).
		Where("id = ?", r.DeliveryID).Where("status = ?", outbound.DeliveryPending).
		Where("attempt_count = ?", r.Attempt.Number-1).Where("retries <> ?", r.Retries)
	res, err := q.Exec(ctx)
	if err := affected(res, err, outbound.ErrConflict); err != nil {
		return nil, err
	}
	var next *time.Time
	sel := database.ForTenant(conn.NewSelect().Model((*deliveryRow)(nil)), r.TenantID).Column("next_attempt_at").Where("id = ?", r.DeliveryID)
	if err := sel.Scan(ctx, &next); err != nil {
		return nil, translate(err)
	}
	return utc(next), nil
}

// FailPending implements outbound.DeliveryStore.
func (s *Store) FailPending(ctx context.Context, endpointID string, at time.Time) (int64, error) {
	q := database.AcrossTenants(s.conn(ctx).NewUpdate().Model((*deliveryRow)(nil))).
		Set("status = ?", outbound.DeliveryFailed).Set("next_attempt_at = NULL").Set("updated_at = ?", at.UTC()).
		Where("endpoint_id = ?", endpointID).Where("status = ?", outbound.DeliveryPending)
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, translate(err)
	}
	n, err := res.RowsAffected()
	return n, database.Wrap(err)
}

// MarkFailing implements outbound.EndpointStore.
func (s *Store) MarkFailing(ctx context.Context, endpointID string, at time.Time) (time.Time, error) {
	conn := s.conn(ctx)
	q := database.AcrossTenants(conn.NewUpdate().Model((*endpointRow)(nil))).Set("failing_since = ?", at.UTC()).
		Where("id = ?", endpointID).Where("failing_since IS NULL")
	if _, err := q.Exec(ctx); err != nil {
		return time.Time{}, translate(err)
	}
	var since *time.Time
	sel := database.AcrossTenants(conn.NewSelect().Model((*endpointRow)(nil))).Column("failing_since").Where("id = ?", endpointID)
	if err := sel.Scan(ctx, &since); err != nil {
		return time.Time{}, translate(err)
	}
	if since == nil {
		return at.UTC(), nil
	}
	return since.UTC(), nil
}

// MarkHealthy implements outbound.EndpointStore.
func (s *Store) MarkHealthy(ctx context.Context, endpointID string) error {
	q := database.AcrossTenants(s.conn(ctx).NewUpdate().Model((*endpointRow)(nil))).Set("failing_since = NULL").
		Where("id = ?", endpointID).Where("failing_since IS NOT NULL")
	_, err := q.Exec(ctx)
	return translate(err)
}

// DisableEndpoint implements outbound.EndpointStore.
func (s *Store) DisableEndpoint(ctx context.Context, endpointID, reason string, at time.Time) (bool, error) {
	q := database.AcrossTenants(s.conn(ctx).NewUpdate().Model((*endpointRow)(nil))).
		Set("enabled = ?", false).Set("disabled_reason = ?", reason).Set("updated_at = ?", at.UTC()).
		Where("id = ?", endpointID).Where("enabled")
	res, err := q.Exec(ctx)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n > 0, database.Wrap(err)
}
