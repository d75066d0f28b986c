package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
)

// The operator API's queues of work across tenants: contract requests to
// decide, tickets to answer, payment events to settle. Who acts is the
// actor in the request's context (tenancy.ActorFrom), which every service
// call below receives.

// opListContractRequests answers GET /api/operator/contract-requests:
// the requests of every tenant (or ?tenant_id=), newest first, by
// ?status=.
func (a *API) opListContractRequests(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	reqs, more, err := a.cfg.Operator.Requests.AllRequests(r.Context(), contract.AllFilter{
		Filter:   contract.Filter{Status: q.Get("status"), Limit: limit, Before: before},
		TenantID: q.Get("tenant_id"),
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(reqs, more, func(c contract.Request) string { return c.ID }))
	return nil
}

// opApproveContractRequest answers POST
// /api/operator/contract-requests/{id}/approve: an `immediately` request
// is applied now, a `next_period` one approved for the next period. A
// request no longer pending is 409 conflict, also for the second of two
// operators approving it at once.
func (a *API) opApproveContractRequest(w http.ResponseWriter, r *http.Request) error {
	reqID, err := pathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	req, err := a.cfg.Operator.Requests.Approve(r.Context(), reqID, "")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, req)
	return nil
}

// reasonRequest is a body that gives a reason.
type reasonRequest struct {
	Reason string `json:"reason"`
}

// required refuses a body without a reason.
func (req reasonRequest) required() error {
	if strings.TrimSpace(req.Reason) == "" {
		f := field.Errors{}
		f.Required("reason")
		return f.Err()
	}
	return nil
}

// opRejectContractRequest answers POST
// /api/operator/contract-requests/{id}/reject: the request is rejected
// with the reason, which the tenant's notification carries.
func (a *API) opRejectContractRequest(w http.ResponseWriter, r *http.Request) error {
	reqID, err := pathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	var body reasonRequest
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if err := body.required(); err != nil {
		return err
	}
	req, err := a.cfg.Operator.Requests.Reject(r.Context(), reqID, body.Reason)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, req)
	return nil
}

// opListTickets answers GET /api/operator/tickets: the tickets of every
// tenant (or ?tenant_id=), newest first, by ?status=, ?priority= and
// ?assignee=.
func (a *API) opListTickets(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ts, more, err := a.cfg.Operator.Tickets.Tickets(r.Context(), support.AgentFilter{
		TenantID: q.Get("tenant_id"), Status: q.Get("status"), Priority: q.Get("priority"),
		AssigneeID: q.Get("assignee"), Limit: limit, Before: before,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(ts, more, func(t support.TenantTicket) string { return t.ID }))
	return nil
}

// opGetTicket answers GET /api/operator/tickets/{id}.
func (a *API) opGetTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	t, err := a.cfg.Operator.Tickets.Ticket(r.Context(), ticketID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// agentReplyRequest is the body of POST /api/operator/tickets/{id}/replies.
type agentReplyRequest struct {
	Body string `json:"body"`
}

// opReplyTicket answers POST /api/operator/tickets/{id}/replies (201):
// the operator's reply as the platform's agent, whose id is the operator
// key's. The first one stops the ticket's first-response clock.
func (a *API) opReplyTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var req agentReplyRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	c, err := a.cfg.Operator.Tickets.Reply(r.Context(), ticketID, agentID(r), req.Body)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}

// agentID is the agent an operator acts as: the operator key's id.
func agentID(r *http.Request) string {
	if act, ok := tenancy.ActorFrom(r.Context()); ok && act.ID != "" {
		return act.ID
	}
	return "operator"
}

// changeTicketRequest is the body of PATCH /api/operator/tickets/{id}.
// AssigneeID is raw so that null (unassign) and absent differ.
type changeTicketRequest struct {
	Status     *support.Status   `json:"status"`
	Priority   *support.Priority `json:"priority"`
	AssigneeID json.RawMessage   `json:"assignee_id"`
}

// change returns what the body asks.
func (req changeTicketRequest) change() (support.AgentChange, error) {
	ch := support.AgentChange{Status: req.Status, Priority: req.Priority}
	switch {
	case req.AssigneeID == nil:
	case string(req.AssigneeID) == "null":
		ch.ClearAssignee = true
	default:
		var s string
		if err := json.Unmarshal(req.AssigneeID, &s); err != nil {
			return ch, invalidRequest("a field has the wrong type",
				FieldError{Field: "assignee_id", Code: "invalid_type", Message: "must be a string or null"})
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

// opChangeTicket answers PATCH /api/operator/tickets/{id}: status,
// priority and assignee, under the agents' rules (a closed ticket is
// final: 409 conflict).
func (a *API) opChangeTicket(w http.ResponseWriter, r *http.Request) error {
	ticketID, err := pathID(r, id.Ticket, "ticket")
	if err != nil {
		return err
	}
	var req changeTicketRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	ch, err := req.change()
	if err != nil {
		return err
	}
	t, err := a.cfg.Operator.Tickets.Change(r.Context(), ticketID, ch)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// paymentEvent is a payment event of the webhook's inbox, as operators
// see it.
type paymentEvent struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Outcome     webhook.Outcome `json:"outcome"`
	Reason      string          `json:"reason"`
	TenantID    *string         `json:"tenant_id"`
	InvoiceID   *string         `json:"invoice_id"`
	ReceivedAt  time.Time       `json:"received_at"`
	ProcessedAt *time.Time      `json:"processed_at"`
	// Payload is the event as the provider sent it, compacted (or, when
	// it is not JSON, as a string).
	Payload json.RawMessage `json:"payload"`
}

// newPaymentEvent converts an inbox record.
func newPaymentEvent(rec webhook.Record) paymentEvent {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	// Compacted here because writeBody writes a RawMessage as it is.
	var compact bytes.Buffer
	payload := json.RawMessage(rec.Payload)
	if err := json.Compact(&compact, payload); err == nil {
		payload = compact.Bytes()
	} else {
		payload, _ = json.Marshal(string(rec.Payload))
	}
	return paymentEvent{ID: rec.ID, Type: rec.Type, Outcome: rec.Outcome, Reason: rec.Reason,
		TenantID: opt(rec.TenantID), InvoiceID: opt(rec.InvoiceID), ReceivedAt: rec.ReceivedAt,
		ProcessedAt: rec.ProcessedAt, Payload: payload}
}

// opListPaymentEvents answers GET /api/operator/payment-events: the
// inbox's events with ?outcome= (unmatched when absent), greatest id
// first.
func (a *API) opListPaymentEvents(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	recs, more, err := a.cfg.Operator.Payments.Events(r.Context(), webhook.EventFilter{
		Outcome: webhook.Outcome(r.URL.Query().Get("outcome")), Limit: limit, Before: before,
	})
	if err != nil {
		return err
	}
	events := make([]paymentEvent, len(recs))
	for i, rec := range recs {
		events[i] = newPaymentEvent(rec)
	}
	writeJSON(w, http.StatusOK, newListResponse(events, more, func(e paymentEvent) string { return e.ID }))
	return nil
}

// eventPath returns the event id of the path; a malformed one is 404.
func eventPath(r *http.Request) (string, error) {
	eventID := r.PathValue("id")
	if eventID == "" || len(eventID) > webhook.MaxEventIDLen || strings.ContainsFunc(eventID, func(c rune) bool { return c <= ' ' || c > '~' }) {
		return "", NewProblem(http.StatusNotFound, CodeNotFound, "payment event not found")
	}
	return eventID, nil
}

// applyEventRequest is the body of POST
// /api/operator/payment-events/{id}/apply.
type applyEventRequest struct {
	InvoiceID string `json:"invoice_id"`
}

// opApplyPaymentEvent answers POST
// /api/operator/payment-events/{id}/apply: the unmatched event's payment
// (or refund) is booked on the invoice the operator matched, once; an
// event no longer unmatched is 409 conflict.
func (a *API) opApplyPaymentEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := eventPath(r)
	if err != nil {
		return err
	}
	var req applyEventRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	rec, err := a.cfg.Operator.Payments.Apply(r.Context(), eventID, req.InvoiceID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPaymentEvent(rec))
	return nil
}

// opDismissPaymentEvent answers POST
// /api/operator/payment-events/{id}/dismiss: the unmatched event is set
// aside with the reason; nothing else changes.
func (a *API) opDismissPaymentEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := eventPath(r)
	if err != nil {
		return err
	}
	var req reasonRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	rec, err := a.cfg.Operator.Payments.Dismiss(r.Context(), eventID, req.Reason)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPaymentEvent(rec))
	return nil
}
