package tenancy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/catalog"
)

// ModuleState says whether one module is on for a tenant, as
// PATCH /api/tenant/entitlements/toggle answers it.
type ModuleState struct {
	Module  string `json:"module"`
	Enabled bool   `json:"enabled"`
}

// moduleOn decides whether module is on: the tenant's switch when it may
// switch the module (switchable), else its default (moduleDefault). A
// switch left over from an earlier plan or a cancelled add-on has no
// effect.
func (s *Service) moduleOn(plan catalog.Plan, addOns []string, toggles map[string]bool, module string) bool {
	if on, ok := toggles[module]; ok && s.switchable(plan, addOns, module) {
		return on
	}
	return moduleDefault(plan, addOns, module)
}

// switchable reports whether a tenant may switch module on and off: the
// catalog marks it toggleable and the tenant has it, by its plan or as a
// contracted add-on. An add-on the plan merely sells must be bought (a
// contract change request) before it can be switched on: toggling is not
// a way around paying.
func (s *Service) switchable(plan catalog.Plan, addOns []string, module string) bool {
	return s.catalog.Toggleable(plan, module) && moduleDefault(plan, addOns, module)
}

// moduleDefault is whether module is on while the tenant has no switch for
// it: when the plan includes it, or when it is a contracted add-on that the
// plan sells (an add-on the catalog stopped selling for the plan is off).
func moduleDefault(plan catalog.Plan, addOns []string, module string) bool {
	if plan.Includes(module) {
		return true
	}
	_, sold := plan.AddOn(module)
	return sold && slices.Contains(addOns, module)
}

// Modules lists every module the tenant's plan includes or sells as an
// add-on, in catalog order, with whether it is on: included modules and
// contracted add-ons (Contract.AddOns) are on unless switched off.
// ErrNotFound when the tenant does not exist.
func (s *Service) Modules(ctx context.Context, tenantID string) ([]ModuleState, error) {
	st, plan, err := s.state(ctx, tenantID, "")
	if err != nil {
		return nil, err
	}
	return s.modulesOf(st, plan), nil
}

// modulesOf lists the modules of Modules from the tenant's state.
func (s *Service) modulesOf(st EntitlementState, plan catalog.Plan) []ModuleState {
	out := []ModuleState{}
	for _, app := range s.catalog.Apps {
		for _, m := range app.Modules {
			if _, addOn := plan.AddOn(m.ID); !plan.Includes(m.ID) && !addOn {
				continue
			}
			out = append(out, ModuleState{Module: m.ID, Enabled: s.moduleOn(plan, st.AddOns, st.Toggles, m.ID)})
		}
	}
	return out
}

// EnabledModules returns the ids of the modules on for a tenant, sorted:
// its plan's included modules and its contracted add-ons, with its
// switches applied on top.
func (s *Service) EnabledModules(ctx context.Context, tenantID string) ([]string, error) {
	states, err := s.Modules(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	on := []string{}
	for _, m := range states {
		if m.Enabled {
			on = append(on, m.Module)
		}
	}
	slices.Sort(on)
	return on, nil
}

// RequireModule returns a *ModuleDisabledError (matching
// ErrModuleDisabled) unless module is on for the tenant. It reads the
// tenant's state once.
func (s *Service) RequireModule(ctx context.Context, tenantID, module string) error {
	st, plan, err := s.state(ctx, tenantID, "")
	if err != nil {
		return err
	}
	if !s.moduleOn(plan, st.AddOns, st.Toggles, module) {
		return fmt.Errorf("tenancy: %w", &ModuleDisabledError{Module: module})
	}
	return nil
}

// ToggleModule switches a module on or off for the tenant on behalf of a
// member with role, and reports whether that changed anything. Asking for
// the state the module already has changes nothing and notifies no one; a
// change creates a module.toggled notification in the same transaction.
// ErrForbidden unless the role may manage entitlements (owner, admin);
// InvalidError (field "module") unless the tenant may switch the module:
// toggleable in the catalog, and included in its plan or bought as an
// add-on; ErrNotFound for an unknown tenant.
func (s *Service) ToggleModule(ctx context.Context, tenantID string, role Role, module string, enabled bool) (ModuleState, bool, error) {
	if !role.Can(PermEntitlementsManage) {
		return ModuleState{}, false, fmt.Errorf("tenancy: toggle %s as %s: %w", module, role, ErrForbidden)
	}
	st, plan, err := s.state(ctx, tenantID, "")
	if err != nil {
		return ModuleState{}, false, err
	}
	addOns := st.AddOns
	if !s.switchable(plan, addOns, module) {
		return ModuleState{}, false, fmt.Errorf("tenancy: toggle %q: %w", module, invalid("module", s.toggleableHint(plan, addOns)))
	}
	var changed bool
	err = s.store.RunInTx(ctx, func(ctx context.Context) error {
		var err error
		changed, err = s.store.SetModuleToggle(ctx, tenantID, module, enabled, moduleDefault(plan, addOns, module), s.now().UTC())
		if err != nil {
			return fmt.Errorf("tenancy: toggle %s for %s: %w", module, tenantID, err)
		}
		if !changed {
			return nil
		}
		_, err = s.Notify(ctx, tenantID, s.toggledNotification(module, enabled))
		return err
	})
	if err != nil {
		return ModuleState{}, false, err
	}
	return ModuleState{Module: module, Enabled: enabled}, changed, nil
}

// toggleableHint tells a caller which modules it may switch.
func (s *Service) toggleableHint(plan catalog.Plan, addOns []string) string {
	var ids []string
	for _, app := range s.catalog.Apps {
		for _, m := range app.Modules {
			if s.switchable(plan, addOns, m.ID) {
				ids = append(ids, m.ID)
			}
		}
	}
	if len(ids) == 0 {
		return fmt.Sprintf("plan %q has no module you can switch", plan.ID)
	}
	return fmt.Sprintf("plan %q lets you switch only %s", plan.ID, strings.Join(ids, ", "))
}

func (s *Service) toggledNotification(module string, enabled bool) NewNotification {
	name := module
	if m, ok := s.catalog.Module(module); ok {
		name = m.Name
	}
	state := "disabled"
	if enabled {
		state = "enabled"
	}
	return NewNotification{
		Type:  NotificationModuleToggled,
		Title: fmt.Sprintf("%s %s", name, state),
		Body:  fmt.Sprintf("The %s module (%s) was %s for your organisation.", name, module, state),
		Data:  map[string]any{"module": module, "enabled": enabled},
	}
}
