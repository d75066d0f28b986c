package bunstore

import (
	"context"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/support"
)

var _ support.AgentStore = (*Store)(nil)

// TicketTenant implements support.AgentStore. It spans tenants: its
// caller, an agent, does not know the ticket's tenant yet.
func (s *Store) TicketTenant(ctx context.Context, id string) (string, error) {
	var tenantID string
	err := database.AcrossTenants(s.conn(ctx).NewSelect()).Model((*ticketRow)(nil)).
		Column("tenant_id").
		Where("id = ?", id).
		Limit(1).
		Scan(ctx, &tenantID)
	if err != nil {
		return "", translate(err)
	}
	return tenantID, nil
}

// AllTickets implements support.AgentStore: the agents' queue across
// tenants, confined by database.ForTenant when a tenant is asked for.
func (s *Store) AllTickets(ctx context.Context, f support.AgentFilter) ([]support.TenantTicket, bool, error) {
	limit := max(f.Limit, 1)
	var rows []ticketRow
	q := s.conn(ctx).NewSelect().Model(&rows)
	if f.TenantID != "" {
		q = database.ForTenant(q, f.TenantID)
	} else {
		q = database.AcrossTenants(q)
	}
	if f.AssigneeID != "" {
		q = q.Where("assignee_id = ?", f.AssigneeID)
	}
	if err := newestFirst(q, f.Status, f.Priority, f.Before, limit).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, func(r ticketRow) (support.TenantTicket, error) {
		t, err := r.ticket()
		return support.TenantTicket{TenantID: r.TenantID, Ticket: t}, err
	})
}
