package bunstore

import (
	"context"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/support"
)

var _ support.AgentStore = (*Store)(nil)

// TicketTenant implements support.AgentStore. Like SLAOverdue it is not
// confined by database.ForTenant: its caller does not know the tenant yet.
func (s *Store) TicketTenant(ctx context.Context, id string) (string, error) {
	var tenantID string
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewSelect().Model((*ticketRow)(nil)).Column("tenant_id").Where("id = ?", a.Add(id)).Limit(1)
	if err := database.Scan(ctx, s.db, q, a, &tenantID); err != nil {
		return "", translate(err)
	}
	return tenantID, nil
}

// AllTickets implements support.AgentStore: the agents' query across
// tenants, confined by database.ForTenant only when a tenant is asked for.
func (s *Store) AllTickets(ctx context.Context, f support.AgentFilter) ([]support.TenantTicket, bool, error) {
	limit := max(f.Limit, 1)
	rows := make([]ticketRow, 0, limit+1)
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewSelect().Model(&rows)
	if f.TenantID != "" {
		q = database.ForTenant(q, a.Add(f.TenantID))
	}
	if f.Status != "" {
		q = q.Where("status = ?", a.Add(f.Status))
	}
	if f.Priority != "" {
		q = q.Where("priority = ?", a.Add(f.Priority))
	}
	if f.AssigneeID != "" {
		q = q.Where("assignee_id = ?", a.Add(f.AssigneeID))
	}
	if f.Before != "" {
		q = q.Where("id < ?", a.Add(f.Before))
	}
	if err := database.Scan(ctx, s.db, q.OrderExpr("id DESC").Limit(int64(limit)+1), a, &rows); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, func(r ticketRow) (support.TenantTicket, error) {
		t, err := r.ticket()
		return support.TenantTicket{TenantID: r.TenantID, Ticket: t}, err
	})
}
