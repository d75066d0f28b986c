package tenancy

import (
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
	PermBillingPreview     Permission = "billing:preview"
	PermNotificationsRead  Permission = "notifications:read"
	PermMembersManage      Permission = "members:manage"
)

// matrix is the access matrix: which role holds which permission. It is
// data, not code, so that GET /api/tenant/access-matrix shows exactly what
// the checks enforce.
var matrix = map[Role][]Permission{
	RoleOwner: {
		PermInvoicesRead, PermInvoicesWrite, PermTicketsRead, PermTicketsWrite,
		PermEntitlementsRead, PermEntitlementsManage, PermContractsRead, PermContractsSubmit,
		PermBillingPreview, PermNotificationsRead, PermMembersManage,
	},
	RoleAdmin: {
		PermInvoicesRead, PermInvoicesWrite, PermTicketsRead, PermTicketsWrite,
		PermEntitlementsRead, PermEntitlementsManage, PermContractsRead, PermContractsSubmit,
		PermBillingPreview, PermNotificationsRead, PermMembersManage,
	},
	RoleBilling: {
		PermInvoicesRead, PermInvoicesWrite, PermTicketsRead, PermTicketsWrite,
		PermEntitlementsRead, PermContractsRead, PermContractsSubmit,
		PermBillingPreview, PermNotificationsRead,
	},
	RoleSupport: {
		PermTicketsRead, PermTicketsWrite, PermEntitlementsRead, PermNotificationsRead,
	},
	RoleMember: {
		PermTicketsRead, PermTicketsWrite, PermEntitlementsRead, PermNotificationsRead,
	},
}

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

// AccessMatrix is the access matrix as seen by one member of a tenant.
type AccessMatrix struct {
	TenantID    string       `json:"tenant_id"`
	Role        Role         `json:"role"`
	Roles       []RoleGrants `json:"roles"`
	Permissions []Permission `json:"permissions"`
	Effective   []Permission `json:"effective"`
}

// RoleGrants is one row of the access matrix.
type RoleGrants struct {
	Role        Role         `json:"role"`
	Permissions []Permission `json:"permissions"`
}

// MatrixFor builds the access matrix of a tenant for a caller with role r.
func MatrixFor(tenantID string, r Role) AccessMatrix {
	m := AccessMatrix{TenantID: tenantID, Role: r, Permissions: Permissions(), Effective: PermissionsOf(r)}
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
