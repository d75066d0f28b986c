package contract

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

// WithEvents makes the service record an event for every change of a
// contract request, in the transaction of the change:
// contract_request.submitted, .cancelled, .approved, .rejected and
// .applied (an approval effective immediately records both approved and
// applied). tenantkit.New always passes one; a Service without it records
// nothing.
func WithEvents(e Events) Option { return func(s *Service) { s.events = e } }

// record writes the event typ about req.
func (s *Service) record(ctx context.Context, typ string, req Request) error {
	if s.events == nil {
		return nil
	}
	return s.events.Record(ctx, req.TenantID, typ, "contract_request", req.ID, req)
}

// recordTransition writes the events of the transition action that left
// req in its status.
func (s *Service) recordTransition(ctx context.Context, action string, req Request) error {
	var types []string
	switch {
	case action == "cancel":
		types = []string{event.ContractRequestCancelled}
	case action == "approve":
		types = []string{event.ContractRequestApproved}
		if req.Status == RequestApplied {
			types = append(types, event.ContractRequestApplied)
		}
	case req.Status == RequestRejected:
		types = []string{event.ContractRequestRejected}
	case req.Status == RequestApplied:
		types = []string{event.ContractRequestApplied}
	}
	for _, typ := range types {
		if err := s.record(ctx, typ, req); err != nil {
			return err
		}
	}
	return nil
}
