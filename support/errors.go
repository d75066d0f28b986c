package support

import (
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/field"
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
	// ErrForbidden: the caller may not do this to the ticket (rating
	// another member's ticket without being an owner or admin).
	ErrForbidden = errors.New("only the ticket's requester or an owner or admin of the tenant may do this")
	// ErrInvalid: input failed validation; see InvalidError for the
	// fields. It is field.ErrInvalid, the same error in every domain.
	ErrInvalid = field.ErrInvalid
)

// InvalidError lists the fields that failed validation, keyed by their JSON
// path ("subject", "tags[2]", "requester.id") or, for list filters, by
// their query parameter ("status", "cursor"), each with the rule it broke
// and a message that follows the field name ("must have at most 200
// characters"); it is the one type every domain uses (see package field).
// It matches ErrInvalid with errors.Is.
type InvalidError = field.InvalidError

// conflictError is ErrConflict worded for the case at hand ("ticket is
// closed, which is final"), with the ticket's status at the time when the
// conflict is about it. It matches ErrConflict.
type conflictError struct {
	msg    string
	status Status // "" when the conflict is not about the status
}

// statusConflict returns a conflictError about a ticket in status, which
// the client is told (CurrentStatus) besides the sentence.
func statusConflict(status Status, format string, args ...any) error {
	return &conflictError{msg: fmt.Sprintf(format, args...), status: status}
}

// Error implements error.
func (e *conflictError) Error() string { return e.msg }

// Detail is the sentence a client is shown.
func (e *conflictError) Detail() string { return e.msg }

// CurrentStatus is the ticket's status when the change was refused, ""
// when the conflict is not about the status. The HTTP edge shows it as the
// problem's current_status.
func (e *conflictError) CurrentStatus() string { return string(e.status) }

// Is makes errors.Is(err, ErrConflict) true.
func (e *conflictError) Is(target error) bool { return target == ErrConflict }

// closedConflict is the refusal of any change to a closed ticket.
func closedConflict() error {
	return statusConflict(StatusClosed, "ticket is closed, which is final")
}
