package operatorapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The platform's help desk: every tenant's tickets, answered and moved
// by the operator as the platform's agent.

var _ Tickets = (*support.Desk)(nil)

// Tickets is the platform's help desk across tenants.
// *support.Desk implements it.
type Tickets interface {
	// Tickets: *support.InvalidError (fields "status", "priority",
	// "tenant_id", "assignee", "cursor").
	Tickets(ctx context.Context, f support.AgentFilter) ([]support.TenantTicket, bool, error)
	// Ticket: support.ErrNotFound.
	Ticket(ctx context.Context, ticketID string) (support.TenantTicket, error)
	// Reply and Change: support.ErrNotFound; support.ErrConflict for a
	// closed ticket or a move the lifecycle refuses; an InvalidError
	// ("body", "status", "priority", "assignee_id").
	Reply(ctx context.Context, ticketID, agentID, body string) (support.Comment, error)
	Change(ctx context.Context, ticketID string, ch support.AgentChange) (support.TenantTicket, error)
}

// listTickets answers GET /api/operator/tickets: the tickets of every
// tenant (or ?tenant_id=), newest first, by ?status=, ?priority= and
// ?assignee=.
func (h *handlers) listTickets(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ts, more, err := h.Tickets.Tickets(r.Context(), support.AgentFilter{
		TenantID: q.Get("tenant_id"), Status: q.Get("status"), Priority: q.Get("priority"),
		AssigneeID: q.Get("assignee"), Limit: limit, Before: before,
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(ts, more, func(t support.TenantTicket) string { return t.ID }))
	return nil
}

// getTicket answers GET /api/operator/tickets/{id}.
func (h *handlers) getTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := httpapi.PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	t, err := h.Tickets.Ticket(r.Context(), ticketID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, t)
	return nil
}

// replyTicket answers POST /api/operator/tickets/{id}/replies (201):
// the operator's reply as the platform's agent, whose id is the operator
// key's. The first one stops the ticket's first-response clock. The body
// is support.CommentInput, whose rules the reply is checked against.
func (h *handlers) replyTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := httpapi.PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var in support.CommentInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	c, err := h.Tickets.Reply(r.Context(), ticketID, agentID(r), in.Body)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, c)
	return nil
}

// agentID is the agent an operator acts as: the operator key's id.
func agentID(r *http.Request) string {
	if act, ok := tenancy.ActorFrom(r.Context()); ok && act.ID != "" {
		return act.ID
	}
	return "operator"
}

// changeTicketRequest is the body of PATCH /api/operator/tickets/{id}:
// support.AgentChange's status and priority, whose rules Change checks,
// and the assignee, raw so that null (unassign) and absent differ.
type changeTicketRequest struct {
	support.AgentChange
	AssigneeID json.RawMessage `json:"assignee_id"`
}

// change returns what the body asks.
func (req changeTicketRequest) change() (support.AgentChange, error) {
	ch := req.AgentChange
	switch {
	case req.AssigneeID == nil:
	case string(req.AssigneeID) == "null":
		ch.ClearAssignee = true
	default:
		var s string
		if err := json.Unmarshal(req.AssigneeID, &s); err != nil {
			return ch, httpapi.InvalidRequest("a field has the wrong type",
				httpapi.FieldError{Field: "assignee_id", Code: "invalid_type", Message: "must be a string or null"})
		}
		ch.AssigneeID = &s
	}
	if ch.Status == nil && ch.Priority == nil && ch.AssigneeID == nil && !ch.ClearAssignee {
		f := field.Errors{}
		f.Add("status", field.Required, "status, priority or assignee_id is required")
		return ch, f.Err()
	}
	return ch, nil
}

// changeTicket answers PATCH /api/operator/tickets/{id}: status,
// priority and assignee, under the agents' rules (a closed ticket is
// final: 409 conflict).
func (h *handlers) changeTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := httpapi.PathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var req changeTicketRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	ch, err := req.change()
	if err != nil {
		return err
	}
	t, err := h.Tickets.Change(r.Context(), ticketID, ch)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, t)
	return nil
}
