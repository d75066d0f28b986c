package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/tenancy"
)

// The tenant's settings (SPEC §18): GET and PATCH /api/tenant/settings,
// for owners and admins (tenancy.PermSettingsManage).

var _ TenantSettings = (*tenancy.TenantSettings)(nil)

// TenantSettings reads and changes a tenant's settings (a
// *tenancy.TenantSettings).
type TenantSettings interface {
	Get(ctx context.Context, tenantID string) (tenancy.Settings, error)
	Update(ctx context.Context, tenantID string, p tenancy.SettingsPatch) (tenancy.Settings, error)
}

// settingsEndpoints are the settings' rows of the route table.
func (a *API) settingsEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/tenant/settings", Group: GroupTenant, Tenant: true,
			Permission: tenancy.PermSettingsManage, Handle: With(a.cfg.Services.Settings, a.getSettings)},
		{Method: "PATCH", Path: "/api/tenant/settings", Group: GroupTenant, Tenant: true,
			Permission: tenancy.PermSettingsManage, Handle: With(a.cfg.Services.Settings, a.updateSettings)},
	}
}

// getSettings answers GET /api/tenant/settings.
func (a *API) getSettings(w http.ResponseWriter, r *http.Request) error {
	m, _ := MembershipFrom(r.Context())
	st, err := a.cfg.Services.Settings.Get(r.Context(), m.TenantID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, st)
	return nil
}

// updateSettings answers PATCH /api/tenant/settings: a JSON merge patch
// (null clears), the settings as saved.
func (a *API) updateSettings(w http.ResponseWriter, r *http.Request) error {
	var p tenancy.SettingsPatch
	if err := DecodeJSON(r, &p); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	st, err := a.cfg.Services.Settings.Update(r.Context(), m.TenantID, p)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, st)
	return nil
}
