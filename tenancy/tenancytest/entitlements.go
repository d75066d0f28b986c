package tenancytest

import (
	"errors"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/tenancy"
)

const (
	featureA = "collections.invoices"
	featureB = "support.tickets"
	periodA  = "2026-11"
	periodB  = "2026-12"
)

func testConsumeUsage(t *testing.T, s tenancy.Store) {
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
			after, err := s.ConsumeUsage(ctx, tenant.ID, st.feature, st.period, st.n, st.limit)
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
func testConsumeUsageConcurrent(t *testing.T, s tenancy.Store) {
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
			_, err := s.ConsumeUsage(ctx, tenant.ID, featureA, periodA, 1, limit)
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

func testLimitOverrides(t *testing.T, s tenancy.Store) {
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
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.feature != "" {
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

func testModuleToggles(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	const sla, csat, tickets = "support.sla", "support.csat", "support.tickets"

	t.Run("None", func(t *testing.T) {
		got, err := s.ModuleToggles(ctx, tenant.ID)
		wantErr(t, "ModuleToggles", err, nil)
		if len(got) != 0 {
			t.Fatalf("ModuleToggles before any: got %v, want none", got)
		}
	})

	// The steps run in order on one tenant.
	steps := []struct {
		name             string
		module           string
		enabled, initial bool
		wantChanged      bool
	}{
		{"EnableFromInitialOff", sla, true, false, true},
		{"EnableAgain", sla, true, false, false},
		{"DisableRecorded", sla, false, false, true},
		{"DisableAgain", sla, false, false, false},
		{"AskInitialState", csat, true, true, false},
		{"DisableFromInitialOn", tickets, false, true, true},
		{"EnableRecordedOff", tickets, true, true, true},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			changed, err := s.SetModuleToggle(ctx, tenant.ID, st.module, st.enabled, st.initial, at(1))
			wantErr(t, "SetModuleToggle", err, nil)
			if changed != st.wantChanged {
				t.Fatalf("SetModuleToggle(%s, enabled=%v, initial=%v): got changed=%v, want %v",
					st.module, st.enabled, st.initial, changed, st.wantChanged)
			}
			toggles, err := s.ModuleToggles(ctx, tenant.ID)
			wantErr(t, "ModuleToggles", err, nil)
			on, recorded := toggles[st.module]
			if !recorded {
				on = st.initial
			}
			if on != st.enabled {
				t.Fatalf("state of %s after SetModuleToggle(enabled=%v): got %v (recorded=%v)", st.module, st.enabled, on, recorded)
			}
		})
	}
}

// testModuleTogglesConcurrent races callers asking for the same switch:
// exactly one of them may report the change (and so notify).
func testModuleTogglesConcurrent(t *testing.T, s tenancy.Store) {
	const workers = 16
	ctx := t.Context()
	tenant := mustTenant(t, s)

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		changed int
		errs    []error
	)
	for range workers {
		wg.Go(func() {
			ok, err := s.SetModuleToggle(ctx, tenant.ID, "support.sla", true, false, at(1))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			} else if ok {
				changed++
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("SetModuleToggle failed: %v", errs)
	}
	if changed != 1 {
		t.Fatalf("callers told of a change: got %d, want 1", changed)
	}
}
