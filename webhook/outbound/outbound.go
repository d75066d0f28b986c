// Package outbound tells a tenant's own systems what happened: it delivers
// the events of the audit trail (package tenancy/event) to the webhook
// endpoints the tenant registered, signed with Standard Webhooks
// (https://www.standardwebhooks.com), at least once.
//
// The pieces, from the inside out:
//
//   - Endpoint is a URL a tenant registered, with the event types it wants
//     and a signing secret ("whsec_…") shown once, encrypted at rest.
//   - Delivery is one event on its way to one endpoint; every try is an
//     Attempt (status, HTTP code, latency, the start of the response).
//   - Service manages endpoints and deliveries for the HTTP API and the
//     portal, fans every recorded event out to the matching endpoints on
//     the event's own transaction (Dispatch), and makes one attempt when
//     the queue asks (Attempt).
//   - Queue is the durable job queue in the same database that schedules
//     attempts; package outbound/riverqueue implements it with River.
//   - Guard keeps deliveries off private networks (SSRF), at registration
//     and again at every connection.
package outbound

import (
	"context"
	"time"
)

// Endpoint is a URL to which a tenant's events are delivered.
type Endpoint struct {
	// ID is "wep_…".
	ID string `json:"id"`
	// TenantID is the tenant that registered it.
	TenantID string `json:"-"`
	// URL receives the deliveries as POST requests: https, resolving to
	// public addresses, unless the operator allowed the host.
	URL string `json:"url"`
	// Description is the tenant's note about the endpoint.
	Description string `json:"description"`
	// EventTypes are the event types delivered; empty delivers every type.
	EventTypes []string `json:"event_types"`
	// Enabled endpoints receive deliveries. The tenant switches it; the
	// queue switches it off when deliveries have failed for DisableAfter.
	Enabled bool `json:"enabled"`
	// DisabledReason says why a disabled endpoint is: "tenant" or
	// "failing"; empty while enabled.
	DisabledReason string `json:"disabled_reason,omitempty"`
	// SecretRotatedAt is when the secret was last rotated; the previous
	// secret still signs until PreviousSecretExpiresAt.
	SecretRotatedAt         *time.Time `json:"secret_rotated_at,omitempty"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at,omitempty"`
	// FailingSince is when the current run of failed attempts began; nil
	// after a success.
	FailingSince *time.Time `json:"failing_since,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// The states of a Delivery.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// Delivery is one event on its way to one endpoint. Its ID is the
// webhook-id header of every attempt, the receiver's key to drop
// duplicates: delivery is at least once.
type Delivery struct {
	// ID is "whd_…".
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
	// EventID is the event delivered ("evt_…"); empty for a test event.
	EventID   string `json:"event_id,omitempty"`
	EventType string `json:"event_type"`
	// Status is pending, succeeded or failed.
	Status string `json:"status"`
	// Attempts are the tries so far, oldest first.
	Attempts []Attempt `json:"attempts"`
	// NextAttemptAt is when the queue tries again; nil unless pending.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

// Attempt is one try of a Delivery.
type Attempt struct {
	// Number counts from 1.
	Number int `json:"number"`
	// Status is "succeeded" (a 2xx answer) or "failed".
	Status string `json:"status"`
	// HTTPStatus is the receiver's status code; 0 when none came (refused,
	// timed out, blocked address).
	HTTPStatus int `json:"http_status"`
	// LatencyMS is how long the request took, in milliseconds.
	LatencyMS int64 `json:"latency_ms"`
	// Response is the start of the receiver's answer (at most
	// MaxResponseBytes), or why no answer came.
	Response    string    `json:"response"`
	AttemptedAt time.Time `json:"attempted_at"`
}

// Outcome is what Service.Attempt tells the queue: Done when the delivery
// needs no more attempts (it succeeded, finally failed, or its endpoint is
// gone or disabled), otherwise the time of the next attempt.
type Outcome struct {
	Done    bool
	RetryAt time.Time
}

// Scheduled is one attempt for a Queue to make: attempt Number (from 1)
// of the delivery, due At.
type Scheduled struct {
	DeliveryID string
	Number     int
	At         time.Time
}

// Queue schedules attempts in a durable job queue in the same database.
// Enqueue joins the transaction ctx carries: an attempt is scheduled
// exactly when the change that caused it commits (a new delivery, a
// retry, the failed attempt before it).
//
// A Queue keeps at most one job per delivery and attempt number waiting
// or running, and runs each job on one worker at a time: with
// Service.AttemptNumber refusing an attempt that is no longer the
// delivery's next, no delivery is ever attempted twice at once.
type Queue interface {
	// Enqueue schedules each attempt. An attempt scheduled already (same
	// delivery and number) is not added again: it is made due at once
	// when the new one is due now (a retry), and one that is running is
	// left to finish.
	Enqueue(ctx context.Context, attempts ...Scheduled) error
}
