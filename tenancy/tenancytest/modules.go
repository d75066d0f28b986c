package tenancytest

import (
	"sync"
	"testing"
)

// RunModules checks a tenancy.ModuleStore: every method, its behaviour
// under concurrent callers, and that no tenant sees another's switches.
func RunModules(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"ModuleToggles", testModuleToggles},
		{"ModuleTogglesConcurrent", testModuleTogglesConcurrent},
		{"Isolation", testModuleIsolation},
	})
}

func testModuleToggles(t *testing.T, s Backend) {
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
func testModuleTogglesConcurrent(t *testing.T, s Backend) {
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
