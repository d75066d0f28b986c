package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tenantkit/tenantkit/field"
)

// Bounds of an event.
const (
	// MaxPayloadBytes is the largest body ParseEvent and Service.Handle
	// accept; the HTTP route refuses larger ones with 413 before reading.
	MaxPayloadBytes = 256 << 10
	// MaxEventIDLen is the longest event id, in bytes (Envelope's tag
	// says the same; a test keeps them equal).
	MaxEventIDLen = 128
	// MaxTypeLen is the longest event type, in bytes (as MaxEventIDLen).
	MaxTypeLen = 100
)

// Envelope is the part of a provider's event every type shares, as the
// body of POST /api/webhooks/payments holds it; its tags are the rules of
// the body (the document's ReceivePaymentEvent states the same). Data
// stays raw: only the types that have an effect say what it must hold.
type Envelope struct {
	ID        string          `json:"id" validate:"required,max=128,token"`
	Type      string          `json:"type" validate:"required,max=100,token"`
	CreatedAt *time.Time      `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// ParseEvent reads a verified body as an Event. Call it only once the
// signature holds: the body is untrusted until then.
//
// The body must be one UTF-8 JSON object with a string "id" (1 to
// MaxEventIDLen printable ASCII characters), a string "type" (the same, up
// to MaxTypeLen) and, when present, "created_at" in RFC 3339. For the
// Type* constants "data" must be an object (or absent, or null) whose
// fields have the types of EventData. Unknown fields are ignored, since a
// provider adds fields without notice; whether the data names a known
// invoice, a positive amount or the right currency is not checked here
// (Service.Handle records such events as unmatched).
//
// Every failure wraps ErrMalformed.
func ParseEvent(body []byte) (Event, error) {
	ev, err := parseEvent(body)
	if err != nil {
		return Event{}, fmt.Errorf("%w: %s", ErrMalformed, err)
	}
	return ev, nil
}

func parseEvent(body []byte) (Event, error) {
	if len(body) > MaxPayloadBytes {
		return Event{}, fmt.Errorf("body is larger than %d bytes", MaxPayloadBytes)
	}
	// The inbox keeps the body as text; Go's decoder would let invalid
	// UTF-8 through, which Postgres would then refuse.
	if !utf8.Valid(body) {
		return Event{}, errors.New("body is not UTF-8")
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Event{}, errors.New("body is not a JSON object")
	}
	var env Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return Event{}, describe(err)
	}
	if err := field.Check(env); err != nil {
		return Event{}, sentence(err)
	}
	ev := Event{ID: env.ID, Type: env.Type}
	if env.CreatedAt != nil {
		ev.CreatedAt = env.CreatedAt.UTC()
	}
	if hasEffect(ev.Type) && len(env.Data) > 0 {
		if err := json.Unmarshal(env.Data, &ev.Data); err != nil {
			return Event{}, fmt.Errorf("data: %w", describe(err))
		}
	}
	return ev, nil
}

// hasEffect reports whether events of type t change anything.
func hasEffect(t string) bool {
	switch t {
	case TypePaymentSucceeded, TypePaymentFailed, TypePaymentRefunded:
		return true
	}
	return false
}

// checkToken says what is wrong with an id or type, or "".
func checkToken(s string, maxLen int) string {
	if s == "" {
		return "is required"
	}
	if len(s) > maxLen {
		return fmt.Sprintf("is longer than %d bytes", maxLen)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return "must be printable ASCII without spaces"
		}
	}
	return ""
}

// describe turns a decoding error into a message fit for the provider:
// where the JSON broke, or which field had the wrong type.
func describe(err error) error {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("invalid JSON at offset %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Errorf("%s must be a %s, not a JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Errorf("a value must be a %s, not a JSON %s", typeErr.Type, typeErr.Value)
	}
	return err
}

// sentence words the first refused field of a *field.InvalidError as the
// one sentence a malformed body gets: "id must be printable ASCII without
// spaces".
func sentence(err error) error {
	var ie *field.InvalidError
	if errors.As(err, &ie) {
		fe := ie.Errors()[0]
		return errors.New(fe.Field + " " + fe.Message)
	}
	return err
}
