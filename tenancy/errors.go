package tenancy

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
)

// Sentinel errors of the tenancy domain. The services wrap them with
// context; match them with errors.Is. Each message is a sentence a client
// may be shown as it is; the context wrapped around it is for logs.
var (
	// ErrNotFound: the tenant, user, key or membership does not exist, or
	// is not visible to the caller (another tenant's resource is "not found").
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique value (slug, email, membership) is already taken.
	ErrConflict = errors.New("already exists")
	// ErrInvalid: input failed validation; see InvalidError for the
	// fields. It is field.ErrInvalid, the same error in every domain.
	ErrInvalid = field.ErrInvalid
	// ErrUnauthenticated: the credential is unknown, revoked or expired.
	ErrUnauthenticated = errors.New("invalid credential")
	// ErrNotMember: the user is not a member of the tenant they named.
	ErrNotMember = errors.New("you are not a member of this tenant")
	// ErrTenantNotSelected: the caller belongs to several tenants and has
	// not chosen one (POST /api/tenant/select or X-Tenant-ID).
	ErrTenantNotSelected = errors.New("no active tenant selected; choose one with POST /api/tenant/select or the X-Tenant-ID header")
	// ErrNoTenant: the caller belongs to no tenant at all.
	ErrNoTenant = errors.New("you are not a member of any tenant")
	// ErrForbidden: the caller's role lacks the permission.
	ErrForbidden = errors.New("your role does not allow this")
	// ErrModuleDisabled: the module behind an operation is off for the
	// tenant. The services return a *ModuleDisabledError, which names
	// the module and matches it.
	ErrModuleDisabled = errors.New("module disabled for this tenant")
	// ErrLimitExceeded: consuming would pass the tenant's entitlement
	// limit. The services return a *LimitError, which says which limit
	// and matches it.
	ErrLimitExceeded = errors.New("entitlement limit exceeded")
)

// ModuleDisabledError says that a module is off for a tenant. It matches
// ErrModuleDisabled.
type ModuleDisabledError struct {
	// Module is the catalog id of the module, e.g. "support.tickets".
	Module string
}

// Error implements error.
func (e *ModuleDisabledError) Error() string { return e.Detail() }

// Detail is the sentence a client is shown:
// "the support.tickets module is disabled for this tenant".
func (e *ModuleDisabledError) Detail() string {
	return fmt.Sprintf("the %s module is disabled for this tenant", e.Module)
}

// Is makes errors.Is(err, ErrModuleDisabled) true.
func (e *ModuleDisabledError) Is(target error) bool { return target == ErrModuleDisabled }

// LimitError says that using a metered feature would pass the tenant's
// limit for the period; nothing was used. It matches ErrLimitExceeded.
type LimitError struct {
	// Feature is the metered feature, e.g. catalog.FeatureTickets.
	Feature string
	// Unit names what Feature counts, in the plural ("tickets").
	Unit string
	// Limit is the tenant's limit of Feature per period.
	Limit int64
	// Usage is what the tenant has used of Feature in the period.
	Usage int64
	// ResetsAt is when the period ends and usage starts again from zero;
	// zero for seats, a level that no period resets.
	ResetsAt time.Time
}

// Error implements error.
func (e *LimitError) Error() string { return e.Detail() }

// Detail is the sentence a client is shown:
// "monthly limit of 3 tickets reached; resets 2026-12-01T00:00:00Z", or
// for seats, which no period resets, "limit of 3 seats reached; remove a
// member or raise the seats first".
func (e *LimitError) Detail() string {
	unit := e.Unit
	if unit == "" {
		unit = e.Feature
	}
	if e.Limit == 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	if e.ResetsAt.IsZero() {
		msg := fmt.Sprintf("limit of %d %s reached", e.Limit, unit)
		if e.Feature == catalog.FeatureSeats {
			msg += "; remove a member or raise the seats first"
		}
		return msg
	}
	return fmt.Sprintf("monthly limit of %d %s reached; resets %s", e.Limit, unit, e.ResetsAt.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrLimitExceeded) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimitExceeded }

// InvalidError lists the fields that failed validation, with the rule each
// broke and a message; it is the one type every domain uses (see package
// field). It matches ErrInvalid with errors.Is.
type InvalidError = field.InvalidError

// invalid is an *InvalidError about one field, code field.Invalid.
func invalid(path, msg string) *InvalidError {
	return field.NewInvalidError(path, field.Invalid, msg)
}
