package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The tenant group's entitlement endpoints: limits, usage and modules,
// and switching a module. The Entitlements they call also resolve every
// tenant endpoint's tenant with its entitlement state and check its
// module (API.resolveTenant).

var (
	_ Entitlements = (*tenancy.Entitlements)(nil)
	_ Modules      = (*tenancy.Modules)(nil)
)

// Entitlements resolves a request's tenant together with its entitlement
// state, checks modules, and shows limits and usage.
// *tenancy.Entitlements implements it.
type Entitlements interface {
	ResolveTenantState(ctx context.Context, cred tenancy.Credential, requested string, usage bool) (tenancy.Membership, tenancy.EntitlementState, error)
	RequireModule(ctx context.Context, tenantID, module string) error
	Get(ctx context.Context, tenantID, feature string) (tenancy.Entitlement, error)
	ListWithModules(ctx context.Context, tenantID string) ([]tenancy.Entitlement, []tenancy.ModuleState, error)
}

// Modules switches a tenant's modules. *tenancy.Modules implements it.
type Modules interface {
	Toggle(ctx context.Context, tenantID string, role tenancy.Role, module string, enabled bool) (tenancy.ModuleState, bool, error)
}

// entitlementEndpoints are the tenant group's rows of the route table for
// entitlements and modules.
func (a *API) entitlementEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/tenant/entitlements/limit", Group: GroupTenant, Tenant: true,
			Permission: tenancy.PermEntitlementsRead, State: true, Query: []string{"feature"}, Handle: a.entitlementLimits},
		{Method: "PATCH", Path: "/api/tenant/entitlements/toggle", Group: GroupTenant, Tenant: true,
			Permission: tenancy.PermEntitlementsManage, Handle: a.toggleModule},
	}
}

// entitlementsResponse is the body of GET /api/tenant/entitlements/limit.
type entitlementsResponse struct {
	TenantID string                `json:"tenant_id"`
	Data     []tenancy.Entitlement `json:"data"`
	Modules  []tenancy.ModuleState `json:"modules"`
}

// entitlementLimits answers GET /api/tenant/entitlements/limit: every
// feature's limit, usage and remaining for the current period, and the
// tenant's modules; with ?feature= only that feature's entitlement.
func (a *API) entitlementLimits(w http.ResponseWriter, r *http.Request) error {
	m, _ := MembershipFrom(r.Context())
	if feature := r.URL.Query().Get("feature"); feature != "" {
		e, err := a.cfg.Services.Entitlements.Get(r.Context(), m.TenantID, feature)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, e)
		return nil
	}
	es, modules, err := a.cfg.Services.Entitlements.ListWithModules(r.Context(), m.TenantID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, entitlementsResponse{TenantID: m.TenantID, Data: es, Modules: modules})
	return nil
}

// toggleRequest is the body of PATCH /api/tenant/entitlements/toggle.
// Which modules the tenant may switch is for the tenancy service to say.
type toggleRequest struct {
	Module  string `json:"module" validate:"required,max=100,line"`
	Enabled *bool  `json:"enabled" validate:"required"`
}

// toggleResponse is the answer to PATCH /api/tenant/entitlements/toggle.
type toggleResponse struct {
	tenancy.ModuleState
	// Changed is false when the module already was in the asked state.
	Changed bool `json:"changed"`
}

// toggleModule answers PATCH /api/tenant/entitlements/toggle: owners and
// admins switch a module the plan offers as toggleable. Asking for the
// current state changes nothing and is still 200.
func (a *API) toggleModule(w http.ResponseWriter, r *http.Request) error {
	var req toggleRequest
	if err := DecodeJSON(r, &req); err != nil {
		return err
	}
	if err := field.Check(req); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	state, changed, err := a.cfg.Services.Modules.Toggle(r.Context(), m.TenantID, m.Role, req.Module, *req.Enabled)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, toggleResponse{ModuleState: state, Changed: changed})
	return nil
}
