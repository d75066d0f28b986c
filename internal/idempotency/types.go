package idempotency

import "errors"

// Scope is where an Idempotency-Key is unique: per tenant and credential.
type Scope struct {
	TenantID   string
	Credential string
	Key        string
}

// Response is a response kept for replay.
type Response struct {
	Status      int
	ContentType string
	Location    string
	Body        []byte
}

// Errors Do returns.
var (
	// ErrKeyReused: the key was used with another request body.
	ErrKeyReused = errors.New("this Idempotency-Key was used with a different request")
	// ErrInProgress: the first request with this key has not finished.
	ErrInProgress = errors.New("a request with this Idempotency-Key is still in progress")
)
