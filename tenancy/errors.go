package tenancy

import "errors"

// Sentinel errors of the tenancy domain. Service methods wrap them with
// context; match them with errors.Is.
var (
	// ErrNotFound: the tenant, user, key or membership does not exist, or
	// is not visible to the caller (another tenant's resource is "not found").
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique value (slug, email, membership) is already taken.
	ErrConflict = errors.New("already exists")
	// ErrInvalid: input failed validation; see InvalidError for the fields.
	ErrInvalid = errors.New("invalid input")
	// ErrUnauthenticated: the credential is unknown, revoked or expired.
	ErrUnauthenticated = errors.New("invalid credential")
	// ErrNotMember: the user is not a member of the tenant they named.
	ErrNotMember = errors.New("not a member of this tenant")
	// ErrTenantNotSelected: the caller belongs to several tenants and has
	// not chosen one (POST /api/tenant/select or X-Tenant-ID).
	ErrTenantNotSelected = errors.New("no active tenant selected: choose one with POST /api/tenant/select or the X-Tenant-ID header")
	// ErrNoTenant: the caller belongs to no tenant at all.
	ErrNoTenant = errors.New("the caller is not a member of any tenant")
	// ErrForbidden: the caller's role lacks the permission.
	ErrForbidden = errors.New("your role does not allow this")
	// ErrModuleDisabled: the module behind an operation is off for the tenant.
	ErrModuleDisabled = errors.New("module disabled for this tenant")
	// ErrLimitExceeded: consuming would pass the tenant's entitlement limit.
	ErrLimitExceeded = errors.New("entitlement limit exceeded")
)

// InvalidError lists the fields that failed validation, field → message.
// It matches ErrInvalid with errors.Is.
type InvalidError struct {
	Fields map[string]string
}

// Error implements error.
func (e *InvalidError) Error() string {
	msg := "invalid input:"
	for _, k := range sortedKeys(e.Fields) {
		msg += " " + k + ": " + e.Fields[k] + ";"
	}
	return msg
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// FieldErrors returns field → message, for the HTTP edge.
func (e *InvalidError) FieldErrors() map[string]string { return e.Fields }

func invalid(field, msg string) *InvalidError {
	return &InvalidError{Fields: map[string]string{field: msg}}
}
