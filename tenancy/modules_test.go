package tenancy_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

func TestService_Modules(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tests := []struct {
			plan string
			want []tenancy.ModuleState
		}{
			{catalog.PlanFree, []tenancy.ModuleState{
				{Module: catalog.ModuleInvoices, Enabled: true},
				{Module: catalog.ModuleTickets, Enabled: true},
			}},
			{catalog.PlanStarter, []tenancy.ModuleState{
				{Module: catalog.ModuleInvoices, Enabled: true},
				{Module: catalog.ModuleReminders, Enabled: false},
				{Module: catalog.ModuleTickets, Enabled: true},
				{Module: catalog.ModuleSLA, Enabled: false},
			}},
			{catalog.PlanGrowth, []tenancy.ModuleState{
				{Module: catalog.ModuleInvoices, Enabled: true},
				{Module: catalog.ModuleReminders, Enabled: true},
				{Module: catalog.ModuleDunning, Enabled: false},
				{Module: catalog.ModuleTickets, Enabled: true},
				{Module: catalog.ModuleSLA, Enabled: true},
				{Module: catalog.ModuleCSAT, Enabled: false},
			}},
		}
		for _, tc := range tests {
			t.Run(tc.plan, func(t *testing.T) {
				tenant := mustTenant(t, e.svc, tc.plan)
				got, err := e.svc.Modules.List(ctx, tenant.ID)
				wantErr(t, "Modules", err, nil)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("Modules(%s): got %v, want %v", tc.plan, got, tc.want)
				}
			})
		}
		t.Run("ErrNotFoundTenant", func(t *testing.T) {
			_, err := e.svc.Modules.List(ctx, id.New(id.Tenant))
			wantErr(t, "Modules(unknown tenant)", err, tenancy.ErrNotFound)
		})
	})
}

func TestService_ToggleModule(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		if _, err := e.contracts.Change(ctx, tenant.ID, contract.Change{AddModules: []string{catalog.ModuleSLA}}); err != nil {
			t.Fatalf("buy SLA: %v", err)
		}

		// The steps run in order on one tenant. wantOn is EnabledModules
		// after the step, wantNotes the module.toggled notifications so far.
		steps := []struct {
			name        string
			role        tenancy.Role
			module      string
			enabled     bool
			wantErr     error
			wantChanged bool
			wantOn      []string
			wantNotes   int
		}{
			{"ErrForbiddenMember", tenancy.RoleMember, catalog.ModuleSLA, true, tenancy.ErrForbidden, false, nil, 0},
			{"ErrForbiddenBilling", tenancy.RoleBilling, catalog.ModuleSLA, true, tenancy.ErrForbidden, false, nil, 0},
			{"ErrForbiddenSupport", tenancy.RoleSupport, catalog.ModuleSLA, true, tenancy.ErrForbidden, false, nil, 0},
			{"ErrForbiddenUnknownRole", "", catalog.ModuleSLA, true, tenancy.ErrForbidden, false, nil, 0},
			{"ErrInvalidNotToggleable", tenancy.RoleOwner, catalog.ModuleInvoices, false, tenancy.ErrInvalid, false, nil, 0},
			{"ErrInvalidNotOffered", tenancy.RoleOwner, catalog.ModuleCSAT, true, tenancy.ErrInvalid, false, nil, 0},
			{"ErrInvalidAddOnNotBought", tenancy.RoleOwner, catalog.ModuleReminders, true, tenancy.ErrInvalid, false, nil, 0},
			{"ErrInvalidUnknown", tenancy.RoleOwner, "support.chat", true, tenancy.ErrInvalid, false, nil, 0},
			// SLA is bought (before the steps): on by default, switchable.
			{"DisableBoughtAddOn", tenancy.RoleAdmin, catalog.ModuleSLA, false, nil, true,
				[]string{catalog.ModuleInvoices, catalog.ModuleTickets}, 1},
			{"EnableAddOn", tenancy.RoleAdmin, catalog.ModuleSLA, true, nil, true,
				[]string{catalog.ModuleInvoices, catalog.ModuleTickets, catalog.ModuleSLA}, 2},
			{"EnableAgainIsNoOp", tenancy.RoleOwner, catalog.ModuleSLA, true, nil, false,
				[]string{catalog.ModuleInvoices, catalog.ModuleTickets, catalog.ModuleSLA}, 2},
			{"DisableIncluded", tenancy.RoleOwner, catalog.ModuleTickets, false, nil, true,
				[]string{catalog.ModuleInvoices, catalog.ModuleSLA}, 3},
			{"DisableAgainIsNoOp", tenancy.RoleAdmin, catalog.ModuleTickets, false, nil, false,
				[]string{catalog.ModuleInvoices, catalog.ModuleSLA}, 3},
			{"EnableIncludedAgain", tenancy.RoleAdmin, catalog.ModuleTickets, true, nil, true,
				[]string{catalog.ModuleInvoices, catalog.ModuleTickets, catalog.ModuleSLA}, 4},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				state, changed, err := e.svc.Modules.Toggle(ctx, tenant.ID, st.role, st.module, st.enabled)
				if st.wantErr == tenancy.ErrInvalid {
					wantFields(t, "ToggleModule", err, "module")
				} else {
					wantErr(t, "ToggleModule", err, st.wantErr)
				}
				if st.wantErr == nil && (state != tenancy.ModuleState{Module: st.module, Enabled: st.enabled} || changed != st.wantChanged) {
					t.Fatalf("ToggleModule: got %+v changed=%v, want enabled=%v changed=%v", state, changed, st.enabled, st.wantChanged)
				}
				if st.wantOn != nil {
					on, err := e.svc.Modules.Enabled(ctx, tenant.ID)
					wantErr(t, "EnabledModules", err, nil)
					want := slices.Sorted(slices.Values(st.wantOn))
					if !slices.Equal(on, want) {
						t.Fatalf("EnabledModules: got %v, want %v", on, want)
					}
				}
				notes := mustNotifications(t, e.svc, tenant.ID, tenancy.NotificationFilter{})
				if len(notes) != st.wantNotes {
					t.Fatalf("module.toggled notifications: got %d, want %d", len(notes), st.wantNotes)
				}
				if changed {
					n := notes[0]
					want := jsonOf(t, map[string]any{"enabled": st.enabled, "module": st.module})
					if n.Type != tenancy.NotificationModuleToggled || jsonOf(t, n.Data) != want || n.Title == "" {
						t.Fatalf("notification: got %+v data %s, want type %s data %s", n, jsonOf(t, n.Data), tenancy.NotificationModuleToggled, want)
					}
				}
			})
		}
		t.Run("ErrNotFoundTenant", func(t *testing.T) {
			_, _, err := e.svc.Modules.Toggle(ctx, id.New(id.Tenant), tenancy.RoleOwner, catalog.ModuleSLA, true)
			wantErr(t, "ToggleModule(unknown tenant)", err, tenancy.ErrNotFound)
		})
	})
}

// TestService_ToggleModuleConcurrent races owners asking for the same
// switch: one change, one notification.
func TestService_ToggleModuleConcurrent(t *testing.T) {
	const workers = 16
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanGrowth)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			changed int
			errs    []error
		)
		for range workers {
			wg.Go(func() {
				_, ok, err := e.svc.Modules.Toggle(ctx, tenant.ID, tenancy.RoleOwner, catalog.ModuleSLA, false)
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
			t.Fatalf("ToggleModule failed: %v", errs)
		}
		if notes := mustNotifications(t, e.svc, tenant.ID, tenancy.NotificationFilter{}); changed != 1 || len(notes) != 1 {
			t.Fatalf("changes reported: %d, notifications: %d; want 1 and 1", changed, len(notes))
		}
	})
}

func TestService_RequireModule(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		if _, _, err := e.svc.Modules.Toggle(ctx, tenant.ID, tenancy.RoleOwner, catalog.ModuleTickets, false); err != nil {
			t.Fatalf("ToggleModule: %v", err)
		}
		if _, err := e.contracts.Change(ctx, tenant.ID, contract.Change{AddModules: []string{catalog.ModuleSLA}}); err != nil {
			t.Fatalf("buy SLA: %v", err)
		}
		tests := []struct {
			module  string
			wantErr error
		}{
			{catalog.ModuleInvoices, nil},
			{catalog.ModuleSLA, nil},
			{catalog.ModuleTickets, tenancy.ErrModuleDisabled},
			{catalog.ModuleReminders, tenancy.ErrModuleDisabled},
			{catalog.ModuleCSAT, tenancy.ErrModuleDisabled},
			{"support.chat", tenancy.ErrModuleDisabled},
		}
		for _, tc := range tests {
			t.Run(tc.module, func(t *testing.T) {
				wantErr(t, "RequireModule", e.svc.Entitlements.RequireModule(ctx, tenant.ID, tc.module), tc.wantErr)
			})
		}
		t.Run("ErrNotFoundTenant", func(t *testing.T) {
			wantErr(t, "RequireModule(unknown tenant)", e.svc.Entitlements.RequireModule(ctx, id.New(id.Tenant), catalog.ModuleInvoices), tenancy.ErrNotFound)
		})
	})
}

// TestNewModules_NilTransactor: a Modules without a Transactor could commit
// a switch without its notification, so building one is refused.
func TestNewModules_NilTransactor(t *testing.T) {
	dir := tenancy.NewDirectory(nil, catalog.Default())
	notes := tenancy.NewNotifications(nil)
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "Transactor") || !strings.Contains(msg, "notification") {
			t.Fatalf("NewModules(nil tx): recovered %q, want a panic naming the Transactor and what would not commit as one", msg)
		}
	}()
	tenancy.NewModules(nil, tenancy.NewEntitlements(nil, dir, notes), notes, nil)
}
