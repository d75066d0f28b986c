package bunstore

import (
	"context"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// CreateEndpoint implements outbound.EndpointStore.
func (s *Store) CreateEndpoint(ctx context.Context, e outbound.StoredEndpoint) error {
	r, err := newEndpointRow(e)
	if err != nil {
		return database.Wrap(err)
	}
	_, err = s.conn(ctx).NewInsert().Model(&r).Exec(ctx)
	return translate(err)
}

// CountEndpoints implements outbound.EndpointStore. On Postgres it first takes a
// transaction-scoped advisory lock keyed by the tenant, which serialises
// the counts (and so the creates) of one tenant; SQLite's transactions
// already run one writer at a time (BEGIN IMMEDIATE).
func (s *Store) CountEndpoints(ctx context.Context, tenantID string) (int, error) {
	conn := s.conn(ctx)
	if database.IsPostgres(s.db) {
		lock := conn.NewSelect().ColumnExpr("pg_advisory_xact_lock(hashtextextended(?, 0))", "webhook_endpoints:"+tenantID)
		if _, err := lock.Exec(ctx); err != nil {
			return 0, translate(err)
		}
	}
	n, err := database.ForTenant(conn.NewSelect().Model((*endpointRow)(nil)), tenantID).Count(ctx)
	if err != nil {
		return 0, translate(err)
	}
	return int(n), nil
}

// Endpoint implements outbound.EndpointStore.
func (s *Store) Endpoint(ctx context.Context, tenantID, id string) (outbound.StoredEndpoint, error) {
	var r endpointRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&r), tenantID).Where("id = ?", id)
	if err := q.Scan(ctx); err != nil {
		return outbound.StoredEndpoint{}, translate(err)
	}
	return r.stored()
}

// Endpoints implements outbound.EndpointStore.
func (s *Store) Endpoints(ctx context.Context, tenantID string, p outbound.Page) ([]outbound.Endpoint, bool, error) {
	limit := max(p.Limit, 1)
	var rows []endpointRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID)
	if p.Before != "" {
		q = q.Where("id < ?", p.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, endpointRow.endpoint)
}

// UpdateEndpoint implements outbound.EndpointStore.
func (s *Store) UpdateEndpoint(ctx context.Context, e outbound.StoredEndpoint) error {
	r, err := newEndpointRow(e)
	if err != nil {
		return database.Wrap(err)
	}
	q := s.conn(ctx).NewUpdate().Model(&r).
		Column("url", "description", "event_types", "enabled", "disabled_reason", "secret", "previous_secret",
			"secret_rotated_at", "previous_secret_expires_at", "failing_since", "updated_at")
	res, err := database.ForTenant(q, r.TenantID).Where("id = ?", r.ID).Exec(ctx)
	return affected(res, err, outbound.ErrNotFound)
}

// DeleteEndpoint implements outbound.EndpointStore.
func (s *Store) DeleteEndpoint(ctx context.Context, tenantID, id string) error {
	return database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		conn := s.conn(ctx)
		deliveries := database.ForTenant(conn.NewSelect().Model((*deliveryRow)(nil)).Column("id"), tenantID).
			Where("endpoint_id = ?", id)
		if _, err := database.ForTenant(conn.NewDelete().Model((*attemptRow)(nil)), tenantID).
			Where("delivery_id IN (?)", deliveries).Exec(ctx); err != nil {
			return translate(err)
		}
		if _, err := database.ForTenant(conn.NewDelete().Model((*deliveryRow)(nil)), tenantID).
			Where("endpoint_id = ?", id).Exec(ctx); err != nil {
			return translate(err)
		}
		res, err := database.ForTenant(conn.NewDelete().Model((*endpointRow)(nil)), tenantID).Where("id = ?", id).Exec(ctx)
		return affected(res, err, outbound.ErrNotFound)
	})
}

// EnabledEndpoints implements outbound.EndpointStore: one indexed query
// (webhook_endpoints_enabled_idx), on the path of every event.
func (s *Store) EnabledEndpoints(ctx context.Context, tenantID string) ([]outbound.Endpoint, error) {
	var rows []endpointRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows).Column("id", "tenant_id", "event_types", "enabled"), tenantID).
		Where("enabled")
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out, _, err := database.Page(rows, len(rows), endpointRow.endpoint)
	return out, err
}
