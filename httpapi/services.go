package httpapi

import (
	"context"

	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The tenancy and contract services the handlers call, each declared here
// with just the methods the edge uses, so that httpapi depends on
// behaviour rather than on the services' types (and tests or hosts may
// stand in their own).

// Directory finds users and tenants, lists a user's memberships, and
// decides which tenant a request acts for. *tenancy.Directory implements
// it.
type Directory interface {
	User(ctx context.Context, userID string) (tenancy.User, error)
	UserByEmail(ctx context.Context, email string) (tenancy.User, error)
	Tenant(ctx context.Context, tenantID string) (tenancy.Tenant, error)
	Memberships(ctx context.Context, userID string) ([]tenancy.TenantMembership, error)
	SelectTenant(ctx context.Context, cred tenancy.Credential, tenantID string) (tenancy.Membership, error)
	ResolveTenant(ctx context.Context, cred tenancy.Credential, requested string) (tenancy.Membership, error)
}

// Keys authenticates API keys. *tenancy.Keys implements it.
type Keys interface {
	Authenticate(ctx context.Context, secret string) (tenancy.APIKey, tenancy.User, error)
}

// Entitlements resolves a request's tenant together with its entitlement
// state, checks modules, and shows limits and usage.
// *tenancy.Entitlements implements it.
type Entitlements interface {
	ResolveTenantState(ctx context.Context, cred tenancy.Credential, requested string, usage bool) (tenancy.Membership, tenancy.EntitlementState, error)
	RequireModule(ctx context.Context, tenantID, module string) error
	Get(ctx context.Context, tenantID, feature string) (tenancy.Entitlement, error)
	ListWithModules(ctx context.Context, tenantID string) ([]tenancy.Entitlement, []tenancy.ModuleState, error)
}

// Modules switches a tenant's modules. *tenancy.Modules implements it.
type Modules interface {
	Toggle(ctx context.Context, tenantID string, role tenancy.Role, module string, enabled bool) (tenancy.ModuleState, bool, error)
}

// Notifications lists a tenant's notifications. *tenancy.Notifications
// implements it.
type Notifications interface {
	List(ctx context.Context, tenantID string, f tenancy.NotificationFilter) ([]tenancy.Notification, bool, error)
}

// Contracts takes a tenant's contract change requests and previews the
// platform's next invoice to it. *contract.Service implements it.
type Contracts interface {
	Submit(ctx context.Context, tenantID, userID string, in contract.SubmitInput) (contract.Request, error)
	Request(ctx context.Context, tenantID, requestID string) (contract.Request, error)
	Requests(ctx context.Context, tenantID string, f contract.Filter) ([]contract.Request, bool, error)
	Preview(ctx context.Context, tenantID string, in contract.PreviewInput) (contract.Preview, error)
}
