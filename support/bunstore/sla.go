package bunstore

import (
	"context"
	"time"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/support"
)

// atRisk is the condition of a ticket that can still miss a service level
// target, written as the partial indexes of SLAOverdue are (migration
// 20261125000300), with the values as literals so that both databases can
// prove the indexes apply. Neither holds input.
const atRisk = `sla_breached = false AND status NOT IN ('solved', 'closed')`

// missed is the condition, on top of atRisk, of a ticket whose target has
// passed by the instant given twice (?, ?).
const missed = `((first_responded_at IS NULL AND first_response_due_at <= ?) OR resolution_due_at <= ?)`

// SLAOverdue implements support.Store. It spans tenants (the platform's
// scheduler asks it): it reads only (tenant_id, id), and every write that
// follows is confined to its tenant.
func (s *Store) SLAOverdue(ctx context.Context, tenantID string, now time.Time, after string, limit int) ([]support.TicketRef, error) {
	var rows []ticketRow
	now = now.UTC()
	q := s.conn(ctx).NewSelect().Model(&rows)
	if tenantID != "" {
		q = database.ForTenant(q, tenantID)
	} else {
		q = database.AcrossTenants(q).Where("tenant_id IN (SELECT id FROM tenants WHERE NOT test)")
	}
	q = q.Column("tenant_id", "id").
		Where(atRisk).
		Where(missed, now, now)
	if after != "" {
		q = q.Where("id > ?", after)
	}
	if err := q.OrderExpr("id ASC").Limit(int64(max(limit, 1))).Scan(ctx); err != nil {
		return nil, translate(err)
	}
	refs := make([]support.TicketRef, len(rows))
	for i, r := range rows {
		refs[i] = support.TicketRef{TenantID: r.TenantID, ID: r.ID}
	}
	return refs, nil
}

// BreachSLA implements support.Store with one conditional UPDATE …
// RETURNING: the condition is checked on the row as it is when the write
// happens (on Postgres a concurrent caller waits for the first one's
// transaction and then finds sla_breached true; SQLite runs writers one at
// a time), so of concurrent calls exactly one gets the row back.
func (s *Store) BreachSLA(ctx context.Context, tenantID, id string, now time.Time) (support.Ticket, bool, error) {
	var rows []ticketRow
	now = now.UTC()
	err := database.ForTenant(s.conn(ctx).NewUpdate().Model((*ticketRow)(nil)), tenantID).
		Set("sla_breached = true").
		Where("id = ?", id).
		Where(atRisk).
		Where(missed, now, now).
		Returning("*").
		Scan(ctx, &rows)
	if err != nil {
		return support.Ticket{}, false, translate(err)
	}
	if len(rows) == 0 {
		return support.Ticket{}, false, nil
	}
	t, err := rows[0].ticket()
	return t, err == nil, err
}
