package billing

import (
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/field"
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
	// ErrInvalid: input failed validation; see InvalidError for the
	// fields. It is field.ErrInvalid, the same error in every domain.
	ErrInvalid = field.ErrInvalid
	// ErrCurrencyMismatch: a payment or refund is in another currency than
	// its invoice. Nothing is applied.
	ErrCurrencyMismatch = errors.New("currency does not match the invoice")
)

// InvalidError lists the fields that failed validation, keyed by their
// JSON path ("currency", "line_items[0].quantity", "metadata"), each with
// the rule it broke and a message; it is the one type every domain uses
// (see package field). It matches ErrInvalid with errors.Is.
type InvalidError = field.InvalidError

// invalid is an *InvalidError about one field, code field.Invalid.
func invalid(path, format string, args ...any) *InvalidError {
	return field.NewInvalidError(path, field.Invalid, fmt.Sprintf(format, args...))
}

// outOfRange is an *InvalidError about one number, code field.OutOfRange.
func outOfRange(path, format string, args ...any) *InvalidError {
	return field.NewInvalidError(path, field.OutOfRange, fmt.Sprintf(format, args...))
}

// TransitionError says that an invoice's status does not allow an
// operation, e.g. voiding a paid invoice. It matches ErrConflict.
type TransitionError struct {
	// InvoiceID is the invoice operated on.
	InvoiceID string
	// Status is the invoice's status at the time.
	Status Status
	// Action is what was refused: "finalize", "void", "mark uncollectible",
	// "edit", "delete", "apply payment", "apply refund", "record a payment".
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

// CurrentStatus is the invoice's status when the move was refused, for the
// client to see what it is in now.
func (e *TransitionError) CurrentStatus() string { return string(e.Status) }
