package tenancy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
)

// ModuleState says whether one module is on for a tenant, as
// PATCH /api/tenant/entitlements/toggle answers it.
type ModuleState struct {
	Module  string `json:"module"`
	Enabled bool   `json:"enabled"`
}

// ModuleStore is the persistence Modules needs: the tenant's switches.
// Implementations must be safe for concurrent use, join the transaction
// carried by ctx when there is one, confine every read and write to the
// tenant they are given, and translate driver errors into the sentinels
// named below. tenancytest.RunModules checks all of it.
type ModuleStore interface {
	// ModuleToggles returns the tenant's explicit module switches; none
	// (not an error) for an unknown tenant.
	ModuleToggles(ctx context.Context, tenantID string) (map[string]bool, error)
	// SetModuleToggle records the tenant's switch for module and reports
	// whether it changed the module's state. initial is the state the
	// module has while no switch is recorded (on when the plan includes it).
	// Check and write are one atomic step: of concurrent calls asking for
	// the same state, exactly one reports a change. ErrNotFound when the
	// tenant does not exist.
	SetModuleToggle(ctx context.Context, tenantID, module string, enabled, initial bool, at time.Time) (changed bool, err error)
}

// Modules lists a tenant's modules and switches them on and off for it.
type Modules struct {
	store ModuleStore
	ent   *Entitlements
	notes *Notifications
	tx    Transactor
	now   func() time.Time
	// events records the audit trail (WithEvents); nil records nothing.
	events Events
}

// NewModules returns Modules on store, reading the tenant's state with ent
// and notifying its members through notes. A switch and its notification
// are one transaction of tx. A nil tx is a programming error that would
// let a switch commit without its notification: NewModules panics.
func NewModules(store ModuleStore, ent *Entitlements, notes *Notifications, tx Transactor, opts ...Option) *Modules {
	if tx == nil {
		panic("tenancy: NewModules without a Transactor: a module switch and its notification would not commit as one")
	}
	o := newOptions(opts)
	return &Modules{store: store, ent: ent, notes: notes, tx: tx, now: o.now, events: o.events}
}

// moduleOn decides whether module is on: the tenant's switch when it may
// switch the module (switchable), else its default (moduleDefault). A
// switch left over from an earlier plan or a cancelled add-on has no
// effect.
func moduleOn(cat *catalog.Catalog, plan catalog.Plan, addOns []string, toggles map[string]bool, module string) bool {
	if on, ok := toggles[module]; ok && switchable(cat, plan, addOns, module) {
		return on
	}
	return moduleDefault(plan, addOns, module)
}

// switchable reports whether a tenant may switch module on and off: the
// catalog marks it toggleable and the tenant has it, by its plan or as a
// contracted add-on. An add-on the plan merely sells must be bought (a
// contract change request) before it can be switched on: toggling is not
// a way around paying.
func switchable(cat *catalog.Catalog, plan catalog.Plan, addOns []string, module string) bool {
	return cat.Toggleable(plan, module) && moduleDefault(plan, addOns, module)
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

// List lists every module the tenant's plan includes or sells as an
// add-on, in catalog order, with whether it is on: included modules and
// contracted add-ons are on unless switched off. ErrNotFound when the
// tenant does not exist.
func (s *Modules) List(ctx context.Context, tenantID string) ([]ModuleState, error) {
	st, plan, err := s.ent.state(ctx, tenantID, "")
	if err != nil {
		return nil, err
	}
	return modulesOf(s.ent.catalog, st, plan), nil
}

// modulesOf lists the modules of Modules.List from the tenant's state.
func modulesOf(cat *catalog.Catalog, st EntitlementState, plan catalog.Plan) []ModuleState {
	out := []ModuleState{}
	for _, app := range cat.Apps {
		for _, m := range app.Modules {
			if _, addOn := plan.AddOn(m.ID); !plan.Includes(m.ID) && !addOn {
				continue
			}
			out = append(out, ModuleState{Module: m.ID, Enabled: moduleOn(cat, plan, st.AddOns, st.Toggles, m.ID)})
		}
	}
	return out
}

// Enabled returns the ids of the modules on for a tenant, sorted: its
// plan's included modules and its contracted add-ons, with its switches
// applied on top. ErrNotFound when the tenant does not exist.
func (s *Modules) Enabled(ctx context.Context, tenantID string) ([]string, error) {
	states, err := s.List(ctx, tenantID)
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

// Toggle switches a module on or off for the tenant on behalf of a
// member with role, and reports whether that changed anything. Asking for
// the state the module already has changes nothing and notifies no one; a
// change creates a module.toggled notification in the same transaction.
// ErrForbidden unless the role may manage entitlements (owner, admin);
// InvalidError (field "module") unless the tenant may switch the module:
// toggleable in the catalog, and included in its plan or bought as an
// add-on; ErrNotFound for an unknown tenant.
func (s *Modules) Toggle(ctx context.Context, tenantID string, role Role, module string, enabled bool) (ModuleState, bool, error) {
	if !role.Can(PermEntitlementsManage) {
		return ModuleState{}, false, fmt.Errorf("tenancy: toggle %s as %s: %w", module, role, ErrForbidden)
	}
	st, plan, err := s.ent.state(ctx, tenantID, "")
	if err != nil {
		return ModuleState{}, false, err
	}
	cat, addOns := s.ent.catalog, st.AddOns
	if !switchable(cat, plan, addOns, module) {
		return ModuleState{}, false, fmt.Errorf("tenancy: toggle %q: %w", module, invalid("module", toggleableHint(cat, plan, addOns)))
	}
	var changed bool
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		changed, err = s.store.SetModuleToggle(ctx, tenantID, module, enabled, moduleDefault(plan, addOns, module), Now(ctx, s.now).UTC())
		if err != nil {
			return fmt.Errorf("tenancy: toggle %s for %s: %w", module, tenantID, err)
		}
		if !changed {
			return nil
		}
		if _, err = s.notes.Notify(ctx, tenantID, toggledNotification(cat, module, enabled)); err != nil {
			return err
		}
		return record(ctx, s.events, tenantID, eventModuleToggled, "module", module, ModuleState{Module: module, Enabled: enabled})
	})
	if err != nil {
		return ModuleState{}, false, err
	}
	return ModuleState{Module: module, Enabled: enabled}, changed, nil
}

// toggleableHint tells a caller which modules it may switch.
func toggleableHint(cat *catalog.Catalog, plan catalog.Plan, addOns []string) string {
	var ids []string
	for _, app := range cat.Apps {
		for _, m := range app.Modules {
			if switchable(cat, plan, addOns, m.ID) {
				ids = append(ids, m.ID)
			}
		}
	}
	if len(ids) == 0 {
		return fmt.Sprintf("plan %q has no module you can switch", plan.ID)
	}
	return fmt.Sprintf("plan %q lets you switch only %s", plan.ID, strings.Join(ids, ", "))
}

func toggledNotification(cat *catalog.Catalog, module string, enabled bool) NewNotification {
	name := module
	if m, ok := cat.Module(module); ok {
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
