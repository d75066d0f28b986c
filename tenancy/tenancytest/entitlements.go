package tenancytest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// RunEntitlements checks a tenancy.EntitlementStore: every method, its
// documented errors, its behaviour under concurrent consumers, that
// ConsumeUsage runs its follow-up on the caller's transaction, and that no
// tenant sees another's usage or limits.
func RunEntitlements(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"ConsumeUsage", testConsumeUsage},
		{"ConsumeUsageConcurrent", testConsumeUsageConcurrent},
		{"ConsumeUsageThen", testConsumeUsageThen},
		{"LimitOverrides", testLimitOverrides},
		{"EntitlementState", testEntitlementState},
		{"Isolation", testEntitlementIsolation},
	})
}

const (
	featureA = "collections.invoices"
	featureB = "support.tickets"
	periodA  = "2026-11"
	periodB  = "2026-12"
)

func testConsumeUsage(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)

	t.Run("ZeroBeforeAny", func(t *testing.T) {
		got, err := s.Usage(ctx, tenant.ID, featureA, periodA)
		wantErr(t, "Usage", err, nil)
		if got != 0 {
			t.Fatalf("Usage before any consumption: got %d, want 0", got)
		}
	})

	// The steps run in order on one tenant; each checks the usage after it.
	steps := []struct {
		name      string
		feature   string
		period    string
		n, limit  int64
		wantErr   error
		wantAfter int64 // ConsumeUsage's result when it succeeds, Usage after it either way
	}{
		{"First", featureA, periodA, 2, 3, nil, 2},
		{"ErrLimitExceededLeavesUsage", featureA, periodA, 2, 3, tenancy.ErrLimitExceeded, 2},
		{"UpToLimit", featureA, periodA, 1, 3, nil, 3},
		{"ErrLimitExceededAtLimit", featureA, periodA, 1, 3, tenancy.ErrLimitExceeded, 3},
		{"UnlimitedNegative", featureA, periodA, 100, -1, nil, 103},
		{"OtherPeriodCountsApart", featureA, periodB, 1, 1, nil, 1},
		{"ErrLimitExceededOtherPeriod", featureA, periodB, 1, 1, tenancy.ErrLimitExceeded, 1},
		{"OtherFeatureCountsApart", featureB, periodA, 5, 5, nil, 5},
		{"ErrLimitExceededZeroLimit", featureB, periodB, 1, 0, tenancy.ErrLimitExceeded, 0},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			after, err := s.ConsumeUsage(ctx, tenant.ID, st.feature, st.period, st.n, st.limit, nil)
			wantErr(t, "ConsumeUsage", err, st.wantErr)
			if err == nil && after != st.wantAfter {
				t.Fatalf("ConsumeUsage(n=%d, limit=%d): got usage %d, want %d", st.n, st.limit, after, st.wantAfter)
			}
			got, err := s.Usage(ctx, tenant.ID, st.feature, st.period)
			wantErr(t, "Usage", err, nil)
			if got != st.wantAfter {
				t.Fatalf("Usage after ConsumeUsage(n=%d, limit=%d): got %d, want %d", st.n, st.limit, got, st.wantAfter)
			}
		})
	}
}

// testConsumeUsageConcurrent races consumers against one small limit: the
// limit must hold exactly, with no consumer failing for another reason.
func testConsumeUsageConcurrent(t *testing.T, s Backend) {
	const workers, limit = 64, 10
	ctx := t.Context()
	tenant := mustTenant(t, s)

	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		succeeded int
		others    []error
	)
	for range workers {
		wg.Go(func() {
			_, err := s.ConsumeUsage(ctx, tenant.ID, featureA, periodA, 1, limit, nil)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				succeeded++
			case !errors.Is(err, tenancy.ErrLimitExceeded):
				others = append(others, err)
			}
		})
	}
	wg.Wait()
	if len(others) > 0 {
		t.Fatalf("ConsumeUsage failed other than ErrLimitExceeded: %v", others)
	}
	if succeeded != limit {
		t.Errorf("successful ConsumeUsage calls: got %d, want %d", succeeded, limit)
	}
	got, err := s.Usage(ctx, tenant.ID, featureA, periodA)
	wantErr(t, "Usage", err, nil)
	if got != limit {
		t.Errorf("usage after the race: got %d, want %d", got, limit)
	}
}

// testConsumeUsageThen checks that ConsumeUsage runs then on the
// transaction of its increment: alone, in a transaction of its own that
// then's failure rolls back; inside Backend.Tx's, as part of the caller's,
// committed and rolled back with it.
func testConsumeUsageThen(t *testing.T, s Backend) {
	ctx := t.Context()
	errBoom := errors.New("boom")
	exists := func(t *testing.T, slug string) bool { return tenantExists(t, s, slug) }
	usage := func(t *testing.T, tenantID string) int64 {
		t.Helper()
		got, err := s.Usage(ctx, tenantID, featureA, periodA)
		wantErr(t, "Usage", err, nil)
		return got
	}
	// consume spends one unit of tenantID's featureA and then, on the same
	// transaction, creates a tenant with slug and returns fail.
	consume := func(ctx context.Context, tenantID, slug string, fail error) error {
		_, err := s.ConsumeUsage(ctx, tenantID, featureA, periodA, 1, -1, func(ctx context.Context, used int64) error {
			if used != 1 {
				return fmt.Errorf("then: got usage %d, want 1", used)
			}
			if err := createBareTenant(ctx, s, slug); err != nil {
				return err
			}
			return fail
		})
		return err
	}

	t.Run("AloneCommits", func(t *testing.T) {
		tenant, slug := mustTenant(t, s), "then-"+unique()
		wantErr(t, "ConsumeUsage", consume(ctx, tenant.ID, slug, nil), nil)
		if !exists(t, slug) || usage(t, tenant.ID) != 1 {
			t.Fatalf("after ConsumeUsage and then: tenant exists=%v, usage %d; want true, 1", exists(t, slug), usage(t, tenant.ID))
		}
	})
	t.Run("AloneRollsBack", func(t *testing.T) {
		tenant, slug := mustTenant(t, s), "then-"+unique()
		wantErr(t, "ConsumeUsage returns then's error", consume(ctx, tenant.ID, slug, errBoom), errBoom)
		if exists(t, slug) || usage(t, tenant.ID) != 0 {
			t.Fatalf("after then failed: tenant exists=%v, usage %d; want false, 0", exists(t, slug), usage(t, tenant.ID))
		}
	})
	t.Run("RollsBackWithTheCaller", func(t *testing.T) {
		tenant, slug := mustTenant(t, s), "then-"+unique()
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			if err := consume(ctx, tenant.ID, slug, nil); err != nil {
				return err
			}
			return errBoom
		})
		wantErr(t, "InTx", err, errBoom)
		if exists(t, slug) || usage(t, tenant.ID) != 0 {
			t.Fatalf("within a rolled-back transaction: tenant exists=%v, usage %d; want false, 0", exists(t, slug), usage(t, tenant.ID))
		}
	})
	t.Run("CommitsWithTheCaller", func(t *testing.T) {
		tenant, slug := mustTenant(t, s), "then-"+unique()
		err := s.Tx.InTx(ctx, func(ctx context.Context) error { return consume(ctx, tenant.ID, slug, nil) })
		wantErr(t, "InTx", err, nil)
		if !exists(t, slug) || usage(t, tenant.ID) != 1 {
			t.Fatalf("within a committed transaction: tenant exists=%v, usage %d; want true, 1", exists(t, slug), usage(t, tenant.ID))
		}
	})
}

func testLimitOverrides(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	five, seven := int64(5), int64(7)

	// The steps run in order on one tenant; want is the whole map after each.
	steps := []struct {
		name    string
		feature string
		limit   *int64
		want    map[string]*int64
	}{
		{"None", "", nil, map[string]*int64{}},
		{"Set", featureA, &five, map[string]*int64{featureA: &five}},
		{"NilIsUnlimited", featureB, nil, map[string]*int64{featureA: &five, featureB: nil}},
		{"Replace", featureA, &seven, map[string]*int64{featureA: &seven, featureB: nil}},
		{"ReplaceWithUnlimited", featureA, nil, map[string]*int64{featureA: nil, featureB: nil}},
		{"Delete", featureB, nil, map[string]*int64{featureA: nil}},
		{"DeleteAbsent", featureB, nil, map[string]*int64{featureA: nil}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			switch {
			case strings.HasPrefix(st.name, "Delete"):
				wantErr(t, "DeleteLimitOverride", s.DeleteLimitOverride(ctx, tenant.ID, st.feature), nil)
			case st.feature != "":
				wantErr(t, "SetLimitOverride", s.SetLimitOverride(ctx, tenant.ID, st.feature, st.limit), nil)
			}
			got, err := s.LimitOverrides(ctx, tenant.ID)
			wantErr(t, "LimitOverrides", err, nil)
			if !sameLimits(got, st.want) {
				t.Fatalf("LimitOverrides: got %s, want %s", showLimits(got), showLimits(st.want))
			}
		})
	}
}

// testEntitlementState checks that EntitlementState reads back what the
// other methods wrote: the contract, switches, add-ons, overrides, and,
// for a period, that period's usage and the members; and nothing of
// another tenant.
func testEntitlementState(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant, other := mustTenant(t, s), mustTenant(t, s)

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, period := range []string{"", periodA} {
			_, err := s.EntitlementState(ctx, id.New(id.Tenant), tenancy.StateQuery{Period: period})
			wantErr(t, "EntitlementState(unknown, "+period+")", err, tenancy.ErrNotFound)
		}
	})
	t.Run("NewTenant", func(t *testing.T) {
		got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{Period: periodA, MemberID: id.New(id.User)})
		wantErr(t, "EntitlementState", err, nil)
		if got.TenantID != tenant.ID || got.PlanID != tenant.PlanID || got.Seats != tenant.Seats ||
			len(got.Toggles) != 0 || len(got.AddOns) != 0 || len(got.Overrides) != 0 || len(got.Usage) != 0 || got.Members != 0 || got.Member != nil {
			t.Fatalf("EntitlementState of a new tenant: got %+v, want plan %q, %d seats and nothing else", got, tenant.PlanID, tenant.Seats)
		}
	})

	five := int64(5)
	// Everything the state is made of, for both tenants; other's values
	// differ so that a leak shows.
	users := map[string]string{} // tenant → its first member
	for _, tn := range []struct {
		id    string
		used  int64
		role  tenancy.Role
		addOn string
	}{{tenant.ID, 3, tenancy.RoleOwner, "support.sla"}, {other.ID, 4, tenancy.RoleMember, "support.csat"}} {
		c := contract.Terms{TenantID: tn.id, PlanID: "growth", Seats: 12, AddOns: []string{tn.addOn, "collections.reminders"}}
		wantErr(t, "SetTerms", s.Contracts.SetTerms(ctx, c, at(1)), nil)
		_, err := s.SetModuleToggle(ctx, tn.id, "support.tickets", false, true, at(1))
		wantErr(t, "SetModuleToggle", err, nil)
		_, err = s.SetModuleToggle(ctx, tn.id, tn.addOn, true, false, at(1))
		wantErr(t, "SetModuleToggle", err, nil)
		wantErr(t, "SetLimitOverride", s.SetLimitOverride(ctx, tn.id, featureA, &five), nil)
		wantErr(t, "SetLimitOverride", s.SetLimitOverride(ctx, tn.id, featureB, nil), nil)
		_, err = s.ConsumeUsage(ctx, tn.id, featureA, periodA, tn.used, -1, nil)
		wantErr(t, "ConsumeUsage", err, nil)
		_, err = s.ConsumeUsage(ctx, tn.id, featureA, periodB, 7, -1, nil)
		wantErr(t, "ConsumeUsage", err, nil)
		users[tn.id] = mustMember(t, s, tn.id, mustUser(t, s).ID, tn.role).UserID
	}
	mustMember(t, s, tenant.ID, mustUser(t, s).ID, tenancy.RoleMember)

	t.Run("Member", func(t *testing.T) {
		got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{MemberID: users[tenant.ID]})
		wantErr(t, "EntitlementState", err, nil)
		if got.Member == nil || got.Member.TenantID != tenant.ID || got.Member.UserID != users[tenant.ID] || got.Member.Role != tenancy.RoleOwner {
			t.Fatalf("Member: got %+v, want %s's owner %s", got.Member, tenant.ID, users[tenant.ID])
		}
		if got.Period != "" || len(got.Usage) != 0 || got.Members != 0 {
			t.Fatalf("usage read without a period: got %q %v, %d members", got.Period, got.Usage, got.Members)
		}
	})
	t.Run("MemberOfAnotherTenant", func(t *testing.T) {
		got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{MemberID: users[other.ID]})
		wantErr(t, "EntitlementState", err, nil)
		if got.Member != nil {
			t.Fatalf("Member: got %+v for a member of another tenant, want nil", got.Member)
		}
	})

	tests := []struct {
		name      string
		period    string
		wantUsage map[string]int64
		members   int64
	}{
		{"WithoutPeriod", "", map[string]int64{}, 0},
		{"Period", periodA, map[string]int64{featureA: 3}, 2},
		{"OtherPeriod", periodB, map[string]int64{featureA: 7}, 2},
		{"PeriodWithoutUsage", "2027-01", map[string]int64{}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{Period: tc.period})
			wantErr(t, "EntitlementState", err, nil)
			if got.TenantID != tenant.ID || got.PlanID != "growth" || got.Seats != 12 {
				t.Fatalf("contract: got %s %q %d seats, want %s \"growth\" 12", got.TenantID, got.PlanID, got.Seats, tenant.ID)
			}
			if want := map[string]bool{"support.tickets": false, "support.sla": true}; !maps.Equal(got.Toggles, want) {
				t.Fatalf("Toggles: got %v, want %v", got.Toggles, want)
			}
			if want := []string{"collections.reminders", "support.sla"}; !slices.Equal(got.AddOns, want) {
				t.Fatalf("AddOns: got %v, want %v (sorted)", got.AddOns, want)
			}
			if want := map[string]*int64{featureA: &five, featureB: nil}; !sameLimits(got.Overrides, want) {
				t.Fatalf("Overrides: got %s, want %s", showLimits(got.Overrides), showLimits(want))
			}
			if got.Period != tc.period || !maps.Equal(got.Usage, tc.wantUsage) {
				t.Fatalf("usage: got period %q %v, want %q %v", got.Period, got.Usage, tc.period, tc.wantUsage)
			}
			if got.Members != tc.members {
				t.Fatalf("Members: got %d, want %d", got.Members, tc.members)
			}
		})
	}
}

func sameLimits(got, want map[string]*int64) bool {
	if len(got) != len(want) {
		return false
	}
	for f, w := range want {
		g, ok := got[f]
		if !ok || (g == nil) != (w == nil) || (g != nil && *g != *w) {
			return false
		}
	}
	return true
}

func showLimits(m map[string]*int64) string {
	var parts []string
	for f, l := range m {
		v := "unlimited"
		if l != nil {
			v = fmt.Sprint(*l)
		}
		parts = append(parts, f+"="+v)
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, " ") + "}"
}
