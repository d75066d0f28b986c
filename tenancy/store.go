package tenancy

import (
	"context"
	"time"
)

// Store is the persistence Service needs. Implementations must be safe for
// concurrent use, join the transaction carried by ctx when there is one,
// and translate driver errors into the sentinels named below; raw driver
// errors never leave a Store. tenancytest.Run checks all of it.
type Store interface {
	// CreateTenant inserts t. ErrConflict when the slug is taken.
	CreateTenant(ctx context.Context, t Tenant) error
	// Tenant returns the tenant with id. ErrNotFound when absent.
	Tenant(ctx context.Context, id string) (Tenant, error)
	// TenantBySlug returns the tenant with slug. ErrNotFound when absent.
	TenantBySlug(ctx context.Context, slug string) (Tenant, error)

	// CreateUser inserts u. ErrConflict when the email is taken.
	CreateUser(ctx context.Context, u User) error
	// User returns the user with id. ErrNotFound when absent.
	User(ctx context.Context, id string) (User, error)
	// UserByEmail returns the user with that (lower-case) email. ErrNotFound when absent.
	UserByEmail(ctx context.Context, email string) (User, error)

	// AddMembership inserts m. ErrConflict when the user is already a
	// member; ErrNotFound when the tenant or user does not exist.
	AddMembership(ctx context.Context, m Membership) error
	// Membership returns the user's membership of the tenant. ErrNotFound
	// when the user is not a member.
	Membership(ctx context.Context, tenantID, userID string) (Membership, error)
	// Memberships lists the user's tenants with roles, ordered by tenant slug.
	Memberships(ctx context.Context, userID string) ([]TenantMembership, error)
	// CountMembers returns how many members the tenant has.
	CountMembers(ctx context.Context, tenantID string) (int64, error)

	// CreateAPIKey stores k with the hash of its secret.
	CreateAPIKey(ctx context.Context, k APIKey, secretHash string) error
	// APIKeyByHash returns the key whose secret hashes to secretHash,
	// revoked or not, with its user: what authenticating a request needs,
	// read together. ErrNotFound when absent.
	APIKeyByHash(ctx context.Context, secretHash string) (APIKey, User, error)
	// RevokeAPIKey marks the key revoked at at. ErrNotFound when absent.
	// Revoking twice keeps the first time.
	RevokeAPIKey(ctx context.Context, id string, at time.Time) error

	// SetSelection records tenantID as the active tenant of a credential.
	SetSelection(ctx context.Context, credential, userID, tenantID string, at time.Time) error
	// Selection returns the active tenant recorded for a credential.
	// ErrNotFound when none is recorded.
	Selection(ctx context.Context, credential string) (string, error)

	// ConsumeUsage atomically adds n to the tenant's usage of feature in
	// period unless the result would pass limit (limit < 0: no limit), and
	// returns the usage after the addition; the usage before it is that
	// minus n, because check and increment are one atomic step (Service
	// decides threshold notifications from the pair). ErrLimitExceeded
	// (usage unchanged) when it would pass. Concurrent calls never pass
	// the limit.
	ConsumeUsage(ctx context.Context, tenantID, feature, period string, n, limit int64) (int64, error)
	// Usage returns the tenant's usage of feature in period (0 when none).
	Usage(ctx context.Context, tenantID, feature, period string) (int64, error)
	// LimitOverrides returns the tenant's per-feature limit overrides;
	// a nil value means "unlimited".
	LimitOverrides(ctx context.Context, tenantID string) (map[string]*int64, error)
	// SetLimitOverride sets the tenant's limit of feature, replacing the
	// plan's; a nil limit means unlimited.
	SetLimitOverride(ctx context.Context, tenantID, feature string, limit *int64) error
	// EntitlementState returns what the tenant's entitlements are computed
	// from, read together (one round trip on the Bun store) so that a
	// module check and a limit lookup need one read: the tenant's plan and
	// seats, module switches, contracted add-ons (sorted) and limit
	// overrides; with q.Period also its usage of each feature in that
	// period and its member count; with q.MemberID also that user's
	// membership (Member, nil when the user is no member). ErrNotFound when
	// the tenant does not exist.
	EntitlementState(ctx context.Context, tenantID string, q StateQuery) (EntitlementState, error)
	// ModuleToggles returns the tenant's explicit module switches.
	ModuleToggles(ctx context.Context, tenantID string) (map[string]bool, error)
	// SetModuleToggle records the tenant's switch for module and reports
	// whether it changed the module's state. initial is the state the
	// module has while no switch is recorded (on when the plan includes it).
	// Check and write are one atomic step: of concurrent calls asking for
	// the same state, exactly one reports a change.
	SetModuleToggle(ctx context.Context, tenantID, module string, enabled, initial bool, at time.Time) (changed bool, err error)

	// TenantForUpdate is Tenant, and also locks the tenant's row until the
	// transaction in ctx ends (SELECT … FOR UPDATE on Postgres; SQLite
	// serialises writers anyway), so that contract changes of one tenant
	// run one at a time. ErrNotFound when absent.
	TenantForUpdate(ctx context.Context, id string) (Tenant, error)
	// ContractAddOns returns the modules the tenant bought as add-ons,
	// sorted; none (not an error) for an unknown tenant.
	ContractAddOns(ctx context.Context, tenantID string) ([]string, error)
	// SetContract writes c.PlanID and c.Seats to tenant c.TenantID and
	// makes c.AddOns its exact set of add-ons (those newly added are
	// recorded at at); the period is derived, never stored. It runs in
	// one transaction (a savepoint of the one in ctx). ErrNotFound when the
	// tenant does not exist.
	SetContract(ctx context.Context, c Contract, at time.Time) error
	// DeleteModuleToggles forgets the tenant's switches of modules, which
	// then take their default state again. Modules without a switch are
	// ignored.
	DeleteModuleToggles(ctx context.Context, tenantID string, modules []string) error

	// CreateNotification stores n. key, when not empty, names the event n
	// reports and is unique per tenant: ErrConflict when the key (or n.ID)
	// is taken, with nothing stored and the caller's transaction still
	// usable. ErrNotFound when the tenant does not exist.
	CreateNotification(ctx context.Context, n Notification, key string) error
	// Notifications lists the tenant's notifications newest first (by id),
	// only unread ones when f.UnreadOnly, only those with an id below
	// f.Before when set, at most f.Limit (which the caller has clamped to
	// 1..100); hasMore reports whether more rows follow.
	Notifications(ctx context.Context, tenantID string, f NotificationFilter) (ns []Notification, hasMore bool, err error)
	// MarkNotificationRead sets the notification's read time to at unless
	// it is already read (the first time is kept), and returns it.
	// ErrNotFound when the tenant has no notification with that id.
	MarkNotificationRead(ctx context.Context, tenantID, id string, at time.Time) (Notification, error)

	// RunInTx runs fn in a transaction carried by the ctx fn receives:
	// every Store call made with that ctx joins it, and it commits only
	// when fn returns nil. When ctx already carries a transaction, fn runs
	// in a savepoint of it. fn's error is returned unwrapped.
	RunInTx(ctx context.Context, fn func(ctx context.Context) error) error
	// JoinTx runs fn on the transaction carried by ctx when there is one,
	// without a savepoint of its own: fn's work commits or rolls back with
	// the caller's, and fn's error is the caller's to act on. Without one
	// it runs fn in a new transaction, as RunInTx does. fn's error is
	// returned unwrapped.
	JoinTx(ctx context.Context, fn func(ctx context.Context) error) error
}
