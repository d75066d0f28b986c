package tenancy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
)

// Entitlement is a tenant's limit of one feature and how much of it is
// used, as GET /api/tenant/entitlements/limit shows it.
type Entitlement struct {
	// Feature is one of catalog.Features.
	Feature string `json:"feature"`
	// Limit is the most the tenant may use in the period; nil when unlimited.
	Limit *int64 `json:"limit"`
	// Usage is what the tenant has used in the period (members, for seats).
	Usage int64 `json:"usage"`
	// Remaining is Limit - Usage, never negative; nil when unlimited.
	Remaining *int64 `json:"remaining"`
	// PeriodStart and PeriodEnd bound the current calendar month (UTC),
	// end exclusive. Seats are a level rather than a monthly count; they
	// carry the same period so that every entitlement has one shape.
	PeriodStart time.Time `json:"period_start"`
	PeriodEnd   time.Time `json:"period_end"`
}

// Period returns the usage period of t for metered features: the calendar
// month in UTC, as "2006-01", with its bounds.
func Period(t time.Time) (key string, start, end time.Time) {
	t = t.UTC()
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start.Format("2006-01"), start, start.AddDate(0, 1, 0)
}

// EntitlementState is what a tenant's entitlements are computed from, as
// Store.EntitlementState reads it in one go: the contract (plan, seats,
// add-ons), the module switches and limit overrides, and, when read for a
// period, the usage and the members.
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
}

// StateQuery says what Store.EntitlementState reads beside the tenant's
// contract, switches, add-ons and overrides.
type StateQuery struct {
	// Period, when set, adds the tenant's usage of each feature in that
	// period ("2006-01") and its member count.
	Period string
	// MemberID, when set, adds that user's membership of the tenant.
	MemberID string
}

// periodKey is the key of the usage period of t ("2006-01").
func periodKey(t time.Time) string {
	key, _, _ := Period(t)
	return key
}

// unlimited is how limitOf says "no limit"; Store.ConsumeUsage reads any
// negative limit the same way.
const unlimited = -1

// limitOf returns the tenant's limit of feature, or unlimited: its
// override when one is set, else its contract's seats for seats, else its
// plan's limit. A feature the plan does not list (which catalog validation
// rules out) gets 0, so that a broken catalog refuses rather than gives.
func limitOf(st EntitlementState, plan catalog.Plan, feature string) int64 {
	if l, ok := st.Overrides[feature]; ok {
		if l == nil {
			return unlimited
		}
		return *l
	}
	if feature == catalog.FeatureSeats {
		return int64(st.Seats)
	}
	l, isUnlimited, _ := plan.Limit(feature)
	if isUnlimited {
		return unlimited
	}
	return l
}

// Allowance is a tenant's right to use a metered feature, as
// Service.Allowance found it; Service.Use spends from it.
type Allowance struct {
	TenantID string
	// Feature is one of the metered features (catalog.Metered).
	Feature string
	// Limit is how much of Feature the tenant may use per period: its
	// override, else its plan's limit; negative when unlimited.
	Limit int64
}

// Allowance checks that module is on for the tenant and returns its
// allowance of the metered feature, from one read of its entitlement
// state: what billing and support ask before they create, so that the
// module check and the limit lookup cost one round trip. ErrModuleDisabled
// when the module is off; InvalidError (field "feature") for a feature
// that is not metered; ErrNotFound for an unknown tenant.
func (s *Service) Allowance(ctx context.Context, tenantID, module, feature string) (Allowance, error) {
	if !catalog.Metered(feature) {
		return Allowance{}, fmt.Errorf("tenancy: allowance of %q: %w", feature, invalid("feature", "is not a metered feature"))
	}
	st, plan, err := s.state(ctx, tenantID, "")
	if err != nil {
		return Allowance{}, err
	}
	if !s.moduleOn(plan, st.AddOns, st.Toggles, module) {
		return Allowance{}, fmt.Errorf("tenancy: %w", &ModuleDisabledError{Module: module})
	}
	return Allowance{TenantID: tenantID, Feature: feature, Limit: limitOf(st, plan, feature)}, nil
}

// Use spends n (at least 1) units of a's feature in the current period.
// A *LimitError (matching ErrLimitExceeded) when a.Limit would be passed,
// under any concurrency; nothing is used then.
//
// The increment, and the entitlement.threshold notification when it
// crosses 80 % or reaches 100 % of a finite limit, run on the transaction
// in ctx (or, without one, in a transaction of their own). They set no
// savepoint: the increment is a single statement that either happens or
// leaves everything as it was, and a failure after it is a fault after
// which the caller's transaction must roll back anyway. Callers wrap Use
// and the insert it guards in one transaction, so that the unit is spent,
// and the tenant told, only if their insert commits.
func (s *Service) Use(ctx context.Context, a Allowance, n int64) error {
	if !catalog.Metered(a.Feature) {
		return fmt.Errorf("tenancy: consume %q: %w", a.Feature, invalid("feature", "is not a metered feature"))
	}
	if n < 1 {
		return fmt.Errorf("tenancy: consume %d %s: %w", n, a.Feature, invalid("n", "must be at least 1"))
	}
	now := s.now()
	period, _, _ := Period(now)
	return s.store.JoinTx(ctx, func(ctx context.Context) error {
		after, err := s.store.ConsumeUsage(ctx, a.TenantID, a.Feature, period, n, a.Limit)
		if errors.Is(err, ErrLimitExceeded) {
			err = s.limitError(ctx, a, period, now)
		}
		if err != nil {
			return fmt.Errorf("tenancy: consume %s for %s: %w", a.Feature, a.TenantID, err)
		}
		return s.notifyThresholds(ctx, a.TenantID, a.Feature, a.Limit, after-n, after, now)
	})
}

// limitError describes a's limit for a refused Use in period: what the
// tenant has used (read after the refusal, which left it unchanged) and
// when the period ends. Only the refusal pays for the read.
func (s *Service) limitError(ctx context.Context, a Allowance, period string, now time.Time) error {
	used, err := s.store.Usage(ctx, a.TenantID, a.Feature, period)
	if err != nil {
		return err
	}
	_, _, end := Period(now)
	return &LimitError{Feature: a.Feature, Unit: strings.ToLower(s.featureName(a.Feature)),
		Limit: a.Limit, Usage: used, ResetsAt: end}
}

// featureName names a feature for people: its module's name when a module
// shares its id ("Tickets" for support.tickets), else the id itself.
func (s *Service) featureName(feature string) string {
	if m, ok := s.catalog.Module(feature); ok {
		return m.Name
	}
	return feature
}

// Consume uses n (at least 1) units of a metered feature
// (catalog.FeatureInvoices, catalog.FeatureTickets) in the current period,
// whether or not its module is on (Allowance checks that too).
// A *LimitError (matching ErrLimitExceeded) when the tenant's limit would
// be passed, under any concurrency; nothing is used then. Transactions as
// Use: callers wrap Consume and the insert it guards in one
// database.RunInTx, so that the unit is spent, and the tenant told, only
// if their insert commits.
func (s *Service) Consume(ctx context.Context, tenantID, feature string, n int64) error {
	if !catalog.Metered(feature) {
		return fmt.Errorf("tenancy: consume %q: %w", feature, invalid("feature", "is not a metered feature"))
	}
	if n < 1 {
		return fmt.Errorf("tenancy: consume %d %s: %w", n, feature, invalid("n", "must be at least 1"))
	}
	st, plan, err := s.state(ctx, tenantID, "")
	if err != nil {
		return err
	}
	return s.Use(ctx, Allowance{TenantID: tenantID, Feature: feature, Limit: limitOf(st, plan, feature)}, n)
}

// Entitlements returns the tenant's entitlement of every feature, in the
// order of catalog.Features. ErrNotFound when the tenant does not exist.
func (s *Service) Entitlements(ctx context.Context, tenantID string) ([]Entitlement, error) {
	now := s.now()
	st, plan, err := s.state(ctx, tenantID, periodKey(now))
	if err != nil {
		return nil, err
	}
	return entitlementsOf(st, plan, catalog.Features(), now), nil
}

// Entitlement returns the tenant's entitlement of one feature.
// InvalidError (field "feature") for a feature not in catalog.Features;
// ErrNotFound when the tenant does not exist.
func (s *Service) Entitlement(ctx context.Context, tenantID, feature string) (Entitlement, error) {
	if !catalog.KnownFeature(feature) {
		return Entitlement{}, fmt.Errorf("tenancy: entitlement %q: %w", feature, unknownFeature())
	}
	now := s.now()
	st, plan, err := s.state(ctx, tenantID, periodKey(now))
	if err != nil {
		return Entitlement{}, err
	}
	return entitlementsOf(st, plan, []string{feature}, now)[0], nil
}

// EntitlementsAndModules returns what GET /api/tenant/entitlements/limit
// shows: Entitlements and Modules, from one read of the tenant's state.
func (s *Service) EntitlementsAndModules(ctx context.Context, tenantID string) ([]Entitlement, []ModuleState, error) {
	now := s.now()
	st, plan, err := s.state(ctx, tenantID, periodKey(now))
	if err != nil {
		return nil, nil, err
	}
	return entitlementsOf(st, plan, catalog.Features(), now), s.modulesOf(st, plan), nil
}

// entitlementsOf computes the entitlements of features from st, which was
// read for the period of now.
func entitlementsOf(st EntitlementState, plan catalog.Plan, features []string, now time.Time) []Entitlement {
	_, start, end := Period(now)
	out := make([]Entitlement, 0, len(features))
	for _, f := range features {
		used := st.Usage[f]
		if f == catalog.FeatureSeats {
			used = st.Members
		}
		e := Entitlement{Feature: f, Usage: used, PeriodStart: start, PeriodEnd: end}
		if l := limitOf(st, plan, f); l >= 0 {
			remaining := max(l-used, 0)
			e.Limit, e.Remaining = &l, &remaining
		}
		out = append(out, e)
	}
	return out
}

// SetLimit sets a tenant's (id or slug) limit of feature, replacing what
// its plan (or, for seats, its contract) gives; nil means unlimited. It is
// the operator's `limit set` command. InvalidError (fields "feature",
// "limit") for an unknown feature or a negative limit; ErrNotFound for an
// unknown tenant.
func (s *Service) SetLimit(ctx context.Context, tenantRef, feature string, limit *int64) error {
	fields := map[string]string{}
	if !catalog.KnownFeature(feature) {
		fields["feature"] = unknownFeature().Fields["feature"]
	}
	if limit != nil && *limit < 0 {
		fields["limit"] = "must be 0 or more, or unlimited"
	}
	if len(fields) > 0 {
		return fmt.Errorf("tenancy: set limit: %w", &InvalidError{Fields: fields})
	}
	t, err := s.FindTenant(ctx, tenantRef)
	if err != nil {
		return err
	}
	if limit != nil {
		l := *limit // the caller keeps its pointer
		limit = &l
	}
	if err := s.store.SetLimitOverride(ctx, t.ID, feature, limit); err != nil {
		return fmt.Errorf("tenancy: set limit of %s for %s: %w", feature, t.Slug, err)
	}
	return nil
}

func unknownFeature() *InvalidError {
	return invalid("feature", "must be one of "+strings.Join(catalog.Features(), ", "))
}
