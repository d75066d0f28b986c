// Package tenancy is who is calling and on whose behalf: tenants (the
// platform's customer companies) on a catalog plan, users, their
// memberships and roles, API keys, the active tenant of each credential,
// the access matrix, the entitlements (limits, usage, modules) that the
// other domains consult before they create anything, and the notifications
// that every domain leaves for a tenant in the transaction of their cause.
//
// The package is plain Go, one service per concept, each with the small
// Store interface it consumes, declared beside it:
//
//   - Directory (DirectoryStore): tenants, users, memberships, and which
//     tenant a credential acts for;
//   - Members (MemberStore): adding (within the seats), changing and
//     removing members;
//   - Index (IndexStore): tenants, users and API keys listed across
//     tenants, for the platform's operators;
//   - Keys (KeyStore): API keys and authenticating them;
//   - Entitlements (EntitlementStore): module checks, limits and usage;
//   - Modules (ModuleStore): the modules a tenant switches on and off;
//   - Notifications (NotificationStore): messages to a tenant;
//   - Sessions (SessionStore): the portal's sign-ins, which end at
//     sign-out, when the member leaves the tenant, or by an operator.
//
// New wires them together. Package tenancy/bunstore implements every Store
// on Postgres and SQLite; tenancy/tenancytest is their conformance suite.
// The tenant's contract with the platform (plan, seats, add-ons, and the
// requests that change them) is package tenancy/contract; the platform's
// own credentials, operator API keys, are package tenancy/operator. Every
// service finds who asks for a change in the context (ActorFrom).
package tenancy

import (
	"context"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
)

// Tenant is a customer company of the platform, subscribed to one plan of
// the catalog.
type Tenant struct {
	ID        string    `json:"id"`
	Slug      string    `json:"slug"`
	Name      string    `json:"name"`
	PlanID    string    `json:"plan_id"`
	Seats     int       `json:"seats"`
	CreatedAt time.Time `json:"created_at"`
	// Test marks a test tenant: it lives on its own clock (TestClock),
	// which only an operator moves forward, and the scheduler leaves it
	// to that clock.
	Test bool `json:"test"`
	// TestClock is a test tenant's time; nil for a real tenant.
	TestClock *time.Time `json:"test_clock,omitempty"`
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
	// TestClock is the tenant's clock when it is a test tenant and the
	// store read it with the membership (Directory.ResolveTenant does);
	// nil otherwise.
	TestClock *time.Time `json:"-"`
}

// TenantMembership is a membership joined with its tenant, as listed for a
// user (GET /api/auth/me).
type TenantMembership struct {
	Tenant Tenant
	Role   Role
}

// Transactor runs fn in a transaction carried by the context fn receives,
// and commits only when fn returns nil; inside a transaction ctx already
// carries, fn runs in a savepoint of it. fn's error comes back unwrapped.
// It is the one way tenancy's services make several store calls atomic:
// every Store joins the transaction it finds in the context. The server
// passes a database.Transactor; a Store written elsewhere pairs with its
// own.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Option configures a tenancy service.
type Option func(*options)

type options struct {
	now    func() time.Time
	events Events
}

// WithClock makes the service read time from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

func newOptions(opts []Option) options {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Stores are the persistence of tenancy's services. One implementation may
// fill every field, as bunstore's Store does (Store.Stores).
type Stores struct {
	Directory     DirectoryStore
	Members       MemberStore
	Index         IndexStore
	Keys          KeyStore
	Entitlements  EntitlementStore
	Modules       ModuleStore
	Notifications NotificationStore
	// Sessions is optional: without it Services.Sessions is nil and
	// removing a member ends no session.
	Sessions SessionStore
	// Settings is optional: without it Services.Settings is nil.
	Settings SettingsStore
}

// Services are tenancy's services, wired to each other by New.
type Services struct {
	Directory     *Directory
	Members       *Members
	Index         *Index
	Keys          *Keys
	Entitlements  *Entitlements
	Modules       *Modules
	Notifications *Notifications
	// Sessions is nil when Stores.Sessions is.
	Sessions *Sessions
	// Settings is nil when Stores.Settings is.
	Settings *TenantSettings
}

// New returns tenancy's services on st, with plans from cat, running their
// multi-step changes in transactions of tx. It panics when tx is nil, as
// NewModules and NewMembers do.
func New(st Stores, tx Transactor, cat *catalog.Catalog, opts ...Option) *Services {
	dir := NewDirectory(st.Directory, cat, opts...)
	notes := NewNotifications(st.Notifications, opts...)
	ent := NewEntitlements(st.Entitlements, dir, notes, opts...)
	dir.tx, ent.tx, notes.tx = tx, tx, tx
	members := NewMembers(st.Members, dir, ent, tx, opts...)
	var sessions *Sessions
	if st.Sessions != nil {
		sessions = NewSessions(st.Sessions, dir, opts...)
		members.sessions = sessions
	}
	var settings *TenantSettings
	if st.Settings != nil {
		settings = NewSettings(st.Settings, tx)
	}
	return &Services{
		Settings:      settings,
		Directory:     dir,
		Members:       members,
		Sessions:      sessions,
		Index:         NewIndex(st.Index, dir),
		Keys:          newKeys(st.Keys, dir, tx, opts),
		Entitlements:  ent,
		Modules:       NewModules(st.Modules, ent, notes, tx, opts...),
		Notifications: notes,
	}
}
