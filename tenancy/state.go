package tenancy

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/catalog"
)

// EntitlementState is what a tenant's entitlements are computed from, as
// EntitlementStore.EntitlementState reads it in one go: the contract
// (plan, seats, add-ons), the module switches and limit overrides, and,
// when read for a period, the usage and the members.
type EntitlementState struct {
	TenantID string
	// PlanID and Seats are the tenant's contract (tenants.plan_id, seats).
	PlanID string
	Seats  int
	// Toggles are the tenant's explicit module switches.
	Toggles map[string]bool
	// AddOns are the modules bought as add-ons, sorted.
	AddOns []string
	// Overrides are the per-feature limit overrides; nil means unlimited.
	Overrides map[string]*int64
	// Period is the usage period ("2006-01") Usage and Members were read
	// for; "" when they were not read.
	Period string
	// Usage is the usage of each metered feature in Period (absent: 0).
	Usage map[string]int64
	// Members is how many members the tenant has.
	Members int64
	// Member is the membership of the user StateQuery.MemberID named (its
	// role; CreatedAt is not read), nil when the user is no member or no
	// user was named.
	Member *Membership
	// Test says the tenant is a test tenant (its clock is not read here).
	Test bool
	// WebhookEndpoints is how many enabled webhook endpoints the tenant
	// has (package outbound's, which its store counts on the tenant row).
	WebhookEndpoints int
}

// StateQuery says what EntitlementStore.EntitlementState reads beside the
// tenant's contract, switches, add-ons and overrides.
type StateQuery struct {
	// Period, when set, adds the tenant's usage of each feature in that
	// period ("2006-01") and its member count.
	Period string
	// MemberID, when set, adds that user's membership of the tenant.
	MemberID string
}

// stateKey is the context key of a request's EntitlementState.
type stateKey struct{}

// WithState returns ctx carrying st, the entitlement state of st.TenantID
// read for the request ctx belongs to (ResolveTenantState reads it with
// the caller's membership). It is the one way a request's state is
// shared: every read of a tenant's entitlements — Entitlements.State and
// what is built on it (RequireModule, Allowance, Consume's limit lookup,
// List, Get, ListWithModules, Modules.List, and the contract's current
// terms and usage) — uses it instead of reading the store again when it is
// of the tenant asked about (and, for usage, of the period asked about).
//
// It exists for round trips: on POST /api/v1/collections/invoices the
// edge reads the state with the membership, and the module check and
// billing's allowance then cost no query, where each would otherwise read
// the state again (two more round trips per create; as many on
// POST /api/tickets and the endpoints that show usage). Passing the state
// down explicitly would thread it through billing's and support's
// services, which also serve callers without a request.
//
// Changes of entitlements (Modules.Toggle, SetLimit, contract changes)
// write through the store and do not update a state carried in the
// context: carry st only within the request it was read for.
func WithState(ctx context.Context, st EntitlementState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

// stateFrom returns the state ctx carries for tenantID, when it has the
// usage of period (any state will do for period "").
func stateFrom(ctx context.Context, tenantID, period string) (EntitlementState, bool) {
	st, ok := ctx.Value(stateKey{}).(EntitlementState)
	if !ok || st.TenantID != tenantID || (period != "" && st.Period != period) {
		return EntitlementState{}, false
	}
	return st, true
}

// State returns the tenant's entitlement state, with its usage of period
// ("2006-01", see Period) and its member count when period is set: the
// one ctx carries (WithState) when it will do, else one read of the store.
// ErrNotFound for an unknown tenant.
func (s *Entitlements) State(ctx context.Context, tenantID, period string) (EntitlementState, error) {
	if st, ok := stateFrom(ctx, tenantID, period); ok {
		return st, nil
	}
	st, err := s.store.EntitlementState(ctx, tenantID, StateQuery{Period: period})
	if err != nil {
		return EntitlementState{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, err)
	}
	return st, nil
}

// state reads the tenant's entitlement state (with usage when period is
// set) and its catalog plan.
func (s *Entitlements) state(ctx context.Context, tenantID, period string) (EntitlementState, catalog.Plan, error) {
	st, err := s.State(ctx, tenantID, period)
	if err != nil {
		return EntitlementState{}, catalog.Plan{}, err
	}
	plan, ok := s.catalog.Plan(st.PlanID)
	if !ok {
		return EntitlementState{}, catalog.Plan{}, fmt.Errorf("tenancy: tenant %s is on plan %q, which the catalog lacks", tenantID, st.PlanID)
	}
	return st, plan, nil
}

// ResolveTenantState is Directory.ResolveTenant that also returns the
// entitlement state of the tenant it resolves — with its usage of the
// current period and its member count when usage is set — for a caller
// that checks modules or limits or shows usage next (the HTTP edge, for
// endpoints behind a module or about entitlements, which hands the state
// on with WithState). When the request names its tenant or the key is
// pinned to one, the membership and the state are one read of the store;
// the membership's CreatedAt is then not read (as ResolveTenant leaves it
// for a user's only membership). Errors as ResolveTenant.
func (s *Entitlements) ResolveTenantState(ctx context.Context, cred Credential, requested string, usage bool) (Membership, EntitlementState, error) {
	period := ""
	if usage {
		period = periodKey(Now(ctx, s.now))
	}
	tenantID := requested
	switch {
	case requested != "":
		if cred.PinnedTenantID != "" && requested != cred.PinnedTenantID {
			return Membership{}, EntitlementState{}, fmt.Errorf("tenancy: tenant %s: key is pinned to another tenant: %w", requested, ErrNotMember)
		}
	case cred.PinnedTenantID != "":
		tenantID = cred.PinnedTenantID
	default:
		// The tenant comes from the selection or the only membership:
		// known only once those are read.
		m, err := s.dir.ResolveTenant(ctx, cred, requested)
		if err != nil {
			return Membership{}, EntitlementState{}, err
		}
		st, err := s.State(ctx, m.TenantID, period)
		if err != nil {
			return Membership{}, EntitlementState{}, err
		}
		return m, st, nil
	}
	st, err := s.store.EntitlementState(ctx, tenantID, StateQuery{Period: period, MemberID: cred.UserID})
	if errors.Is(err, ErrNotFound) || (err == nil && st.Member == nil) {
		return Membership{}, EntitlementState{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, ErrNotMember)
	}
	if err != nil {
		return Membership{}, EntitlementState{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, err)
	}
	return *st.Member, st, nil
}
