package billing

import (
	"context"

	"github.com/tenantkit/tenantkit/event"
)

// Events records the audit trail's events: Record writes one event of type
// typ about a resource of tenantID, with data (the resource after the
// change), on the transaction ctx carries. *event.Recorder implements it.
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// WithEvents makes the service (and its Ledger) record an event for every
// change of an invoice, in the transaction of the change: invoice.created,
// .updated, .deleted, .finalized, .voided, .marked_uncollectible, .paid,
// .payment_recorded, .refunded, and those of the collection schedule
// that Dunning takes (by the system): .overdue, .reminder_sent and
// .marked_uncollectible (reason dunning). tenantkit.New always passes one; a
// Service without it records nothing.
func WithEvents(e Events) Option { return func(s *Service) { s.events = e } }

// record writes the event typ about inv, and invoice.paid as well when the
// change paid it (its status was before, and is paid now).
func (s *Service) record(ctx context.Context, typ string, before Status, inv Invoice) error {
	if s.events == nil {
		return nil
	}
	if err := s.events.Record(ctx, inv.TenantID, typ, "invoice", inv.ID, inv); err != nil {
		return err
	}
	if inv.Status == StatusPaid && before != StatusPaid && typ != event.InvoicePaid {
		return s.events.Record(ctx, inv.TenantID, event.InvoicePaid, "invoice", inv.ID, inv)
	}
	return nil
}

// collectionEvent is the data of an invoice.overdue or
// invoice.reminder_sent event: the invoice, and the step of the
// collection schedule that was taken.
type collectionEvent struct {
	Invoice
	CollectionStep string `json:"collection_step"`
	DaysOverdue    int    `json:"days_overdue"`
}

// recordStep writes the event typ of the collection step st taken for
// inv.
func (s *Service) recordStep(ctx context.Context, typ string, inv Invoice, st Step) error {
	if s.events == nil {
		return nil
	}
	data := collectionEvent{Invoice: inv, CollectionStep: st.Name, DaysOverdue: st.Day}
	return s.events.Record(ctx, inv.TenantID, typ, "invoice", inv.ID, data)
}
