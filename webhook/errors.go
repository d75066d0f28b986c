package webhook

import "errors"

// Sentinel errors of the webhook domain; match them with errors.Is. The
// HTTP edge answers ErrSignature with 401 and ErrMalformed with 400.
var (
	// ErrSignature: the delivery's signature is missing, malformed, made
	// with none of the configured secrets, or its timestamp is outside
	// the tolerance. Nothing was read or stored.
	ErrSignature = errors.New("invalid webhook signature")
	// ErrMalformed: the verified body is not a JSON event (not UTF-8 JSON,
	// not an object, no usable id or type, a field of the wrong type).
	// Nothing was stored.
	ErrMalformed = errors.New("malformed webhook event")
	// ErrNotFound: the inbox has no event with that id.
	ErrNotFound = errors.New("webhook event not found")
)
