package tenancy

import (
	"maps"
	"slices"
	"sort"
)

// Role is a member's role in a tenant.
type Role string

// The roles, from most to least powerful.
const (
	RoleOwner   Role = "owner"
	RoleAdmin   Role = "admin"
	RoleBilling Role = "billing"
	RoleSupport Role = "support"
	RoleMember  Role = "member"
)

// Roles lists every role in order of power.
func Roles() []Role {
	return []Role{RoleOwner, RoleAdmin, RoleBilling, RoleSupport, RoleMember}
}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool { return slices.Contains(Roles(), r) }

// RoleInput is a member's role as input: what Members.Add and
// Members.SetRole check the role they are given against, and the body of
// PATCH /api/operator/tenants/{id}/members/{user_id}. Its tag names the
// roles of Roles.
type RoleInput struct {
	Role Role `json:"role" validate:"required,oneof=owner admin billing support member"`
}

// Permission names one thing a role may do within a tenant.
type Permission string

// The permissions of the access matrix.
const (
	PermInvoicesRead       Permission = "invoices:read"
	PermInvoicesWrite      Permission = "invoices:write"
	PermTicketsRead        Permission = "tickets:read"
	PermTicketsWrite       Permission = "tickets:write"
	PermEntitlementsRead   Permission = "entitlements:read"
	PermEntitlementsManage Permission = "entitlements:manage"
	PermContractsRead      Permission = "contracts:read"
	PermContractsSubmit    Permission = "contracts:submit"
	PermContractsManage    Permission = "contracts:manage" // cancel any member's request, not only one's own
	PermBillingPreview     Permission = "billing:preview"
	// PermBillingRead reads the platform's invoices to the tenant (GET
	// /api/invoices): what it owes the platform, not its own customers'
	// invoices (PermInvoicesRead).
	PermBillingRead       Permission = "billing:read"
	PermNotificationsRead Permission = "notifications:read"
	PermMembersManage     Permission = "members:manage"
	// PermEventsRead reads the tenant's audit trail (GET /api/events).
	PermEventsRead Permission = "events:read"
	// PermWebhooksManage manages the tenant's outbound webhook endpoints
	// and their deliveries (/api/webhook-endpoints).
	PermWebhooksManage Permission = "webhooks:manage"
	// PermSettingsManage reads and changes the tenant's settings
	// (/api/tenant/settings): its payment link, invoice footer, reply-to
	// address and payment terms.
	PermSettingsManage Permission = "settings:manage"
)

// matrix is the access matrix: which role holds which permission. It is
// data, not code, so that GET /api/tenant/access-matrix shows exactly what
// the checks enforce.
var matrix = map[Role][]Permission{
	RoleOwner: {
		PermInvoicesRead, PermInvoicesWrite, PermTicketsRead, PermTicketsWrite,
		PermEntitlementsRead, PermEntitlementsManage, PermContractsRead, PermContractsSubmit, PermContractsManage,
		PermBillingPreview, PermBillingRead, PermNotificationsRead, PermMembersManage, PermEventsRead, PermWebhooksManage,
		PermSettingsManage,
	},
	RoleAdmin: {
		PermInvoicesRead, PermInvoicesWrite, PermTicketsRead, PermTicketsWrite,
		PermEntitlementsRead, PermEntitlementsManage, PermContractsRead, PermContractsSubmit, PermContractsManage,
		PermBillingPreview, PermBillingRead, PermNotificationsRead, PermMembersManage, PermEventsRead, PermWebhooksManage,
		PermSettingsManage,
	},
	RoleBilling: {
		PermInvoicesRead, PermInvoicesWrite, PermTicketsRead, PermTicketsWrite,
		PermEntitlementsRead, PermContractsRead, PermContractsSubmit,
		PermBillingPreview, PermBillingRead, PermNotificationsRead,
	},
	RoleSupport: {
		PermTicketsRead, PermTicketsWrite, PermEntitlementsRead, PermNotificationsRead,
	},
	RoleMember: {
		PermTicketsRead, PermTicketsWrite, PermEntitlementsRead, PermNotificationsRead,
	},
}

// permissionScopes is which credential scope each permission needs, on
// top of the role: a key without collections:write cannot write invoices,
// whatever its user's role. Permissions not listed need no scope. It is
// data, not code, so that the route table's scope checks and the access
// matrix's effective permissions cannot disagree.
var permissionScopes = map[Permission]Scope{
	PermInvoicesRead:  ScopeCollectionsRead,
	PermInvoicesWrite: ScopeCollectionsWrite,
	PermTicketsRead:   ScopeTicketsRead,
	PermTicketsWrite:  ScopeTicketsWrite,
	// The audit trail shows every resource's data, invoices included
	// (customers, amounts): reading it needs the scope that reads them.
	PermEventsRead: ScopeCollectionsRead,
	// A webhook endpoint receives the same events, invoices' data
	// included: managing one is reading them, so it needs the same scope.
	PermWebhooksManage: ScopeCollectionsRead,
}

// Scope returns the credential scope that using p needs, "" when p needs
// none.
func (p Permission) Scope() Scope { return permissionScopes[p] }

// Permissions returns every permission, sorted.
func Permissions() []Permission {
	all := slices.Clone(matrix[RoleOwner])
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all
}

// PermissionsOf returns the permissions of role r, sorted (none for an
// unknown role).
func PermissionsOf(r Role) []Permission {
	ps := slices.Clone(matrix[r])
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

// Can reports whether role r holds permission p.
func (r Role) Can(p Permission) bool { return slices.Contains(matrix[r], p) }

// AccessMatrix is the access matrix as seen by one member of a tenant
// through one credential.
type AccessMatrix struct {
	// TenantID is the tenant the matrix is for.
	TenantID string `json:"tenant_id"`
	// Role is the caller's role in the tenant.
	Role Role `json:"role"`
	// Roles is the whole matrix: each role with its permissions.
	Roles []RoleGrants `json:"roles"`
	// Permissions is every permission there is, whoever holds it.
	Permissions []Permission `json:"permissions"`
	// RequiredScopes maps each permission that needs a credential scope
	// to that scope.
	RequiredScopes map[Permission]Scope `json:"required_scopes"`
	// Effective is what the caller may do here: the permissions of Role
	// whose required scope the caller's credential carries.
	Effective []Permission `json:"effective"`
}

// RoleGrants is one row of the access matrix.
type RoleGrants struct {
	Role        Role         `json:"role"`
	Permissions []Permission `json:"permissions"`
}

// MatrixFor builds the access matrix of a tenant for a caller with role r
// whose credential carries scopes: Effective holds the permissions of r
// that need no scope or one of scopes.
func MatrixFor(tenantID string, r Role, scopes []Scope) AccessMatrix {
	m := AccessMatrix{TenantID: tenantID, Role: r, Permissions: Permissions(),
		RequiredScopes: maps.Clone(permissionScopes), Effective: []Permission{}}
	for _, p := range PermissionsOf(r) {
		if sc := p.Scope(); sc == "" || slices.Contains(scopes, sc) {
			m.Effective = append(m.Effective, p)
		}
	}
	for _, role := range Roles() {
		m.Roles = append(m.Roles, RoleGrants{Role: role, Permissions: PermissionsOf(role)})
	}
	return m
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
