package field

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Patch is one member of a JSON merge patch (RFC 7396): left out (the
// zero Patch: unchanged), sent as null (Null: cleared), or sent with a
// value. Pointers cannot tell a member left out from one sent as null;
// Patch decodes itself so that it can. billing.Patch is this type.
type Patch[T any] struct {
	// Set reports that the member was sent, as a value or as null.
	Set bool
	// Null reports that it was sent as null.
	Null bool
	// Value is what was sent; the zero T when Null.
	Value T
}

// PatchTo returns the Patch that sets a member to v.
func PatchTo[T any](v T) Patch[T] { return Patch[T]{Set: true, Value: v} }

// PatchNull returns the Patch that clears a member.
func PatchNull[T any]() Patch[T] { return Patch[T]{Set: true, Null: true} }

// UnmarshalJSON implements json.Unmarshaler: null clears, anything else is
// decoded as a T.
func (p *Patch[T]) UnmarshalJSON(b []byte) error {
	*p = Patch[T]{Set: true}
	if bytes.Equal(b, []byte("null")) {
		p.Null = true
		return nil
	}
	if err := json.Unmarshal(b, &p.Value); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Offset = 0 // into this member, not the body: unknown
		}
		return err
	}
	return nil
}

// MarshalJSON implements json.Marshaler: null when Null or not Set, else
// the value. Leave a member out with the struct tag option omitzero.
func (p Patch[T]) MarshalJSON() ([]byte, error) {
	if p.Null || !p.Set {
		return []byte("null"), nil
	}
	return json.Marshal(p.Value)
}

// Apply returns what the member becomes: cur when left out, nil when
// cleared, the value sent otherwise.
func (p Patch[T]) Apply(cur *T) *T {
	switch {
	case !p.Set:
		return cur
	case p.Null:
		return nil
	}
	v := p.Value
	return &v
}
