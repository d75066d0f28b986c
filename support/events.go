package support

import (
	"context"
)

// Events records the audit trail's events: Record writes one event of type
// typ about a resource of tenantID, with data (the resource after the
// change), on the transaction ctx carries. *event.Recorder implements it.
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// WithEvents makes the service record an event for every change of a
// ticket, in the transaction of the change: ticket.created,
// ticket.updated (status, priority, tags, assignee), ticket.commented,
// ticket.rated and ticket.sla_breached (by the scheduler: the system).
// tenantkit.New always passes one; a Service without it records nothing.
func WithEvents(e Events) Option { return func(s *Service) { s.events = e } }

// record writes the event typ about the tenant's ticket ticketID.
func (s *Service) record(ctx context.Context, tenantID, typ, ticketID string, data any) error {
	if s.events == nil {
		return nil
	}
	return s.events.Record(ctx, tenantID, typ, "ticket", ticketID, data)
}
