package tenancy

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/catalog"
)

// stateKey is the context key of a request's EntitlementState.
type stateKey struct{}

// WithState returns ctx carrying st, the entitlement state of st.TenantID
// read for the request ctx belongs to (ResolveTenantState reads it with
// the caller's membership). The methods that only read entitlements —
// RequireModule, Allowance, Consume's limit lookup, Modules,
// Entitlements, Contract and ContractUsage — use it instead of reading
// the store again when it is of the tenant they are asked about (and, for
// usage, of the current period), so that a request's checks and its work
// share one read. Methods that change entitlements always read the store.
// Carry st only within the request it was read for: it is not refreshed.
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

// readState returns the tenant's entitlement state: the one ctx carries
// (WithState) when it will do, else a read of the store.
func (s *Service) readState(ctx context.Context, tenantID, period string) (EntitlementState, error) {
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
func (s *Service) state(ctx context.Context, tenantID, period string) (EntitlementState, catalog.Plan, error) {
	st, err := s.readState(ctx, tenantID, period)
	if err != nil {
		return EntitlementState{}, catalog.Plan{}, err
	}
	plan, ok := s.catalog.Plan(st.PlanID)
	if !ok {
		return EntitlementState{}, catalog.Plan{}, fmt.Errorf("tenancy: tenant %s is on plan %q, which the catalog lacks", tenantID, st.PlanID)
	}
	return st, plan, nil
}

// ResolveTenantState is ResolveTenant that also returns the entitlement
// state of the tenant it resolves — with its usage of the current period
// and its member count when usage is set — for a caller that checks
// modules or limits or shows usage next (the HTTP edge, for endpoints
// behind a module or about entitlements). When the request names its
// tenant or the key is pinned to one, the membership and the state are
// one read of the store; the membership's CreatedAt is then not read (as
// ResolveTenant leaves it for a user's only membership). Errors as
// ResolveTenant.
func (s *Service) ResolveTenantState(ctx context.Context, cred Credential, requested string, usage bool) (Membership, EntitlementState, error) {
	period := ""
	if usage {
		period = periodKey(s.now())
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
		m, err := s.ResolveTenant(ctx, cred, requested)
		if err != nil {
			return Membership{}, EntitlementState{}, err
		}
		st, err := s.readState(ctx, m.TenantID, period)
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
