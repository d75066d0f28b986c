package billing

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Sentinel errors of the billing domain. Service methods wrap them with
// context; match them with errors.Is. The HTTP edge maps ErrNotFound to
// 404, ErrConflict to 409 conflict and ErrInvalid to 422, and shows the
// client the error's own sentence (a typed error's Detail), never the
// context wrapped around it.
var (
	// ErrNotFound: the invoice does not exist, or belongs to another tenant.
	ErrNotFound = errors.New("invoice not found")
	// ErrConflict: the invoice's status does not allow the operation (see
	// TransitionError), or a unique value (id, number) is already taken.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: input failed validation; see InvalidError for the fields.
	ErrInvalid = errors.New("invalid input")
	// ErrCurrencyMismatch: a payment or refund is in another currency than
	// its invoice. Nothing is applied.
	ErrCurrencyMismatch = errors.New("currency does not match the invoice")
)

// InvalidError lists the fields that failed validation, keyed by their
// JSON path ("currency", "line_items[0].quantity", "metadata"). It
// matches ErrInvalid with errors.Is.
type InvalidError struct {
	Fields map[string]string
}

// Error implements error, listing the fields in a stable order.
func (e *InvalidError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("invalid input:")
	for _, k := range keys {
		b.WriteString(" " + k + ": " + e.Fields[k] + ";")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// FieldErrors returns field path → message, for the HTTP edge.
func (e *InvalidError) FieldErrors() map[string]string { return e.Fields }

// fieldErrors collects validation failures; the first message per field wins.
type fieldErrors map[string]string

func (f fieldErrors) add(field, format string, args ...any) {
	if _, ok := f[field]; !ok {
		f[field] = fmt.Sprintf(format, args...)
	}
}

// merge adds the fields of an *InvalidError in err's chain to f.
func (f fieldErrors) merge(err error) {
	var ie *InvalidError
	if errors.As(err, &ie) {
		for k, v := range ie.Fields {
			f.add(k, "%s", v)
		}
	}
}

// err returns the collected failures as an *InvalidError, or nil.
func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &InvalidError{Fields: f}
}

func invalid(field, format string, args ...any) *InvalidError {
	f := fieldErrors{}
	f.add(field, format, args...)
	return &InvalidError{Fields: f}
}

// TransitionError says that an invoice's status does not allow an
// operation, e.g. voiding a paid invoice. It matches ErrConflict.
type TransitionError struct {
	// InvoiceID is the invoice operated on.
	InvoiceID string
	// Status is the invoice's status at the time.
	Status Status
	// Action is what was refused: "finalize", "void", "mark uncollectible",
	// "apply payment", "apply refund".
	Action string
}

// Error implements error: "invoice inv_… is paid, cannot void".
func (e *TransitionError) Error() string {
	return fmt.Sprintf("invoice %s is %s, cannot %s", e.InvoiceID, e.Status, e.Action)
}

// Detail is the sentence a client is shown: "invoice is paid, cannot void".
func (e *TransitionError) Detail() string {
	return fmt.Sprintf("invoice is %s, cannot %s", e.Status, e.Action)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *TransitionError) Is(target error) bool { return target == ErrConflict }
