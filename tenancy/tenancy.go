// Package tenancy is who is calling and on whose behalf: tenants (the
// platform's customer companies) on a catalog plan, users, their
// memberships and roles, API keys, the active tenant of each credential,
// the access matrix, the entitlements (limits, usage, modules) that the
// other domains consult before they create anything, and the notifications
// that every domain leaves for a tenant in the transaction of their cause.
//
// The package is plain Go: Service holds the rules, Store is the persistence
// it needs, and BunStore implements Store on Postgres and SQLite.
package tenancy

import "time"

// Tenant is a customer company of the platform, subscribed to one plan of
// the catalog.
type Tenant struct {
	ID        string    `json:"id"`
	Slug      string    `json:"slug"`
	Name      string    `json:"name"`
	PlanID    string    `json:"plan_id"`
	Seats     int       `json:"seats"`
	CreatedAt time.Time `json:"created_at"`
}

// User is a person (or robot) who can act for the tenants they belong to.
// Users are platform-wide; what they may do is decided per membership.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// Membership says that a user belongs to a tenant with a role.
type Membership struct {
	TenantID  string    `json:"tenant_id"`
	UserID    string    `json:"user_id"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// TenantMembership is a membership joined with its tenant, as listed for a
// user (GET /api/auth/me).
type TenantMembership struct {
	Tenant Tenant
	Role   Role
}
