package support

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Sentinel errors of the support domain. Service methods wrap them with
// context; match them with errors.Is. A client is shown the error's own
// sentence, never the context wrapped around it. Errors from Entitlements
// (a disabled module, a used-up allowance) pass through wrapped, so they
// still match tenancy.ErrModuleDisabled and tenancy.ErrLimitExceeded.
var (
	// ErrNotFound: the ticket does not exist, or belongs to another tenant
	// (which is indistinguishable on purpose).
	ErrNotFound = errors.New("ticket not found")
	// ErrConflict: the change does not fit the ticket's current state (an
	// illegal transition, a closed ticket), or a unique id or number is
	// already taken.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: input failed validation; see InvalidError for the fields.
	ErrInvalid = errors.New("invalid input")
)

// InvalidError lists the fields that failed validation, keyed by their JSON
// path ("subject", "tags[2]", "requester.id") or, for list filters, by
// their query parameter ("status", "cursor"), each with a message that
// follows the field name ("must have at most 200 characters"). It matches
// ErrInvalid with errors.Is.
type InvalidError struct {
	Fields map[string]string
}

// Error implements error, listing the fields in a stable order.
func (e *InvalidError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("invalid input:")
	for _, k := range keys {
		b.WriteString(" " + k + " " + e.Fields[k] + ";")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// FieldErrors returns field path → message, for the HTTP edge.
func (e *InvalidError) FieldErrors() map[string]string { return e.Fields }

// conflictError is ErrConflict worded for the case at hand ("ticket is
// closed, which is final"). It matches ErrConflict.
type conflictError struct{ msg string }

// conflict returns a conflictError with the formatted sentence.
func conflict(format string, args ...any) error {
	return &conflictError{msg: fmt.Sprintf(format, args...)}
}

// Error implements error.
func (e *conflictError) Error() string { return e.msg }

// Detail is the sentence a client is shown.
func (e *conflictError) Detail() string { return e.msg }

// Is makes errors.Is(err, ErrConflict) true.
func (e *conflictError) Is(target error) bool { return target == ErrConflict }

// fieldErrors collects validation failures; the first message per field wins.
type fieldErrors map[string]string

func (f fieldErrors) add(field, msg string) {
	if _, ok := f[field]; !ok {
		f[field] = msg
	}
}

// err returns nil when nothing failed, else an *InvalidError. Returning a
// typed nil would make a non-nil error, hence the explicit nil.
func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &InvalidError{Fields: f}
}
