package httpapi

import (
	"net/http"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
)

// listTickets answers GET /api/tickets: the tenant's tickets, newest first,
// filtered by ?status=, ?priority= and ?requester=me.
func (a *API) listTickets(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
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
		return invalidRequest("requester filter supports only \"me\"",
			FieldError{Field: "requester", Code: "oneof", Message: "must be \"me\""})
	}
	tickets, more, err := a.cfg.Support.List(r.Context(), m.TenantID, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(tickets, more, func(t support.Ticket) string { return t.ID }))
	return nil
}

// createTicket answers POST /api/tickets: a new open ticket requested by
// the caller (201, Location).
func (a *API) createTicket(w http.ResponseWriter, r *http.Request) error {
	var in support.CreateTicketInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	requester := support.Requester{ID: p.User.ID, Email: p.User.Email, Name: p.User.Name}
	t, err := a.cfg.Support.Create(r.Context(), m.TenantID, requester, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/tickets/"+t.ID)
	writeJSON(w, http.StatusCreated, t)
	return nil
}

// getTicket answers GET /api/tickets/{id}; another tenant's ticket is 404.
func (a *API) getTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	t, err := a.cfg.Support.Get(r.Context(), m.TenantID, ticketID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}
