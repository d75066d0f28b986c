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

// updateTicket answers PATCH /api/tickets/{id}: the ticket with its new
// status, priority or tags.
func (a *API) updateTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var in support.UpdateTicketInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	t, err := a.cfg.Support.Update(r.Context(), m.TenantID, ticketID, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// listComments answers GET /api/tickets/{id}/comments: the ticket's
// thread, oldest first.
func (a *API) listComments(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	limit, after, err := parseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	cs, more, err := a.cfg.Support.Comments(r.Context(), m.TenantID, ticketID, support.CommentFilter{Limit: limit, After: after})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(cs, more, func(c support.Comment) string { return c.ID }))
	return nil
}

// createComment answers POST /api/tickets/{id}/comments: the caller's
// comment (201).
func (a *API) createComment(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var in support.CommentInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	by := support.Requester{ID: p.User.ID, Email: p.User.Email, Name: p.User.Name}
	c, err := a.cfg.Support.AddComment(r.Context(), m.TenantID, ticketID, by, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}

// rateTicket answers POST /api/tickets/{id}/satisfaction: the ticket's one
// rating (201).
func (a *API) rateTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var in support.RatingInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	sat, err := a.cfg.Support.Rate(r.Context(), m.TenantID, ticketID, support.Rater{UserID: m.UserID, Role: m.Role}, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, sat)
	return nil
}
