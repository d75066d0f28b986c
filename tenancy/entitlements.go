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

// periodKey is the key of the usage period of t ("2006-01").
func periodKey(t time.Time) string {
	key, _, _ := Period(t)
	return key
}

// unlimited is how limitOf says "no limit"; ConsumeUsage reads any
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
// Entitlements.Allowance found it; Entitlements.Use spends from it.
type Allowance struct {
	TenantID string
	// Feature is one of the metered features (catalog.Metered).
	Feature string
	// Limit is how much of Feature the tenant may use per period: its
	// override, else its plan's limit; negative when unlimited.
	Limit int64
}

// EntitlementStore is the persistence Entitlements needs. Implementations
// must be safe for concurrent use, join the transaction carried by ctx when
// there is one, confine every read and write to the tenant they are given,
// and translate driver errors into the sentinels named below.
// tenancytest.RunEntitlements checks all of it.
type EntitlementStore interface {
	// EntitlementState returns what the tenant's entitlements are computed
	// from, read together (one round trip on the Bun store) so that a
	// module check and a limit lookup need one read: the tenant's plan and
	// seats, module switches, contracted add-ons (sorted) and limit
	// overrides; with q.Period also its usage of each feature in that
	// period and its member count; with q.MemberID also that user's
	// membership (Member, nil when the user is no member). ErrNotFound when
	// the tenant does not exist.
	EntitlementState(ctx context.Context, tenantID string, q StateQuery) (EntitlementState, error)
	// ConsumeUsage atomically adds n to the tenant's usage of feature in
	// period unless the result would pass limit (limit < 0: no limit), and
	// returns the usage after the addition; the usage before it is that
	// minus n, because check and increment are one atomic step.
	// ErrLimitExceeded (usage unchanged) when it would pass. Concurrent
	// calls never pass the limit.
	//
	// When then is not nil, ConsumeUsage calls it with the usage after the
	// addition, on the same transaction as the increment: the one ctx
	// carries, joined without a savepoint of its own, or else one it
	// begins and commits when then returns nil. then's error is returned
	// unwrapped, and the increment is undone with the transaction (a
	// caller's transaction must then roll back). then is not called when
	// the limit refuses.
	ConsumeUsage(ctx context.Context, tenantID, feature, period string, n, limit int64, then func(ctx context.Context, used int64) error) (int64, error)
	// Usage returns the tenant's usage of feature in period (0 when none).
	// No error but a storage fault.
	Usage(ctx context.Context, tenantID, feature, period string) (int64, error)
	// LimitOverrides returns the tenant's per-feature limit overrides;
	// a nil value means "unlimited". None (not an error) for an unknown
	// tenant.
	LimitOverrides(ctx context.Context, tenantID string) (map[string]*int64, error)
	// SetLimitOverride sets the tenant's limit of feature, replacing the
	// plan's; a nil limit means unlimited. ErrNotFound when the tenant
	// does not exist.
	SetLimitOverride(ctx context.Context, tenantID, feature string, limit *int64) error
	// DeleteLimitOverride removes the tenant's override of feature, if
	// any, so that its plan's (or, for seats, its contract's) limit
	// applies again. No error but a storage fault.
	DeleteLimitOverride(ctx context.Context, tenantID, feature string) error
}

// Entitlements decides what a tenant may use: whether a module is on for
// it, its limit of each feature and how much of it is used. Billing and
// support ask it before they create; the HTTP edge shows what it finds.
type Entitlements struct {
	store   EntitlementStore
	dir     *Directory
	notes   *Notifications
	catalog *catalog.Catalog
	now     func() time.Time
	events  Events
	tx      Transactor // set by New; nil: an override and its event are not atomic
}

// NewEntitlements returns Entitlements on store, with the plans of dir's
// catalog, finding tenants and memberships in dir and telling tenants of
// the thresholds they cross through notes.
func NewEntitlements(store EntitlementStore, dir *Directory, notes *Notifications, opts ...Option) *Entitlements {
	o := newOptions(opts)
	return &Entitlements{store: store, dir: dir, notes: notes, catalog: dir.catalog, now: o.now, events: o.events}
}

// Allowance checks that module is on for the tenant and returns its
// allowance of the metered feature, from one read of its entitlement
// state: what billing and support ask before they create, so that the
// module check and the limit lookup cost one round trip. ErrModuleDisabled
// when the module is off; InvalidError (field "feature") for a feature
// that is not metered; ErrNotFound for an unknown tenant.
func (s *Entitlements) Allowance(ctx context.Context, tenantID, module, feature string) (Allowance, error) {
	if !catalog.Metered(feature) {
		return Allowance{}, fmt.Errorf("tenancy: allowance of %q: %w", feature, invalid("feature", "is not a metered feature"))
	}
	st, plan, err := s.state(ctx, tenantID, "")
	if err != nil {
		return Allowance{}, err
	}
	if !moduleOn(s.catalog, plan, st.AddOns, st.Toggles, module) {
		return Allowance{}, fmt.Errorf("tenancy: %w", &ModuleDisabledError{Module: module})
	}
	return Allowance{TenantID: tenantID, Feature: feature, Limit: limitOf(st, plan, feature)}, nil
}

// Use spends n (at least 1) units of a's feature in the current period.
// A *LimitError (matching ErrLimitExceeded) when a.Limit would be passed,
// under any concurrency; nothing is used then. InvalidError (fields
// "feature", "n") for a feature that is not metered or an n below 1.
//
// The increment, and the entitlement.threshold notification when it
// crosses 80 % or reaches 100 % of a finite limit, are one store call
// (EntitlementStore.ConsumeUsage) that joins the transaction in ctx rather
// than opening a savepoint in it: inside billing's or support's create
// that saves the two round trips of SAVEPOINT and RELEASE on every
// invoice and ticket. No savepoint is needed: the increment is a single
// statement that either happens or leaves everything as it was, and a
// failure after it is a fault after which the caller's transaction must
// roll back anyway. Without a transaction in ctx the store runs them in
// one of its own. Callers wrap Use and the insert it guards in one
// transaction, so that the unit is spent, and the tenant told, only if
// their insert commits.
func (s *Entitlements) Use(ctx context.Context, a Allowance, n int64) error {
	if !catalog.Metered(a.Feature) {
		return fmt.Errorf("tenancy: consume %q: %w", a.Feature, invalid("feature", "is not a metered feature"))
	}
	if n < 1 {
		return fmt.Errorf("tenancy: consume %d %s: %w", n, a.Feature, invalid("n", "must be at least 1"))
	}
	now := Now(ctx, s.now)
	period, _, _ := Period(now)
	_, err := s.store.ConsumeUsage(ctx, a.TenantID, a.Feature, period, n, a.Limit, func(ctx context.Context, after int64) error {
		return s.notifyThresholds(ctx, a.TenantID, a.Feature, a.Limit, after-n, after, now)
	})
	if errors.Is(err, ErrLimitExceeded) {
		err = s.limitError(ctx, a, period, now)
	}
	if err != nil {
		return fmt.Errorf("tenancy: consume %s for %s: %w", a.Feature, a.TenantID, err)
	}
	return nil
}

// limitError describes a's limit for a refused Use in period: what the
// tenant has used (read after the refusal, which left it unchanged) and
// when the period ends. Only the refusal pays for the read.
func (s *Entitlements) limitError(ctx context.Context, a Allowance, period string, now time.Time) error {
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
func (s *Entitlements) featureName(feature string) string {
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
// Use: callers wrap Consume and the insert it guards in one transaction,
// so that the unit is spent, and the tenant told, only if their insert
// commits. ErrNotFound for an unknown tenant.
func (s *Entitlements) Consume(ctx context.Context, tenantID, feature string, n int64) error {
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

// List returns the tenant's entitlement of every feature, in the order of
// catalog.Features. ErrNotFound when the tenant does not exist.
func (s *Entitlements) List(ctx context.Context, tenantID string) ([]Entitlement, error) {
	now := Now(ctx, s.now)
	st, plan, err := s.state(ctx, tenantID, periodKey(now))
	if err != nil {
		return nil, err
	}
	return entitlementsOf(st, plan, catalog.Features(), now), nil
}

// Get returns the tenant's entitlement of one feature.
// InvalidError (field "feature") for a feature not in catalog.Features;
// ErrNotFound when the tenant does not exist.
func (s *Entitlements) Get(ctx context.Context, tenantID, feature string) (Entitlement, error) {
	if !catalog.KnownFeature(feature) {
		return Entitlement{}, fmt.Errorf("tenancy: entitlement %q: %w", feature, unknownFeature())
	}
	now := Now(ctx, s.now)
	st, plan, err := s.state(ctx, tenantID, periodKey(now))
	if err != nil {
		return Entitlement{}, err
	}
	return entitlementsOf(st, plan, []string{feature}, now)[0], nil
}

// ListWithModules returns what GET /api/tenant/entitlements/limit shows:
// List and Modules.List, from one read of the tenant's state. ErrNotFound
// when the tenant does not exist.
func (s *Entitlements) ListWithModules(ctx context.Context, tenantID string) ([]Entitlement, []ModuleState, error) {
	now := Now(ctx, s.now)
	st, plan, err := s.state(ctx, tenantID, periodKey(now))
	if err != nil {
		return nil, nil, err
	}
	return entitlementsOf(st, plan, catalog.Features(), now), modulesOf(s.catalog, st, plan), nil
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
func (s *Entitlements) SetLimit(ctx context.Context, tenantRef, feature string, limit *int64) error {
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
	t, err := s.dir.FindTenant(ctx, tenantRef)
	if err != nil {
		return err
	}
	if limit != nil {
		l := *limit // the caller keeps its pointer
		limit = &l
	}
	err = inTx(ctx, s.tx, func(ctx context.Context) error {
		if err := s.store.SetLimitOverride(ctx, t.ID, feature, limit); err != nil {
			return err
		}
		data := limitChange{TenantID: t.ID, Feature: feature, Limit: limit, Unlimited: limit == nil}
		return record(ctx, s.events, t.ID, eventLimitSet, "entitlement", feature, data)
	})
	if err != nil {
		return fmt.Errorf("tenancy: set limit of %s for %s: %w", feature, t.Slug, err)
	}
	return nil
}

// ClearLimit removes the override of a tenant's (id or slug) limit of
// feature, so that what its plan (or, for seats, its contract) gives
// applies again. InvalidError (field "feature") for an unknown feature;
// ErrNotFound for an unknown tenant.
func (s *Entitlements) ClearLimit(ctx context.Context, tenantRef, feature string) error {
	if !catalog.KnownFeature(feature) {
		return fmt.Errorf("tenancy: clear limit: %w", unknownFeature())
	}
	t, err := s.dir.FindTenant(ctx, tenantRef)
	if err != nil {
		return err
	}
	err = inTx(ctx, s.tx, func(ctx context.Context) error {
		if err := s.store.DeleteLimitOverride(ctx, t.ID, feature); err != nil {
			return err
		}
		data := limitChange{TenantID: t.ID, Feature: feature}
		return record(ctx, s.events, t.ID, eventLimitCleared, "entitlement", feature, data)
	})
	if err != nil {
		return fmt.Errorf("tenancy: clear limit of %s for %s: %w", feature, t.Slug, err)
	}
	return nil
}

// RequireModule returns a *ModuleDisabledError (matching
// ErrModuleDisabled) unless module is on for the tenant: included in its
// plan or a contracted add-on, and not switched off. It reads the tenant's
// state once. ErrNotFound for an unknown tenant.
func (s *Entitlements) RequireModule(ctx context.Context, tenantID, module string) error {
	st, plan, err := s.state(ctx, tenantID, "")
	if err != nil {
		return err
	}
	if !moduleOn(s.catalog, plan, st.AddOns, st.Toggles, module) {
		return fmt.Errorf("tenancy: %w", &ModuleDisabledError{Module: module})
	}
	return nil
}

func unknownFeature() *InvalidError {
	return invalid("feature", "must be one of "+strings.Join(catalog.Features(), ", "))
}
