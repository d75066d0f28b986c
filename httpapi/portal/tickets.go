package portal

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy/field"
)

type ticketList struct {
	Tickets  []support.Ticket
	Status   string
	Statuses []support.Status
	Next     string
}

func (h *Handler) listTickets(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := h.cfg.Entitlements.RequireModule(r.Context(), rq.membership.TenantID, catalog.ModuleTickets); err != nil {
		return err
	}
	q := r.URL.Query()
	f := support.ListFilter{Status: q.Get("status"), Before: q.Get("before"), Limit: 20}
	ts, more, err := h.cfg.Tickets.List(r.Context(), rq.membership.TenantID, f)
	if errors.Is(err, field.ErrInvalid) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That filter is not valid.")
	}
	if err != nil {
		return err
	}
	d := ticketList{Tickets: ts, Status: f.Status, Statuses: support.Statuses()}
	if more && len(ts) > 0 {
		d.Next = url.Values{"status": {f.Status}, "before": {ts[len(ts)-1].ID}}.Encode()
	}
	return h.render(w, r, rq, http.StatusOK, "tickets", "Tickets", d)
}

type ticketForm struct {
	Subject, Description, Priority string
	Priorities                     []support.Priority
}

func (h *Handler) newTicket(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := h.cfg.Entitlements.RequireModule(r.Context(), rq.membership.TenantID, catalog.ModuleTickets); err != nil {
		return err
	}
	return h.render(w, r, rq, http.StatusOK, "ticket_new", "New ticket",
		ticketForm{Priority: string(support.DefaultPriority), Priorities: support.Priorities()})
}

func (h *Handler) createTicket(w http.ResponseWriter, r *http.Request, rq *request) error {
	p := r.PostForm
	f := ticketForm{Subject: p.Get("subject"), Description: p.Get("description"), Priority: p.Get("priority"),
		Priorities: support.Priorities()}
	u := rq.principal.User
	t, err := h.cfg.Tickets.Create(r.Context(), rq.membership.TenantID,
		support.Requester{ID: u.ID, Email: u.Email, Name: u.Name},
		support.CreateTicketInput{Subject: f.Subject, Description: f.Description, Priority: f.Priority})
	if err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/tickets/"+t.ID+"?done=created", http.StatusSeeOther)
		return nil
	}
	if statusOf(err) >= 500 {
		return err
	}
	return h.renderForm(w, r, rq, statusOf(err), "ticket_new", "New ticket", f, err)
}

func (h *Handler) showTicket(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := h.cfg.Entitlements.RequireModule(r.Context(), rq.membership.TenantID, catalog.ModuleTickets); err != nil {
		return err
	}
	id := r.PathValue("id")
	if !strings.HasPrefix(id, "tkt_") || len(id) > 64 {
		return support.ErrNotFound
	}
	t, err := h.cfg.Tickets.Get(r.Context(), rq.membership.TenantID, id)
	if err != nil {
		return err
	}
	return h.render(w, r, rq, http.StatusOK, "ticket", "Ticket #"+itoa(t.Number), t)
}
