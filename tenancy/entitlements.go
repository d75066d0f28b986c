package tenancy

import (
	"context"
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

// unlimited is how limitOf says "no limit"; Store.ConsumeUsage reads any
// negative limit the same way.
const unlimited = -1

// limitOf returns the tenant's limit of feature, or unlimited: its
// override when one is set, else its contract's seats for seats, else its
// plan's limit. A feature the plan does not list (which catalog validation
// rules out) gets 0, so that a broken catalog refuses rather than gives.
func limitOf(t Tenant, plan catalog.Plan, overrides map[string]*int64, feature string) int64 {
	if l, ok := overrides[feature]; ok {
		if l == nil {
			return unlimited
		}
		return *l
	}
	if feature == catalog.FeatureSeats {
		return int64(t.Seats)
	}
	l, isUnlimited, _ := plan.Limit(feature)
	if isUnlimited {
		return unlimited
	}
	return l
}

// tenantPlan returns the tenant and its catalog plan.
func (s *Service) tenantPlan(ctx context.Context, tenantID string) (Tenant, catalog.Plan, error) {
	t, err := s.store.Tenant(ctx, tenantID)
	if err != nil {
		return Tenant{}, catalog.Plan{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, err)
	}
	plan, ok := s.catalog.Plan(t.PlanID)
	if !ok {
		return Tenant{}, catalog.Plan{}, fmt.Errorf("tenancy: tenant %s is on plan %q, which the catalog lacks", t.ID, t.PlanID)
	}
	return t, plan, nil
}

// Consume uses n (at least 1) units of a metered feature
// (catalog.FeatureInvoices, catalog.FeatureTickets) in the current period.
// ErrLimitExceeded when the tenant's limit would be passed, under any
// concurrency; nothing is used then.
//
// The increment, and the entitlement.threshold notification when it
// crosses 80 % or reaches 100 % of a finite limit, run in one transaction
// (a savepoint of the one in ctx, when there is one). Callers wrap Consume
// and the insert it guards in one database.RunInTx, so that the unit is
// spent, and the tenant told, only if their insert commits.
func (s *Service) Consume(ctx context.Context, tenantID, feature string, n int64) error {
	if !catalog.Metered(feature) {
		return fmt.Errorf("tenancy: consume %q: %w", feature, invalid("feature", "not a metered feature"))
	}
	if n < 1 {
		return fmt.Errorf("tenancy: consume %d %s: %w", n, feature, invalid("n", "must be at least 1"))
	}
	t, plan, err := s.tenantPlan(ctx, tenantID)
	if err != nil {
		return err
	}
	overrides, err := s.store.LimitOverrides(ctx, t.ID)
	if err != nil {
		return fmt.Errorf("tenancy: consume %s: limits of %s: %w", feature, t.ID, err)
	}
	limit := limitOf(t, plan, overrides, feature)
	now := s.now()
	period, _, _ := Period(now)
	return s.store.RunInTx(ctx, func(ctx context.Context) error {
		after, err := s.store.ConsumeUsage(ctx, t.ID, feature, period, n, limit)
		if err != nil {
			return fmt.Errorf("tenancy: consume %s for %s: %w", feature, t.ID, err)
		}
		return s.notifyThresholds(ctx, t.ID, feature, limit, after-n, after, now)
	})
}

// Entitlements returns the tenant's entitlement of every feature, in the
// order of catalog.Features. ErrNotFound when the tenant does not exist.
func (s *Service) Entitlements(ctx context.Context, tenantID string) ([]Entitlement, error) {
	out := make([]Entitlement, 0, len(catalog.Features()))
	err := s.entitlements(ctx, tenantID, catalog.Features(), func(e Entitlement) { out = append(out, e) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Entitlement returns the tenant's entitlement of one feature.
// InvalidError (field "feature") for a feature not in catalog.Features;
// ErrNotFound when the tenant does not exist.
func (s *Service) Entitlement(ctx context.Context, tenantID, feature string) (Entitlement, error) {
	if !catalog.KnownFeature(feature) {
		return Entitlement{}, fmt.Errorf("tenancy: entitlement %q: %w", feature, unknownFeature())
	}
	var out Entitlement
	err := s.entitlements(ctx, tenantID, []string{feature}, func(e Entitlement) { out = e })
	return out, err
}

// entitlements computes the tenant's entitlements of features, reading
// the tenant and its overrides once.
func (s *Service) entitlements(ctx context.Context, tenantID string, features []string, yield func(Entitlement)) error {
	t, plan, err := s.tenantPlan(ctx, tenantID)
	if err != nil {
		return err
	}
	overrides, err := s.store.LimitOverrides(ctx, t.ID)
	if err != nil {
		return fmt.Errorf("tenancy: entitlements: limits of %s: %w", t.ID, err)
	}
	period, start, end := Period(s.now())
	for _, f := range features {
		var used int64
		if f == catalog.FeatureSeats {
			used, err = s.store.CountMembers(ctx, t.ID)
		} else {
			used, err = s.store.Usage(ctx, t.ID, f, period)
		}
		if err != nil {
			return fmt.Errorf("tenancy: entitlements: usage of %s by %s: %w", f, t.ID, err)
		}
		e := Entitlement{Feature: f, Usage: used, PeriodStart: start, PeriodEnd: end}
		if l := limitOf(t, plan, overrides, f); l >= 0 {
			remaining := max(l-used, 0)
			e.Limit, e.Remaining = &l, &remaining
		}
		yield(e)
	}
	return nil
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
