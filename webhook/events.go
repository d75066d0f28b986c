package webhook

import (
	"context"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/event"
)

// Events records the audit trail's events: Record writes one event of type
// typ about a resource of tenantID ("" for the platform's own), with data
// (the resource after the change), on the transaction ctx carries.
// *event.Recorder (package tenancy/event) implements it.
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// WithEvents makes the service record invoice.payment_failed (by the
// system) for a payment.failed event that matches an invoice, in the
// transaction of the delivery — the invoice itself does not change —
// and its Settlement record an event for every operator's settlement, in
// the transaction of the settlement: payment_event.applied (of the
// invoice's tenant) and payment_event.dismissed (a platform event: no
// tenant). Payments and refunds record their invoice's events through
// billing. tenantkit.New
// always passes one; a Service without it records nothing.
func WithEvents(e Events) Option { return func(s *Service) { s.events = e } }

// settledEvent is the data of a payment_event.applied or
// payment_event.dismissed event: the provider's event as settled, without
// its payload.
type settledEvent struct {
	ID          string     `json:"id"`
	Type        string     `json:"type"`
	Outcome     Outcome    `json:"outcome"`
	Reason      string     `json:"reason,omitempty"`
	TenantID    string     `json:"tenant_id,omitempty"`
	InvoiceID   string     `json:"invoice_id,omitempty"`
	ProcessedAt *time.Time `json:"processed_at,omitempty"`
}

// recordSettled writes the event typ about the settled r, of tenantID.
func (s *Service) recordSettled(ctx context.Context, tenantID, typ string, r Record) error {
	if s.events == nil {
		return nil
	}
	data := settledEvent{
		ID: r.ID, Type: r.Type, Outcome: r.Outcome, Reason: r.Reason,
		TenantID: r.TenantID, InvoiceID: r.InvoiceID, ProcessedAt: r.ProcessedAt,
	}
	return s.events.Record(ctx, tenantID, typ, "payment_event", r.ID, data)
}

// The events a Settlement records.
const (
	eventApplied   = event.PaymentEventApplied
	eventDismissed = event.PaymentEventDismissed
)

// failedPayment is the data of an invoice.payment_failed event: the
// invoice, unchanged, and the attempt that failed.
type failedPayment struct {
	billing.Invoice
	PaymentFailure paymentFailure `json:"payment_failure"`
}

// paymentFailure is the provider's report of a failed payment.
type paymentFailure struct {
	EventID       string  `json:"event_id"`
	PaymentID     string  `json:"payment_id"`
	Amount        int64   `json:"amount"`
	Currency      string  `json:"currency"`
	FailureReason *string `json:"failure_reason"`
}

// recordFailure writes the invoice.payment_failed event of ev, a
// payment.failed event about inv.
func (s *Service) recordFailure(ctx context.Context, ev Event, inv billing.Invoice) error {
	if s.events == nil {
		return nil
	}
	d := ev.Data
	var reason *string
	if d.FailureReason != nil && *d.FailureReason != "" {
		r := clean(*d.FailureReason, maxFailureReasonLen)
		reason = &r
	}
	data := failedPayment{Invoice: inv, PaymentFailure: paymentFailure{
		EventID: clean(ev.ID, maxRefLen), PaymentID: clean(d.PaymentID, maxRefLen),
		Amount: d.Amount, Currency: inv.Currency, FailureReason: reason,
	}}
	return s.events.Record(ctx, inv.TenantID, event.InvoicePaymentFailed, "invoice", inv.ID, data)
}
