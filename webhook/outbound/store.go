package outbound

import (
	"context"
	"time"
)

// StoredEndpoint is an Endpoint as a Store keeps it: with its secrets,
// sealed by a Sealer. It never leaves the package's services.
type StoredEndpoint struct {
	Endpoint
	// Secret is the current signing secret, sealed.
	Secret string
	// PreviousSecret is the secret before the last rotation, sealed; ""
	// when there is none. It signs until PreviousSecretExpiresAt.
	PreviousSecret string
}

// NewDelivery is a delivery to store: pending, due at once.
type NewDelivery struct {
	Delivery
	// TenantID owns the delivery (the endpoint's tenant).
	TenantID string
	// Payload is the request body every attempt sends.
	Payload []byte
}

// Job is what one attempt of a delivery needs.
type Job struct {
	// Delivery is the delivery, without its attempts.
	Delivery Delivery
	// TenantID owns the delivery.
	TenantID string
	// Attempts counts the attempts made so far; RoundStart is how many
	// had been made when the current round of the schedule began (0, or
	// the count at the last Retry).
	Attempts, RoundStart int
	// Retries counts the delivery's retries: a Retry while the attempt
	// runs changes it, which RecordAttempt notices.
	Retries int
	// Payload is the request body.
	Payload []byte
	// Endpoint is the delivery's endpoint.
	Endpoint StoredEndpoint
}

// AttemptRecord is one attempt and what it made of its delivery.
type AttemptRecord struct {
	// TenantID is the delivery's tenant, whose attempt it records.
	TenantID   string
	DeliveryID string
	Attempt    Attempt
	// Status is the delivery's status after the attempt.
	Status string
	// NextAttemptAt is when the next attempt is due; nil unless pending.
	NextAttemptAt *time.Time
	// Retries is the delivery's Job.Retries when the attempt began.
	Retries int
}

// Page selects a page of a list, newest first.
type Page struct {
	// Before is the cursor: only ids before it.
	Before string
	// Limit is the page size, already clamped by the caller.
	Limit int
}

// EndpointStore keeps the tenants' endpoints and their health. Every
// method joins the transaction ctx carries. Methods given a tenantID see
// only that tenant's rows: another tenant's id is ErrNotFound.
// outboundtest.Run checks an implementation.
type EndpointStore interface {
	// CreateEndpoint inserts e.
	CreateEndpoint(ctx context.Context, e StoredEndpoint) error
	// CountEndpoints returns how many endpoints the tenant has, and makes
	// another transaction's CountEndpoints of the same tenant wait until
	// ctx's transaction ends, so that counting then creating keeps
	// MaxEndpoints under concurrent creates.
	CountEndpoints(ctx context.Context, tenantID string) (int, error)
	// Endpoint returns the tenant's endpoint; ErrNotFound.
	Endpoint(ctx context.Context, tenantID, id string) (StoredEndpoint, error)
	// Endpoints returns a page of the tenant's endpoints, newest first,
	// and whether more follow.
	Endpoints(ctx context.Context, tenantID string, p Page) ([]Endpoint, bool, error)
	// UpdateEndpoint writes every field of e, the tenant's endpoint;
	// ErrNotFound.
	UpdateEndpoint(ctx context.Context, e StoredEndpoint) error
	// DeleteEndpoint removes the tenant's endpoint with its deliveries
	// and their attempts; ErrNotFound.
	DeleteEndpoint(ctx context.Context, tenantID, id string) error
	// EnabledEndpoints returns the tenant's enabled endpoints (their ids
	// and event types at least) in one query: it runs for every event.
	EnabledEndpoints(ctx context.Context, tenantID string) ([]Endpoint, error)
	// MarkFailing sets the endpoint's failing_since to at unless it is
	// set, and returns what it holds afterwards; ErrNotFound.
	MarkFailing(ctx context.Context, endpointID string, at time.Time) (time.Time, error)
	// MarkHealthy clears the endpoint's failing_since.
	MarkHealthy(ctx context.Context, endpointID string) error
	// DisableEndpoint disables the endpoint, if enabled, with reason, and
	// reports whether it did (false: it was disabled already).
	DisableEndpoint(ctx context.Context, endpointID, reason string, at time.Time) (bool, error)
}

// DeliveryStore keeps deliveries and their attempts, under the same rules
// as EndpointStore.
type DeliveryStore interface {
	// CreateDeliveries inserts ds.
	CreateDeliveries(ctx context.Context, ds []NewDelivery) error
	// Delivery returns the tenant's delivery with its attempts, oldest
	// first; ErrNotFound.
	Delivery(ctx context.Context, tenantID, id string) (Delivery, error)
	// Deliveries returns a page of the deliveries to one of the tenant's
	// endpoints, newest first, each with its attempts, and whether more
	// follow.
	Deliveries(ctx context.Context, tenantID, endpointID string, p Page) ([]Delivery, bool, error)
	// Job returns what an attempt of the delivery needs, whoever's it is
	// (the queue knows only the id); ErrNotFound.
	Job(ctx context.Context, deliveryID string) (Job, error)
	// RecordAttempt stores r.Attempt and sets the delivery's status and
	// next attempt, provided the delivery is pending and the attempt's
	// number is the next one; ErrConflict otherwise (another attempt got
	// there first), with nothing written. It returns when the next
	// attempt is due, nil unless the delivery stays pending.
	//
	// A failed attempt of a delivery retried while it ran (its retries
	// are no longer r.Retries) leaves the retry in charge: the delivery stays
	// pending, due when RetryDelivery made it due, and its new round
	// starts after this attempt. A successful one succeeds the delivery
	// whatever its round.
	RecordAttempt(ctx context.Context, r AttemptRecord) (*time.Time, error)
	// RetryDelivery makes the tenant's delivery that has not succeeded
	// pending, due at at, starting a new round of the schedule (its retries
	// go up by one), and returns how many attempts it has had: the
	// next is that number plus one. ErrConflict when it has succeeded,
	// ErrNotFound.
	RetryDelivery(ctx context.Context, tenantID, id string, at time.Time) (int, error)
	// FailPending fails every pending delivery of the endpoint and
	// returns how many.
	FailPending(ctx context.Context, endpointID string, at time.Time) (int64, error)
}
