package operatorapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/webhook"
)

// The payment events that matched no invoice, to settle: applied to the
// invoice the operator matched, or dismissed.

var _ Payments = (*webhook.Settlement)(nil)

// Payments settles the payment events that matched no invoice.
// *webhook.Settlement implements it.
type Payments interface {
	// Events: *tenancy.InvalidError (fields "outcome", "cursor").
	Events(ctx context.Context, f webhook.EventFilter) ([]webhook.Record, bool, error)
	// Apply and Dismiss: *tenancy.InvalidError ("invoice_id", "reason":
	// webhook.ApplyInput's and DismissInput's tags, or no such invoice);
	// webhook.ErrNotFound; webhook.ErrConflict when the event is not
	// unmatched; Apply also billing.ErrCurrencyMismatch, ErrConflict and
	// ErrInvalid when the invoice does not take the event.
	Apply(ctx context.Context, eventID, invoiceID string) (webhook.Record, error)
	Dismiss(ctx context.Context, eventID, reason string) (webhook.Record, error)
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
	// Compacted here because httpapi.WriteJSON writes a RawMessage as it is.
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

// listPaymentEvents answers GET /api/operator/payment-events: the
// inbox's events with ?outcome= (unmatched when absent), greatest id
// first.
func (h *handlers) listPaymentEvents(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	recs, more, err := h.Payments.Events(r.Context(), webhook.EventFilter{
		Outcome: webhook.Outcome(r.URL.Query().Get("outcome")), Limit: limit, Before: before,
	})
	if err != nil {
		return err
	}
	events := make([]paymentEvent, len(recs))
	for i, rec := range recs {
		events[i] = newPaymentEvent(rec)
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(events, more, func(e paymentEvent) string { return e.ID }))
	return nil
}

// eventPath returns the event id of the path; a malformed one is 404.
func eventPath(r *http.Request) (string, error) {
	eventID := r.PathValue("id")
	if eventID == "" || len(eventID) > webhook.MaxEventIDLen || strings.ContainsFunc(eventID, func(c rune) bool { return c <= ' ' || c > '~' }) {
		return "", httpapi.NewProblem(http.StatusNotFound, httpapi.CodeNotFound, "payment event not found")
	}
	return eventID, nil
}

// applyPaymentEvent answers POST
// /api/operator/payment-events/{id}/apply: the unmatched event's payment
// (or refund) is booked on the invoice the operator matched, once; an
// event no longer unmatched is 409 conflict. The body is
// webhook.ApplyInput, whose rule Apply checks.
func (h *handlers) applyPaymentEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := eventPath(r)
	if err != nil {
		return err
	}
	var in webhook.ApplyInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	rec, err := h.Payments.Apply(r.Context(), eventID, in.InvoiceID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, newPaymentEvent(rec))
	return nil
}

// dismissPaymentEvent answers POST
// /api/operator/payment-events/{id}/dismiss: the unmatched event is set
// aside with the reason; nothing else changes. The body is
// webhook.DismissInput, whose rules Dismiss checks.
func (h *handlers) dismissPaymentEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := eventPath(r)
	if err != nil {
		return err
	}
	var in webhook.DismissInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	rec, err := h.Payments.Dismiss(r.Context(), eventID, in.Reason)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, newPaymentEvent(rec))
	return nil
}
