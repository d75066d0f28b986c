package contract_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

func TestContract_With(t *testing.T) {
	cat := catalog.Default()
	starter := contract.Terms{TenantID: "ten_a", PlanID: catalog.PlanStarter, Seats: 3, AddOns: []string{catalog.ModuleSLA}}
	growth := contract.Terms{TenantID: "ten_a", PlanID: catalog.PlanGrowth, Seats: 12, AddOns: []string{catalog.ModuleCSAT, catalog.ModuleDunning}}
	tests := []struct {
		name       string
		from       contract.Terms
		change     contract.Change
		members    int64
		wantPlan   string
		wantSeats  int
		wantAddOns []string
		wantFields []string // an InvalidError on these fields instead
	}{
		{"NoChange", starter, contract.Change{}, 1, catalog.PlanStarter, 3, []string{catalog.ModuleSLA}, nil},
		{"UpgradeDropsIncludedAddOnRaisesSeats", starter, contract.Change{PlanID: catalog.PlanGrowth}, 2,
			catalog.PlanGrowth, 10, []string{}, nil},
		{"DowngradeKeepsSoldDropsUnoffered", growth, contract.Change{PlanID: catalog.PlanStarter}, 2,
			catalog.PlanStarter, 12, []string{}, nil},
		{"DowngradeToFreeCapsSeats", starter, contract.Change{PlanID: catalog.PlanFree}, 2, catalog.PlanFree, 2, []string{}, nil},
		{"ErrDowngradeBelowMembers", starter, contract.Change{PlanID: catalog.PlanFree}, 3, "", 0, nil, []string{"plan_id"}},
		{"ExplicitSeatsWithPlan", starter, contract.Change{PlanID: catalog.PlanGrowth, Seats: intPtr(4)}, 4, catalog.PlanGrowth, 4, []string{}, nil},
		{"Seats", starter, contract.Change{Seats: intPtr(7)}, 7, catalog.PlanStarter, 7, []string{catalog.ModuleSLA}, nil},
		{"ErrSeatsBelowMembers", starter, contract.Change{Seats: intPtr(2)}, 3, "", 0, nil, []string{"seats"}},
		{"ErrSeatsZero", starter, contract.Change{Seats: intPtr(0)}, 0, "", 0, nil, []string{"seats"}},
		{"ErrSeatsAboveMax", starter, contract.Change{Seats: intPtr(contract.MaxSeats + 1)}, 0, "", 0, nil, []string{"seats"}},
		{"ErrSeatsAbovePlanLimit", contract.Terms{PlanID: catalog.PlanFree, Seats: 2}, contract.Change{Seats: intPtr(3)}, 1, "", 0, nil, []string{"seats"}},
		{"AddModule", starter, contract.Change{AddModules: []string{catalog.ModuleReminders}}, 1,
			catalog.PlanStarter, 3, []string{catalog.ModuleReminders, catalog.ModuleSLA}, nil},
		{"PlanAndModule", starter, contract.Change{PlanID: catalog.PlanGrowth, AddModules: []string{catalog.ModuleDunning}}, 1,
			catalog.PlanGrowth, 10, []string{catalog.ModuleDunning}, nil},
		{"ErrAddUnknownModule", starter, contract.Change{AddModules: []string{"support.chat"}}, 1, "", 0, nil, []string{"modules"}},
		{"ErrAddNotOffered", starter, contract.Change{AddModules: []string{catalog.ModuleCSAT}}, 1, "", 0, nil, []string{"modules"}},
		{"ErrAddIncluded", starter, contract.Change{AddModules: []string{catalog.ModuleTickets}}, 1, "", 0, nil, []string{"modules"}},
		{"ErrAddTwice", starter, contract.Change{AddModules: []string{catalog.ModuleSLA}}, 1, "", 0, nil, []string{"modules"}},
		{"RemoveModule", starter, contract.Change{RemoveModules: []string{catalog.ModuleSLA}}, 1, catalog.PlanStarter, 3, []string{}, nil},
		{"ErrRemoveIncluded", starter, contract.Change{RemoveModules: []string{catalog.ModuleTickets}}, 1, "", 0, nil, []string{"modules"}},
		{"ErrRemoveNotContracted", starter, contract.Change{RemoveModules: []string{catalog.ModuleReminders}}, 1, "", 0, nil, []string{"modules"}},
		{"ErrUnknownPlan", starter, contract.Change{PlanID: "gold"}, 1, "", 0, nil, []string{"plan_id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.from.With(cat, tc.change, tc.members)
			if tc.wantFields != nil {
				wantFields(t, "With", err, tc.wantFields...)
				return
			}
			wantErr(t, "With", err, nil)
			if got.PlanID != tc.wantPlan || got.Seats != tc.wantSeats || !slices.Equal(got.AddOns, tc.wantAddOns) {
				t.Fatalf("With(%+v): got plan %q seats %d add-ons %v, want %q %d %v",
					tc.change, got.PlanID, got.Seats, got.AddOns, tc.wantPlan, tc.wantSeats, tc.wantAddOns)
			}
			if got.TenantID != tc.from.TenantID {
				t.Fatalf("With: got tenant %q, want %q", got.TenantID, tc.from.TenantID)
			}
		})
	}
	t.Run("DoesNotChangeItsReceiver", func(t *testing.T) {
		before := slices.Clone(starter.AddOns)
		if _, err := starter.With(cat, contract.Change{RemoveModules: []string{catalog.ModuleSLA}}, 1); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(starter.AddOns, before) {
			t.Fatalf("receiver's add-ons: got %v, want %v", starter.AddOns, before)
		}
	})
}

func TestService_Contract(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.ten, catalog.PlanStarter)
		got, err := e.svc.Current(ctx, tenant.ID)
		wantErr(t, "Contract", err, nil)
		want := contract.Terms{
			TenantID: tenant.ID, PlanID: catalog.PlanStarter, Seats: 3, AddOns: []string{},
			PeriodStart: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), PeriodEnd: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		}
		if jsonString(got) != jsonString(want) {
			t.Fatalf("Contract: got %s, want %s", jsonString(got), jsonString(want))
		}
		_, err = e.svc.Current(ctx, id.New(id.Tenant))
		wantErr(t, "Contract(unknown tenant)", err, tenancy.ErrNotFound)
	})
}

func TestService_ApplyContractChange(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.ten, catalog.PlanStarter)
		owner := mustUser(t, e.ten)
		mustMember(t, e.ten, tenant.ID, owner, tenancy.RoleOwner)
		// The tenant switches tickets off. It cannot switch the SLA add-on
		// on without buying it: toggling is no way around paying.
		if _, _, err := e.ten.Modules.Toggle(ctx, tenant.ID, tenancy.RoleOwner, catalog.ModuleSLA, true); !errors.Is(err, tenancy.ErrInvalid) {
			t.Fatalf("ToggleModule(unbought add-on): got %v, want ErrInvalid", err)
		}
		if _, _, err := e.ten.Modules.Toggle(ctx, tenant.ID, tenancy.RoleOwner, catalog.ModuleTickets, false); err != nil {
			t.Fatalf("ToggleModule(%s): %v", catalog.ModuleTickets, err)
		}

		// The steps run in order on one tenant; wantOn is EnabledModules
		// after each, wantInvoices the collections.invoices limit.
		steps := []struct {
			name         string
			change       contract.Change
			wantErr      error
			wantOn       []string
			wantInvoices *int64
			wantSeats    *int64
		}{
			{"BuyReminders", contract.Change{AddModules: []string{catalog.ModuleReminders}}, nil,
				[]string{catalog.ModuleInvoices, catalog.ModuleReminders}, ptr(100), ptr(3)},
			{"Seats", contract.Change{Seats: intPtr(8)}, nil,
				[]string{catalog.ModuleInvoices, catalog.ModuleReminders}, ptr(100), ptr(8)},
			// Growth includes reminders and SLA: the add-on lapses, the
			// tickets switch (still toggleable) survives.
			{"Upgrade", contract.Change{PlanID: catalog.PlanGrowth}, nil,
				[]string{catalog.ModuleInvoices, catalog.ModuleReminders, catalog.ModuleSLA}, ptr(1000), ptr(10)},
			{"BuyDunning", contract.Change{AddModules: []string{catalog.ModuleDunning}}, nil,
				[]string{catalog.ModuleDunning, catalog.ModuleInvoices, catalog.ModuleReminders, catalog.ModuleSLA}, ptr(1000), ptr(10)},
			{"ErrInvalidLeavesContract", contract.Change{AddModules: []string{catalog.ModuleSLA}}, tenancy.ErrInvalid,
				[]string{catalog.ModuleDunning, catalog.ModuleInvoices, catalog.ModuleReminders, catalog.ModuleSLA}, ptr(1000), ptr(10)},
			// Enterprise includes everything; the tickets switch survives.
			{"Enterprise", contract.Change{PlanID: catalog.PlanEnterprise}, nil,
				[]string{catalog.ModuleDunning, catalog.ModuleInvoices, catalog.ModuleReminders, catalog.ModuleCSAT, catalog.ModuleSLA}, nil, ptr(50)},
			{"ErrZeroSeats", contract.Change{PlanID: catalog.PlanFree, Seats: intPtr(0)}, tenancy.ErrInvalid,
				nil, nil, ptr(50)},
			// Free caps the seats at 2 and offers no add-on; only the
			// tickets switch survives, so tickets stay off.
			{"Free", contract.Change{PlanID: catalog.PlanFree}, nil,
				[]string{catalog.ModuleInvoices}, ptr(10), ptr(2)},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				c, err := e.svc.Change(ctx, tenant.ID, st.change)
				wantErr(t, "ApplyContractChange", err, st.wantErr)
				if err == nil && c.TenantID != tenant.ID {
					t.Fatalf("ApplyContractChange: got contract of %q, want %q", c.TenantID, tenant.ID)
				}
				if st.wantOn != nil {
					on, err := e.ten.Modules.Enabled(ctx, tenant.ID)
					wantErr(t, "EnabledModules", err, nil)
					if want := slices.Sorted(slices.Values(st.wantOn)); !slices.Equal(on, want) {
						t.Fatalf("EnabledModules: got %v, want %v", on, want)
					}
				}
				for feature, want := range map[string]*int64{catalog.FeatureInvoices: st.wantInvoices, catalog.FeatureSeats: st.wantSeats} {
					got := mustEntitlement(t, e.ten, tenant.ID, feature).Limit
					if (got == nil) != (want == nil) || (got != nil && *got != *want) {
						t.Fatalf("limit of %s: got %v, want %v", feature, fmtLimit(got), fmtLimit(want))
					}
				}
			})
		}
		t.Run("ErrNotFoundTenant", func(t *testing.T) {
			_, err := e.svc.Change(ctx, id.New(id.Tenant), contract.Change{Seats: intPtr(3)})
			wantErr(t, "ApplyContractChange(unknown tenant)", err, tenancy.ErrNotFound)
		})
	})
}

// TestService_ApplyContractChangeConcurrent buys two add-ons at once: the
// tenant's row lock makes the second change see the first.
func TestService_ApplyContractChangeConcurrent(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.ten, catalog.PlanStarter)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, m := range []string{catalog.ModuleSLA, catalog.ModuleReminders} {
			wg.Go(func() {
				_, errs[i] = e.svc.Change(ctx, tenant.ID, contract.Change{AddModules: []string{m}})
			})
		}
		wg.Wait()
		for _, err := range errs {
			wantErr(t, "ApplyContractChange", err, nil)
		}
		c, err := e.svc.Current(ctx, tenant.ID)
		wantErr(t, "Contract", err, nil)
		if want := []string{catalog.ModuleReminders, catalog.ModuleSLA}; !slices.Equal(c.AddOns, want) {
			t.Fatalf("add-ons after two concurrent purchases: got %v, want %v", c.AddOns, want)
		}
	})
}

func fmtLimit(l *int64) any {
	if l == nil {
		return "unlimited"
	}
	return *l
}

// TestService_ContractedAddOnSwitch switches a bought add-on off, and
// checks that giving it up and buying it again starts from its default.
func TestService_ContractedAddOnSwitch(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.ten, catalog.PlanStarter)
		slaOn := func(t *testing.T) bool {
			t.Helper()
			on, err := e.ten.Modules.Enabled(ctx, tenant.ID)
			wantErr(t, "EnabledModules", err, nil)
			return slices.Contains(on, catalog.ModuleSLA)
		}
		change := func(t *testing.T, ch contract.Change) {
			t.Helper()
			_, err := e.svc.Change(ctx, tenant.ID, ch)
			wantErr(t, "ApplyContractChange", err, nil)
		}
		steps := []struct {
			name   string
			do     func(t *testing.T)
			wantOn bool
		}{
			{"Buy", func(t *testing.T) { change(t, contract.Change{AddModules: []string{catalog.ModuleSLA}}) }, true},
			{"SwitchOff", func(t *testing.T) {
				_, changed, err := e.ten.Modules.Toggle(ctx, tenant.ID, tenancy.RoleOwner, catalog.ModuleSLA, false)
				wantErr(t, "ToggleModule", err, nil)
				if !changed {
					t.Fatal("switching a bought add-on off: got changed=false, want true")
				}
			}, false},
			{"GiveUp", func(t *testing.T) { change(t, contract.Change{RemoveModules: []string{catalog.ModuleSLA}}) }, false},
			{"BuyAgainStartsOn", func(t *testing.T) { change(t, contract.Change{AddModules: []string{catalog.ModuleSLA}}) }, true},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				st.do(t)
				if got := slaOn(t); got != st.wantOn {
					t.Fatalf("SLA on after %s: got %v, want %v", st.name, got, st.wantOn)
				}
			})
		}
	})
}
