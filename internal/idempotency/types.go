package idempotency

import "github.com/tenantkit/tenantkit/httpapi"

// The types and errors of httpapi.IdempotencyStore, under the names this
// package has always used.
type (
	// Scope is where an Idempotency-Key is unique: per tenant and credential.
	Scope = httpapi.IdempotencyScope
	// Response is a response kept for replay.
	Response = httpapi.StoredResponse
)

// Errors Do returns.
var (
	// ErrKeyReused: the key was used with another request body.
	ErrKeyReused = httpapi.ErrIdempotencyKeyReused
	// ErrInProgress: the first request with this key has not finished.
	ErrInProgress = httpapi.ErrIdempotencyInProgress
)
