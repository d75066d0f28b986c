package outbound

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tenantkit/tenantkit/event"
)

var _ event.Subscriber = (*Service)(nil)

// payload is the body of every delivery, as Standard Webhooks writes it.
type payload struct {
	// Type is the event's type.
	Type string `json:"type"`
	// Timestamp is when the event happened.
	Timestamp time.Time `json:"timestamp"`
	// Data is the event, as GET /api/events/{id} shows it.
	Data any `json:"data"`
}

func encodePayload(typ string, at time.Time, data any) ([]byte, error) {
	b, err := json.Marshal(payload{Type: typ, Timestamp: at.UTC(), Data: data})
	if err != nil {
		return nil, fmt.Errorf("outbound: encode %s: %w", typ, err)
	}
	return b, nil
}

// Matches reports whether e's filter takes events of type typ.
func (e Endpoint) Matches(typ string) bool {
	return len(e.EventTypes) == 0 || slices.Contains(e.EventTypes, typ)
}

// Dispatch fans e out to its tenant's enabled endpoints whose filter
// takes its type: one delivery each, holding the payload, scheduled on
// the Queue — all on ctx's transaction, the event's own, so that a change
// that rolls back delivers nothing and one that commits delivers. It is
// the event.Subscriber that tenantkit.New subscribes to the Recorder, and
// runs for every event: one query when the tenant has no matching
// endpoint, and nothing for the platform's own events (no tenant).
func (s *Service) Dispatch(ctx context.Context, e event.Event) error {
	if e.TenantID == "" {
		return nil
	}
	eps, err := s.endpoints.EnabledEndpoints(ctx, e.TenantID)
	if err != nil {
		return fmt.Errorf("outbound: dispatch %s: %w", e.ID, err)
	}
	var ds []NewDelivery
	var body []byte
	for _, ep := range eps {
		if !ep.Matches(e.Type) {
			continue
		}
		if body == nil {
			if body, err = encodePayload(e.Type, e.CreatedAt, e); err != nil {
				return err
			}
		}
		ds = append(ds, newDelivery(e.TenantID, ep.ID, e.ID, e.Type, body, s.nowUTC()))
	}
	if len(ds) == 0 {
		return nil
	}
	if err := s.deliveries.CreateDeliveries(ctx, ds); err != nil {
		return fmt.Errorf("outbound: dispatch %s: %w", e.ID, err)
	}
	as := make([]Scheduled, len(ds))
	for i, d := range ds {
		as[i] = first(d)
	}
	return s.enqueue(ctx, as...)
}
