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
// passed by the instant bound twice (?, ?).
const missed = `((first_responded_at IS NULL AND first_response_due_at <= ?) OR resolution_due_at <= ?)`

// SLAOverdue implements support.Store. It is the one query of this store
// that spans tenants (the platform's scheduler asks it), so it does not go
// through database.ForTenant; it reads only (tenant_id, id), and every
// write that follows is confined to its tenant.
func (s *Store) SLAOverdue(ctx context.Context, now time.Time, after string, limit int) ([]support.TicketRef, error) {
	var rows []struct {
		TenantID string `bun:"tenant_id"`
		ID       string `bun:"id"`
	}
	now = now.UTC()
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewSelect().Table("tickets").Column("tenant_id", "id").
		Where(atRisk).Where(missed, a.Add(now), a.Add(now))
	if after != "" {
		q = q.Where("id > ?", a.Add(after))
	}
	q = q.OrderExpr("id ASC").Limit(int64(max(limit, 1)))
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
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
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewUpdate().Model((*ticketRow)(nil)), a.Add(tenantID)).
		Set("sla_breached = true").
		Where("id = ?", a.Add(id)).
		Where(atRisk).Where(missed, a.Add(now), a.Add(now)).
		Returning("*")
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return support.Ticket{}, false, translate(err)
	}
	if len(rows) == 0 {
		return support.Ticket{}, false, nil
	}
	t, err := rows[0].ticket()
	return t, err == nil, err
}
