package portal

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

type ticketList struct {
	Tickets  []ticketRow
	Status   string
	Statuses []support.Status
	Next     template.URL // the query of the older page, built from values checked here
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
	d := ticketList{Status: f.Status, Statuses: support.Statuses()}
	horizon := h.now().Add(slaHorizon)
	for _, t := range ts {
		d.Tickets = append(d.Tickets, rowOfTicket(t, horizon))
	}
	if more && len(ts) > 0 {
		d.Next = template.URL(url.Values{"status": {f.Status}, "before": {ts[len(ts)-1].ID}}.Encode())
	}
	return h.render(w, r, rq, http.StatusOK, "tickets", "Tickets", d)
}

// ticketRow is a ticket in the list, with its next service level target.
type ticketRow struct {
	support.Ticket
	// SLADue is when the next target falls due (the first response until
	// an agent replied, then the resolution); nil without targets or once
	// resolved.
	SLADue *time.Time
	// SLA is "breached", "at_risk" (due within slaHorizon) or "".
	SLA string
}

// rowOfTicket is t as the list shows it, at horizon (now + slaHorizon).
func rowOfTicket(t support.Ticket, horizon time.Time) ticketRow {
	row := ticketRow{Ticket: t}
	if !slices.Contains(unresolved, t.Status) {
		return row
	}
	row.SLADue = t.ResolutionDueAt
	if t.FirstRespondedAt == nil && t.FirstResponseDueAt != nil {
		row.SLADue = t.FirstResponseDueAt
	}
	switch {
	case t.SLABreached != nil && *t.SLABreached:
		row.SLA = "breached"
	case atRisk(t, horizon):
		row.SLA = "at_risk"
	}
	return row
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

// ticketPage is a ticket with its thread and what the member may do with
// it: comment, move it along the transition table, rate it.
type ticketPage struct {
	Ticket   support.Ticket
	Comments []support.Comment
	// Moves are the status changes offered to the tenant's side: solve,
	// close, reopen, as far as the transition table allows them.
	Moves      []ticketMove
	CanComment bool
	CanRate    bool
	// Body, Score and RatingComment refill the forms after a refusal.
	Body, Score, RatingComment string
	Scores                     []int
}

// ticketMove is one status button on the ticket page.
type ticketMove struct {
	Status support.Status
	Label  string
}

// tenantMoves are the moves the tenant's side is offered, in button order;
// reopening is offered only to a solved ticket.
var tenantMoves = []ticketMove{
	{support.StatusOpen, "Reopen"},
	{support.StatusSolved, "Mark solved"},
	{support.StatusClosed, "Close"},
}

// ticket reads the tenant's ticket named in the path (ErrNotFound for a
// malformed id or another tenant's ticket), after checking the module.
func (h *Handler) ticket(r *http.Request, rq *request) (support.Ticket, error) {
	if err := h.cfg.Entitlements.RequireModule(r.Context(), rq.membership.TenantID, catalog.ModuleTickets); err != nil {
		return support.Ticket{}, err
	}
	ticketID := r.PathValue("id")
	if !id.Valid(id.Ticket, ticketID) {
		return support.Ticket{}, support.ErrNotFound
	}
	return h.cfg.Tickets.Get(r.Context(), rq.membership.TenantID, ticketID)
}

// ticketPageOf gathers the thread of t and what rq may do with it.
func (h *Handler) ticketPageOf(r *http.Request, rq *request, t support.Ticket) (ticketPage, error) {
	ctx, tid := r.Context(), rq.membership.TenantID
	p := ticketPage{Ticket: t, Scores: []int{5, 4, 3, 2, 1}}
	f := support.CommentFilter{Limit: support.MaxListLimit}
	for {
		cs, more, err := h.cfg.Tickets.Comments(ctx, tid, t.ID, f)
		if err != nil {
			return p, err
		}
		p.Comments = append(p.Comments, cs...)
		if !more || len(cs) == 0 {
			break
		}
		f.After = cs[len(cs)-1].ID
	}
	if !rq.can(tenancy.PermTicketsWrite) {
		return p, nil
	}
	p.CanComment = t.Status != support.StatusClosed
	for _, m := range tenantMoves {
		if support.CanTransition(t.Status, m.Status) && (m.Status != support.StatusOpen || t.Status == support.StatusSolved) {
			p.Moves = append(p.Moves, m)
		}
	}
	if t.Status == support.StatusSolved && t.Satisfaction == nil && mayRate(rq, t) {
		err := h.cfg.Entitlements.RequireModule(ctx, tid, catalog.ModuleCSAT)
		if err != nil && !errors.Is(err, tenancy.ErrModuleDisabled) {
			return p, err
		}
		p.CanRate = err == nil
	}
	return p, nil
}

// mayRate mirrors the service's rule: the requester rates their ticket,
// owners and admins rate any.
func mayRate(rq *request, t support.Ticket) bool {
	role := rq.membership.Role
	return t.Requester.ID == rq.principal.User.ID || role == tenancy.RoleOwner || role == tenancy.RoleAdmin
}

func (h *Handler) showTicket(w http.ResponseWriter, r *http.Request, rq *request) error {
	t, err := h.ticket(r, rq)
	if err != nil {
		return err
	}
	p, err := h.ticketPageOf(r, rq, t)
	if err != nil {
		return err
	}
	return h.render(w, r, rq, http.StatusOK, "ticket", "Ticket #"+itoa(t.Number), p)
}

// ticketAction runs one change of the ticket and shows it again: after a
// redirect when it worked, else with the refusal next to its field (a
// 5xx, a 404 or a 403 is an error page).
func (h *Handler) ticketAction(w http.ResponseWriter, r *http.Request, rq *request, done string,
	act func(t support.Ticket) error, refill func(p *ticketPage)) error {
	t, err := h.ticket(r, rq)
	if err != nil {
		return err
	}
	if err = act(t); err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/tickets/"+t.ID+"?done="+done, http.StatusSeeOther)
		return nil
	}
	status := statusOf(err)
	if status >= 500 || status == http.StatusNotFound || status == http.StatusForbidden {
		return err
	}
	// Show the ticket as it is now: a conflict may come from a change
	// made meanwhile.
	now, gerr := h.cfg.Tickets.Get(r.Context(), rq.membership.TenantID, t.ID)
	if gerr != nil {
		return gerr
	}
	p, perr := h.ticketPageOf(r, rq, now)
	if perr != nil {
		return perr
	}
	refill(&p)
	return h.renderForm(w, r, rq, status, "ticket", "Ticket #"+itoa(now.Number), p, err)
}

func (h *Handler) commentTicket(w http.ResponseWriter, r *http.Request, rq *request) error {
	body := r.PostForm.Get("body")
	u := rq.principal.User
	return h.ticketAction(w, r, rq, "commented", func(t support.Ticket) error {
		_, err := h.cfg.Tickets.AddComment(r.Context(), rq.membership.TenantID, t.ID,
			support.Requester{ID: u.ID, Email: u.Email, Name: u.Name}, support.CommentInput{Body: body})
		return err
	}, func(p *ticketPage) { p.Body = body })
}

func (h *Handler) moveTicket(w http.ResponseWriter, r *http.Request, rq *request) error {
	status := r.PostForm.Get("status")
	return h.ticketAction(w, r, rq, "moved", func(t support.Ticket) error {
		_, err := h.cfg.Tickets.Update(r.Context(), rq.membership.TenantID, t.ID, support.UpdateTicketInput{Status: &status})
		return err
	}, func(*ticketPage) {})
}

func (h *Handler) rateTicket(w http.ResponseWriter, r *http.Request, rq *request) error {
	score, comment := r.PostForm.Get("score"), r.PostForm.Get("comment")
	return h.ticketAction(w, r, rq, "rated", func(t support.Ticket) error {
		n, err := strconv.Atoi(score)
		if err != nil || n < support.MinScore || n > support.MaxScore {
			n = 0 // the service names the field and its range
		}
		_, err = h.cfg.Tickets.Rate(r.Context(), rq.membership.TenantID, t.ID,
			support.Rater{UserID: rq.principal.User.ID, Role: rq.membership.Role},
			support.RatingInput{Score: n, Comment: &comment})
		return err
	}, func(p *ticketPage) { p.Score, p.RatingComment = score, comment })
}
