package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The support group (/api/tickets): a tenant's tickets, their threads and
// their satisfaction ratings.

var _ Tickets = (*support.Service)(nil)

// Tickets serves the tickets endpoints; *support.Service implements it.
// Every method acts for the tenant it is given and never sees another
// tenant's tickets.
type Tickets interface {
	// List returns a page of the tenant's tickets, newest first, and
	// whether more follow. *support.InvalidError for a bad filter.
	List(ctx context.Context, tenantID string, f support.ListFilter) ([]support.Ticket, bool, error)
	// Create opens a ticket requested by requester. *support.InvalidError;
	// errors wrapping tenancy.ErrModuleDisabled or
	// tenancy.ErrLimitExceeded.
	Create(ctx context.Context, tenantID string, requester support.Requester, in support.CreateTicketInput) (support.Ticket, error)
	// Get returns the tenant's ticket; support.ErrNotFound when the tenant
	// has none with that id.
	Get(ctx context.Context, tenantID, ticketID string) (support.Ticket, error)
	// Update changes the ticket's status (along the transition table),
	// priority or tags, all or nothing. *support.InvalidError;
	// support.ErrConflict for a forbidden move or a closed ticket;
	// support.ErrNotFound.
	Update(ctx context.Context, tenantID, ticketID string, in support.UpdateTicketInput) (support.Ticket, error)
	// Comments returns a page of the ticket's thread, oldest first, and
	// whether more follow. support.ErrNotFound; *support.InvalidError for
	// a bad cursor.
	Comments(ctx context.Context, tenantID, ticketID string, f support.CommentFilter) ([]support.Comment, bool, error)
	// AddComment adds the caller's comment to the ticket's thread.
	// *support.InvalidError; support.ErrConflict for a closed ticket;
	// support.ErrNotFound.
	AddComment(ctx context.Context, tenantID, ticketID string, by support.Requester, in support.CommentInput) (support.Comment, error)
	// Rate records the one satisfaction rating of a solved ticket.
	// *support.InvalidError; support.ErrForbidden; support.ErrConflict;
	// support.ErrNotFound; errors wrapping tenancy.ErrModuleDisabled.
	Rate(ctx context.Context, tenantID, ticketID string, by support.Rater, in support.RatingInput) (support.Satisfaction, error)
}

// ticketEndpoints are the support group's rows of the route table.
func (a *API) ticketEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/tickets", Group: GroupSupport, Tenant: true,
			Permission: tenancy.PermTicketsRead, Module: catalog.ModuleTickets, Query: ListQuery("status", "priority", "requester"), Handle: With(a.cfg.Services.Support, a.listTickets)},
		{Method: "POST", Path: "/api/tickets", Group: GroupSupport, Tenant: true,
			Permission: tenancy.PermTicketsWrite, Module: catalog.ModuleTickets, Idempotent: true, Handle: With(a.cfg.Services.Support, a.createTicket)},
		{Method: "GET", Path: "/api/tickets/{id}", Group: GroupSupport, Tenant: true,
			Permission: tenancy.PermTicketsRead, Module: catalog.ModuleTickets, Handle: With(a.cfg.Services.Support, a.getTicket)},
		{Method: "PATCH", Path: "/api/tickets/{id}", Group: GroupSupport, Tenant: true,
			Permission: tenancy.PermTicketsWrite, Module: catalog.ModuleTickets, Handle: With(a.cfg.Services.Support, a.updateTicket)},
		{Method: "GET", Path: "/api/tickets/{id}/comments", Group: GroupSupport, Tenant: true,
			Permission: tenancy.PermTicketsRead, Module: catalog.ModuleTickets, Query: ListQuery(), Handle: With(a.cfg.Services.Support, a.listComments)},
		{Method: "POST", Path: "/api/tickets/{id}/comments", Group: GroupSupport, Tenant: true,
			Permission: tenancy.PermTicketsWrite, Module: catalog.ModuleTickets, Idempotent: true, Handle: With(a.cfg.Services.Support, a.createComment)},
		// The rating needs support.tickets too; the service checks it.
		{Method: "POST", Path: "/api/tickets/{id}/satisfaction", Group: GroupSupport, Tenant: true,
			Permission: tenancy.PermTicketsWrite, Module: catalog.ModuleCSAT, Idempotent: true, Handle: With(a.cfg.Services.Support, a.rateTicket)},
	}
}

// listTickets answers GET /api/tickets: the tenant's tickets, newest first,
// filtered by ?status=, ?priority= and ?requester=me.
func (a *API) listTickets(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	q := r.URL.Query()
	f := support.ListFilter{Status: q.Get("status"), Priority: q.Get("priority"), Limit: limit, Before: before}
	switch q.Get("requester") {
	case "":
	case "me":
		f.RequesterID = m.UserID
	default:
		return InvalidRequest("requester filter supports only \"me\"",
			FieldError{Field: "requester", Code: "oneof", Message: "must be \"me\""})
	}
	tickets, more, err := a.cfg.Services.Support.List(r.Context(), m.TenantID, f)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(tickets, more, func(t support.Ticket) string { return t.ID }))
	return nil
}

// createTicket answers POST /api/tickets: a new open ticket requested by
// the caller (201, Location).
func (a *API) createTicket(w http.ResponseWriter, r *http.Request) error {
	var in support.CreateTicketInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	requester := support.Requester{ID: p.User.ID, Email: p.User.Email, Name: p.User.Name}
	t, err := a.cfg.Services.Support.Create(r.Context(), m.TenantID, requester, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/tickets/"+t.ID)
	WriteJSON(w, http.StatusCreated, t)
	return nil
}

// getTicket answers GET /api/tickets/{id}; another tenant's ticket is 404.
func (a *API) getTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	t, err := a.cfg.Services.Support.Get(r.Context(), m.TenantID, ticketID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, t)
	return nil
}

// updateTicket answers PATCH /api/tickets/{id}: the ticket with its new
// status, priority or tags.
func (a *API) updateTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var in support.UpdateTicketInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	t, err := a.cfg.Services.Support.Update(r.Context(), m.TenantID, ticketID, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, t)
	return nil
}

// listComments answers GET /api/tickets/{id}/comments: the ticket's
// thread, oldest first.
func (a *API) listComments(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	limit, after, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	cs, more, err := a.cfg.Services.Support.Comments(r.Context(), m.TenantID, ticketID, support.CommentFilter{Limit: limit, After: after})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(cs, more, func(c support.Comment) string { return c.ID }))
	return nil
}

// createComment answers POST /api/tickets/{id}/comments: the caller's
// comment (201).
func (a *API) createComment(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var in support.CommentInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	by := support.Requester{ID: p.User.ID, Email: p.User.Email, Name: p.User.Name}
	c, err := a.cfg.Services.Support.AddComment(r.Context(), m.TenantID, ticketID, by, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, c)
	return nil
}

// rateTicket answers POST /api/tickets/{id}/satisfaction: the ticket's one
// rating (201).
func (a *API) rateTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var in support.RatingInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	sat, err := a.cfg.Services.Support.Rate(r.Context(), m.TenantID, ticketID, support.Rater{UserID: m.UserID, Role: m.Role}, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, sat)
	return nil
}
