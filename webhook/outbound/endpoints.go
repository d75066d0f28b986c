package outbound

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// MaxEndpoints is the most endpoints one tenant registers: every event of
// the tenant is delivered to each of its endpoints.
const MaxEndpoints = 20

// Why an endpoint is disabled (Endpoint.DisabledReason).
const (
	DisabledByTenant = "tenant"
	DisabledFailing  = "failing"
)

// CreateEndpointInput is a new endpoint. Its tags state the rules of each
// field on its own; the Guard then decides whether the URL may be called,
// and the event types are made unique.
type CreateEndpointInput struct {
	// URL is required: https (http only for hosts the operator allowed),
	// at most 2048 characters, resolving to public addresses. Tabs and
	// line breaks pass the tag and are the Guard's to refuse.
	URL string `json:"url" validate:"required,max=2048,text"`
	// Description is optional, at most 500 characters.
	Description string `json:"description" validate:"max=500,text"`
	// EventTypes are known event types (event.Types), at most 50; empty
	// delivers every type.
	EventTypes []string `json:"event_types" validate:"max=50,dive,event_type"`
	// Enabled defaults to true.
	Enabled *bool `json:"enabled"`
}

// UpdateEndpointInput changes an endpoint; nil fields keep their value.
// The rules are CreateEndpointInput's.
type UpdateEndpointInput struct {
	URL         *string   `json:"url" validate:"omitnil,min=1,max=2048,text"`
	Description *string   `json:"description" validate:"omitnil,max=500,text"`
	EventTypes  *[]string `json:"event_types" validate:"omitnil,max=50,dive,event_type"`
	// Enabled switches the endpoint; enabling one disabled for failing
	// gives it a fresh start.
	Enabled *bool `json:"enabled"`
}

// check answers what is wrong with in, a CreateEndpointInput or an
// UpdateEndpointInput whose URL and event types are url and types (nil
// when not given), as a *field.InvalidError; else the event types sorted
// without repeats.
func (s *Service) check(ctx context.Context, in any, url *string, types *[]string) ([]string, error) {
	errs := field.Errors{}
	errs.Merge(field.Check(in))
	if _, bad := errs["url"]; url != nil && !bad {
		if err := s.guard.CheckURL(ctx, *url); err != nil {
			errs.Add("url", field.Invalid, err.Error())
		}
	}
	var sorted []string
	if types != nil {
		sorted = slices.Compact(slices.Sorted(slices.Values(*types)))
		if sorted == nil {
			sorted = []string{}
		}
	}
	return sorted, errs.Err()
}

// CreateEndpoint registers an endpoint for the tenant and returns it with
// its secret, which is never shown again. *field.InvalidError (fields
// "url", "description", "event_types[i]"); ErrNotConfigured without a
// secret key. Records webhook_endpoint.created.
func (s *Service) CreateEndpoint(ctx context.Context, tenantID string, in CreateEndpointInput) (Endpoint, string, error) {
	if s.sealer == nil {
		return Endpoint{}, "", ErrNotConfigured
	}
	types, err := s.check(ctx, in, &in.URL, &in.EventTypes)
	if err != nil {
		return Endpoint{}, "", err
	}
	now := s.nowUTC()
	e := StoredEndpoint{Endpoint: Endpoint{
		ID: id.New(id.WebhookEndpoint), TenantID: tenantID, URL: in.URL, Description: in.Description,
		EventTypes: types, Enabled: in.Enabled == nil || *in.Enabled, CreatedAt: now, UpdatedAt: now,
	}}
	if !e.Enabled {
		e.DisabledReason = DisabledByTenant
	}
	secret, err := newSecret()
	if err != nil {
		return Endpoint{}, "", err
	}
	if e.Secret, err = s.sealer.seal(e.ID, secret); err != nil {
		return Endpoint{}, "", err
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		n, err := s.endpoints.CountEndpoints(ctx, tenantID)
		if err != nil {
			return err
		}
		if n >= MaxEndpoints {
			return &StatusError{Reason: fmt.Sprintf("a tenant registers at most %d webhook endpoints: delete one before adding another", MaxEndpoints)}
		}
		if err := s.endpoints.CreateEndpoint(ctx, e); err != nil {
			return err
		}
		return s.record(ctx, event.WebhookEndpointCreated, e.Endpoint)
	})
	if err != nil {
		return Endpoint{}, "", fmt.Errorf("outbound: create endpoint: %w", err)
	}
	return e.Endpoint, secret, nil
}

// Endpoints returns a page of the tenant's endpoints, newest first, and
// whether more follow. limit is clamped to 1..100 (20 when 0).
func (s *Service) Endpoints(ctx context.Context, tenantID string, limit int, before string) ([]Endpoint, bool, error) {
	es, more, err := s.endpoints.Endpoints(ctx, tenantID, Page{Before: before, Limit: clamp(limit)})
	if err != nil {
		return nil, false, fmt.Errorf("outbound: list endpoints: %w", err)
	}
	return es, more, nil
}

// Endpoint returns the tenant's endpoint; ErrNotFound.
func (s *Service) Endpoint(ctx context.Context, tenantID, endpointID string) (Endpoint, error) {
	e, err := s.endpoint(ctx, tenantID, endpointID)
	return e.Endpoint, err
}

func (s *Service) endpoint(ctx context.Context, tenantID, endpointID string) (StoredEndpoint, error) {
	if !id.Valid(id.WebhookEndpoint, endpointID) || tenantID == "" {
		return StoredEndpoint{}, ErrNotFound
	}
	e, err := s.endpoints.Endpoint(ctx, tenantID, endpointID)
	if err != nil {
		return StoredEndpoint{}, fmt.Errorf("outbound: endpoint %s: %w", endpointID, err)
	}
	return e, nil
}

// UpdateEndpoint changes the tenant's endpoint. Disabling it fails its
// pending deliveries; enabling it clears its failure record.
// *field.InvalidError as CreateEndpoint; ErrNotFound. Records
// webhook_endpoint.updated.
func (s *Service) UpdateEndpoint(ctx context.Context, tenantID, endpointID string, in UpdateEndpointInput) (Endpoint, error) {
	types, err := s.check(ctx, in, in.URL, in.EventTypes)
	if err != nil {
		return Endpoint{}, err
	}
	var out Endpoint
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.endpoint(ctx, tenantID, endpointID)
		if err != nil {
			return err
		}
		now := s.nowUTC()
		if in.URL != nil {
			e.URL = *in.URL
		}
		if in.Description != nil {
			e.Description = *in.Description
		}
		if in.EventTypes != nil {
			e.EventTypes = types
		}
		disabling := false
		if in.Enabled != nil && *in.Enabled != e.Enabled {
			e.Enabled = *in.Enabled
			disabling = !e.Enabled
			e.DisabledReason, e.FailingSince = "", nil
			if disabling {
				e.DisabledReason = DisabledByTenant
			}
		}
		e.UpdatedAt = now
		if err := s.endpoints.UpdateEndpoint(ctx, e); err != nil {
			return err
		}
		if disabling {
			if _, err := s.deliveries.FailPending(ctx, e.ID, now); err != nil {
				return err
			}
		}
		out = e.Endpoint
		return s.record(ctx, event.WebhookEndpointUpdated, out)
	})
	if err != nil {
		return Endpoint{}, fmt.Errorf("outbound: update endpoint %s: %w", endpointID, err)
	}
	return out, nil
}

// DeleteEndpoint removes the tenant's endpoint with its deliveries;
// ErrNotFound. Records webhook_endpoint.deleted.
func (s *Service) DeleteEndpoint(ctx context.Context, tenantID, endpointID string) error {
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.endpoint(ctx, tenantID, endpointID)
		if err != nil {
			return err
		}
		if err := s.endpoints.DeleteEndpoint(ctx, tenantID, endpointID); err != nil {
			return err
		}
		return s.record(ctx, event.WebhookEndpointDeleted, e.Endpoint)
	})
	if err != nil {
		return fmt.Errorf("outbound: delete endpoint %s: %w", endpointID, err)
	}
	return nil
}

// RotateSecret gives the tenant's endpoint a new secret, returned once.
// The old one keeps signing beside it for SecretOverlap (both signatures
// in webhook-signature); a secret rotated out earlier is dropped at once.
// ErrNotFound; ErrNotConfigured. Records webhook_endpoint.secret_rotated.
func (s *Service) RotateSecret(ctx context.Context, tenantID, endpointID string) (Endpoint, string, error) {
	if s.sealer == nil {
		return Endpoint{}, "", ErrNotConfigured
	}
	secret, err := newSecret()
	if err != nil {
		return Endpoint{}, "", err
	}
	var out Endpoint
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.endpoint(ctx, tenantID, endpointID)
		if err != nil {
			return err
		}
		now := s.nowUTC()
		sealed, err := s.sealer.seal(e.ID, secret)
		if err != nil {
			return err
		}
		expires := now.Add(SecretOverlap)
		e.PreviousSecret, e.Secret = e.Secret, sealed
		e.SecretRotatedAt, e.PreviousSecretExpiresAt, e.UpdatedAt = &now, &expires, now
		if err := s.endpoints.UpdateEndpoint(ctx, e); err != nil {
			return err
		}
		out = e.Endpoint
		return s.record(ctx, event.WebhookEndpointSecretRotated, out)
	})
	if err != nil {
		return Endpoint{}, "", fmt.Errorf("outbound: rotate secret of %s: %w", endpointID, err)
	}
	return out, secret, nil
}

// TestEventType is the type of the deliveries SendTest makes; no endpoint
// filter applies to it.
const TestEventType = "webhook.test"

// SendTest makes a delivery of type webhook.test to the tenant's endpoint
// and schedules it. ErrNotFound; a *StatusError ("disabled") for a
// disabled endpoint.
func (s *Service) SendTest(ctx context.Context, tenantID, endpointID string) (Delivery, error) {
	var out Delivery
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.endpoint(ctx, tenantID, endpointID)
		if err != nil {
			return err
		}
		if !e.Enabled {
			return &StatusError{Status: "disabled", Reason: "the endpoint is disabled; enable it first"}
		}
		now := s.nowUTC()
		body, err := encodePayload(TestEventType, now, map[string]string{
			"endpoint_id": e.ID, "message": "a test delivery from tenantkit"})
		if err != nil {
			return err
		}
		d := newDelivery(tenantID, e.ID, "", TestEventType, body, now)
		if err := s.deliveries.CreateDeliveries(ctx, []NewDelivery{d}); err != nil {
			return err
		}
		out = d.Delivery
		return s.enqueue(ctx, first(d))
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("outbound: test %s: %w", endpointID, err)
	}
	return out, nil
}

// Deliveries returns a page of the deliveries to the tenant's endpoint,
// newest first, each with its attempts; ErrNotFound for an endpoint the
// tenant does not have.
func (s *Service) Deliveries(ctx context.Context, tenantID, endpointID string, limit int, before string) ([]Delivery, bool, error) {
	if _, err := s.endpoint(ctx, tenantID, endpointID); err != nil {
		return nil, false, err
	}
	ds, more, err := s.deliveries.Deliveries(ctx, tenantID, endpointID, Page{Before: before, Limit: clamp(limit)})
	if err != nil {
		return nil, false, fmt.Errorf("outbound: deliveries of %s: %w", endpointID, err)
	}
	return ds, more, nil
}

// Retry makes the next attempt of the tenant's pending or failed delivery
// due at once, starting a new round of the schedule, and schedules it.
// A pending delivery's scheduled attempt is brought forward, not doubled;
// when an attempt is running, Retry waits for nothing: that attempt, if it
// fails, is followed at once by the next (RecordAttempt sees the retry).
// endpointID, when not "", must be the delivery's endpoint. ErrNotFound;
// a *StatusError ("succeeded") when it has succeeded, since a delivery is
// delivered once; ("disabled") when its endpoint is disabled.
func (s *Service) Retry(ctx context.Context, tenantID, endpointID, deliveryID string) (Delivery, error) {
	if !id.Valid(id.WebhookDelivery, deliveryID) || tenantID == "" {
		return Delivery{}, ErrNotFound
	}
	var out Delivery
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		d, err := s.deliveries.Delivery(ctx, tenantID, deliveryID)
		if err != nil {
			return err
		}
		if endpointID != "" && d.EndpointID != endpointID {
			return ErrNotFound
		}
		if d.Status == DeliverySucceeded {
			return errSucceeded
		}
		e, err := s.endpoint(ctx, tenantID, d.EndpointID)
		if err != nil {
			return err
		}
		if !e.Enabled {
			return &StatusError{Status: "disabled", Reason: "the delivery's endpoint is disabled; enable it first"}
		}
		now := s.nowUTC()
		attempts, err := s.deliveries.RetryDelivery(ctx, tenantID, deliveryID, now)
		if errors.Is(err, ErrConflict) {
			// It succeeded since it was read.
			return errSucceeded
		}
		if err != nil {
			return err
		}
		if len(d.Attempts) != attempts {
			// An attempt was recorded since it was read: read it again.
			if d, err = s.deliveries.Delivery(ctx, tenantID, deliveryID); err != nil {
				return err
			}
		}
		d.Status, d.NextAttemptAt, d.UpdatedAt = DeliveryPending, &now, now
		out = d
		return s.enqueue(ctx, Scheduled{DeliveryID: d.ID, Number: attempts + 1, At: now})
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("outbound: retry %s: %w", deliveryID, err)
	}
	return out, nil
}

// errSucceeded refuses a retry of a delivery that has succeeded.
var errSucceeded = &StatusError{Status: DeliverySucceeded,
	Reason: "the delivery has succeeded: it is delivered once, and is not sent again"}

// first is the first attempt of a new delivery, due at once.
func first(d NewDelivery) Scheduled {
	return Scheduled{DeliveryID: d.ID, Number: 1, At: *d.NextAttemptAt}
}

// newDelivery is a pending delivery due at now.
func newDelivery(tenantID, endpointID, eventID, typ string, body []byte, now time.Time) NewDelivery {
	return NewDelivery{
		Delivery: Delivery{ID: id.New(id.WebhookDelivery), EndpointID: endpointID, EventID: eventID,
			EventType: typ, Status: DeliveryPending, Attempts: []Attempt{}, NextAttemptAt: &now,
			CreatedAt: now, UpdatedAt: now},
		TenantID: tenantID, Payload: body,
	}
}

// clamp bounds a page size: 20 when 0, 1..100.
func clamp(limit int) int {
	switch {
	case limit <= 0:
		return 20
	case limit > 100:
		return 100
	}
	return limit
}
