package webhook

import (
	"context"
	"time"

	"github.com/tenantkit/tenantkit/tenancy/event"
)

// Events records the audit trail's events: Record writes one event of type
// typ about a resource of tenantID ("" for the platform's own), with data
// (the resource after the change), on the transaction ctx carries.
// *event.Recorder (package tenancy/event) implements it.
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// WithEvents makes the Settlement of the service record an event for every
// operator's settlement, in the transaction of the settlement:
// payment_event.applied (of the invoice's tenant) and
// payment_event.dismissed (a platform event: no tenant). tenantkit.New
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
