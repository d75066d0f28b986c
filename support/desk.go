package support

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// AgentStore is the persistence of the platform's help desk: the queries
// across tenants that Store, confined to one tenant, does not have.
// Implementations follow Store's rules (concurrency, transactions, UTC,
// translated errors). The Bun store implements both; supporttest.RunAgent
// checks this one.
type AgentStore interface {
	// TicketTenant returns the tenant owning the ticket with id, for an
	// agent who knows only the id; it is not confined to a tenant.
	// ErrNotFound when no tenant has it.
	TicketTenant(ctx context.Context, id string) (string, error)
	// AllTickets returns up to f.Limit (at least 1) tickets of every
	// tenant, or of f.TenantID when set, matching f, newest (greatest id)
	// first, with ids less than f.Before when set, and whether more
	// follow. Empty filter fields match everything.
	AllTickets(ctx context.Context, f AgentFilter) (tickets []TenantTicket, hasMore bool, err error)
}

// TenantTicket is a ticket with the tenant it belongs to, as the
// platform's agents see tickets across tenants.
type TenantTicket struct {
	TenantID string `json:"tenant_id"`
	Ticket
}

// AgentFilter selects and pages tickets across tenants. The fields are
// strings, as they arrive in query parameters; Desk.Tickets checks them
// against their tags, which name them by their parameters.
type AgentFilter struct {
	// TenantID keeps the tickets of this tenant ("" = every tenant).
	TenantID string `json:"tenant_id" validate:"omitempty,id=ten"`
	// Status and Priority keep tickets with these values ("" = any).
	Status   string `json:"status" validate:"omitempty,oneof=open pending on_hold solved closed"`
	Priority string `json:"priority" validate:"omitempty,oneof=low normal high urgent"`
	// AssigneeID keeps tickets assigned to this agent ("" = anyone's and
	// nobody's).
	AssigneeID string
	// Limit is the page size, clamped as ListFilter's.
	Limit int
	// Before is the id of the last ticket of the previous page; anything
	// but a ticket id is an *InvalidError on "cursor".
	Before string
}

// Desk is the platform agents' view of support: tickets of every tenant,
// found by id alone, answered and moved by agents. Each change goes
// through Service's agent methods, so the same rules and locks apply.
// Who acts is the agent id passed in; the actor in the context
// (tenancy.ActorFrom) travels on to the stores for an audit trail.
type Desk struct {
	svc   *Service
	store AgentStore
}

// NewDesk returns a Desk finding tickets across tenants in store and
// changing them through svc.
func NewDesk(svc *Service, store AgentStore) *Desk { return &Desk{svc: svc, store: store} }

// Tickets returns a page of tickets of every tenant (or f.TenantID)
// matching f, newest first, and whether more follow. The slice is never
// nil. *InvalidError for an unknown status ("status") or priority
// ("priority"), a malformed tenant id ("tenant_id") or assignee
// ("assignee"), or a bad cursor ("cursor").
func (d *Desk) Tickets(ctx context.Context, f AgentFilter) ([]TenantTicket, bool, error) {
	errs := field.Errors{}
	errs.Merge(field.Check(f))
	if f.AssigneeID != "" {
		checkRef(errs, "assignee", f.AssigneeID)
	}
	lf, err := ListFilter{Limit: f.Limit, Before: f.Before}.normalize()
	errs.Merge(err)
	if err := errs.Err(); err != nil {
		return nil, false, fmt.Errorf("support: list tickets of every tenant: %w", err)
	}
	f.Limit = lf.Limit
	ts, more, err := d.store.AllTickets(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("support: list tickets of every tenant: %w", err)
	}
	if ts == nil {
		ts = []TenantTicket{}
	}
	return ts, more, nil
}

// Ticket returns the ticket with id, whichever tenant owns it, whatever
// its modules. ErrNotFound when none has it.
func (d *Desk) Ticket(ctx context.Context, ticketID string) (TenantTicket, error) {
	tenantID, err := d.tenantOf(ctx, ticketID)
	if err != nil {
		return TenantTicket{}, fmt.Errorf("support: ticket %s: %w", ticketID, err)
	}
	t, err := d.svc.store.Ticket(ctx, tenantID, ticketID)
	if err != nil {
		return TenantTicket{}, fmt.Errorf("support: ticket %s: %w", ticketID, err)
	}
	return TenantTicket{TenantID: tenantID, Ticket: t}, nil
}

// Reply adds the agent agentID's reply to the ticket with id, whichever
// tenant owns it: Service.AgentReply, whose first reply stops the
// first-response clock. Its errors, and ErrNotFound for an unknown id.
func (d *Desk) Reply(ctx context.Context, ticketID, agentID, body string) (Comment, error) {
	tenantID, err := d.tenantOf(ctx, ticketID)
	if err != nil {
		return Comment{}, fmt.Errorf("support: agent reply on ticket %s: %w", ticketID, err)
	}
	return d.svc.AgentReply(ctx, tenantID, ticketID, agentID, body)
}

// AgentChange is what an agent changes on a ticket at once; nil fields
// stay as they are. ClearAssignee unassigns the ticket. The tags are the
// rules of the status and priority, which Change checks first; with their
// json names they are part of the body of PATCH /api/operator/tickets/{id},
// whose assignee_id (a string, or null for ClearAssignee) is the edge's to
// read. The assignee's form is Assign's to check.
type AgentChange struct {
	Status        *Status   `json:"status,omitempty" validate:"omitnil,oneof=open pending on_hold solved closed"`
	Priority      *Priority `json:"priority,omitempty" validate:"omitnil,oneof=low normal high urgent"`
	AssigneeID    *string   `json:"-"`
	ClearAssignee bool      `json:"-"`
}

// Change applies ch to the ticket with id, whichever tenant owns it,
// through Service's Transition, SetPriority and Assign (in that order;
// each commits on its own, as they would called one by one, so a refused
// step leaves the earlier ones done). It returns the ticket as it ends.
// An *InvalidError ("status", "priority") for what ch's tags refuse,
// before anything is read or changed; the three methods' errors, and
// ErrNotFound for an unknown id.
func (d *Desk) Change(ctx context.Context, ticketID string, ch AgentChange) (TenantTicket, error) {
	if err := field.Check(ch); err != nil {
		return TenantTicket{}, fmt.Errorf("support: change ticket %s: %w", ticketID, err)
	}
	tenantID, err := d.tenantOf(ctx, ticketID)
	if err != nil {
		return TenantTicket{}, fmt.Errorf("support: change ticket %s: %w", ticketID, err)
	}
	out := TenantTicket{TenantID: tenantID}
	if out.Ticket, err = d.svc.store.Ticket(ctx, tenantID, ticketID); err != nil {
		return TenantTicket{}, fmt.Errorf("support: change ticket %s: %w", ticketID, err)
	}
	if ch.Status != nil {
		if out.Ticket, err = d.svc.Transition(ctx, tenantID, ticketID, *ch.Status); err != nil {
			return TenantTicket{}, err
		}
	}
	if ch.Priority != nil {
		if out.Ticket, err = d.svc.SetPriority(ctx, tenantID, ticketID, *ch.Priority); err != nil {
			return TenantTicket{}, err
		}
	}
	if ch.AssigneeID != nil || ch.ClearAssignee {
		if out.Ticket, err = d.svc.Assign(ctx, tenantID, ticketID, ch.AssigneeID); err != nil {
			return TenantTicket{}, err
		}
	}
	return out, nil
}

// tenantOf finds the tenant of a ticket known by id alone.
func (d *Desk) tenantOf(ctx context.Context, ticketID string) (string, error) {
	if !id.Valid(id.Ticket, ticketID) {
		return "", ErrNotFound
	}
	return d.store.TicketTenant(ctx, ticketID)
}
