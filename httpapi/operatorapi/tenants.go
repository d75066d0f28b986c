package operatorapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The tenants: created on a plan of the catalog, listed and searched, their
// plan and seats changed at once, their limits overridden.

var (
	_ Directory = (*tenancy.Directory)(nil)
	_ Index     = (*tenancy.Index)(nil)
	_ Terms     = (*contract.Service)(nil)
	_ Limits    = (*tenancy.Entitlements)(nil)
)

// Directory creates and finds tenants and users.
// *tenancy.Directory implements it.
type Directory interface {
	// CreateTenant: *tenancy.InvalidError (fields "slug", "name",
	// "plan_id"); tenancy.ErrConflict for a taken slug.
	CreateTenant(ctx context.Context, in tenancy.CreateTenantInput) (tenancy.Tenant, error)
	// Tenant: tenancy.ErrNotFound when absent.
	Tenant(ctx context.Context, tenantID string) (tenancy.Tenant, error)
	// CreateUser: *tenancy.InvalidError (fields "email", "name");
	// tenancy.ErrConflict for a taken email.
	CreateUser(ctx context.Context, in tenancy.CreateUserInput) (tenancy.User, error)
}

// Index lists tenants, users and API keys across tenants.
// *tenancy.Index implements it.
type Index interface {
	// Tenants and Users return a page, newest first, and whether more
	// follow: *tenancy.InvalidError (fields "q", "cursor").
	Tenants(ctx context.Context, f tenancy.SearchFilter) ([]tenancy.Tenant, bool, error)
	Users(ctx context.Context, f tenancy.SearchFilter) ([]tenancy.User, bool, error)
	// APIKeys: *tenancy.InvalidError (field "cursor");
	// tenancy.ErrNotFound for an unknown tenant.
	APIKeys(ctx context.Context, tenantRef string, f tenancy.KeyFilter) ([]tenancy.APIKey, bool, error)
}

// Terms changes a tenant's contract at once, as an operator may.
// *contract.Service implements it.
type Terms interface {
	// Change: *tenancy.InvalidError (fields "plan_id", "seats",
	// "modules") for a change the contract's rules refuse;
	// tenancy.ErrNotFound for an unknown tenant.
	Change(ctx context.Context, tenantID string, ch contract.Change) (contract.Terms, error)
}

// Limits overrides a tenant's limits and shows the result.
// *tenancy.Entitlements implements it.
type Limits interface {
	// SetLimit (nil: unlimited) and ClearLimit: *tenancy.InvalidError
	// (fields "feature", "limit"); tenancy.ErrNotFound for an unknown
	// tenant.
	SetLimit(ctx context.Context, tenantRef, feature string, limit *int64) error
	ClearLimit(ctx context.Context, tenantRef, feature string) error
	Get(ctx context.Context, tenantID, feature string) (tenancy.Entitlement, error)
}

// listTenants answers GET /api/operator/tenants: every tenant, newest
// first, searched by slug or name with ?q=.
func (h *handlers) listTenants(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	ts, more, err := h.Index.Tenants(r.Context(),
		tenancy.SearchFilter{Query: r.URL.Query().Get("q"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(ts, more, func(t tenancy.Tenant) string { return t.ID }))
	return nil
}

// createTenant answers POST /api/operator/tenants: a tenant on a plan of
// the catalog, with the plan's included seats (201, Location). The body is
// tenancy.CreateTenantInput, whose rules CreateTenant checks.
func (h *handlers) createTenant(w http.ResponseWriter, r *http.Request) error {
	var in tenancy.CreateTenantInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	t, err := h.Directory.CreateTenant(r.Context(), in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/operator/tenants/"+t.ID)
	httpapi.WriteJSON(w, http.StatusCreated, t)
	return nil
}

// getTenant answers GET /api/operator/tenants/{id}.
func (h *handlers) getTenant(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	t, err := h.Directory.Tenant(r.Context(), tenantID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, t)
	return nil
}

// changeTenant answers PATCH /api/operator/tenants/{id}: the tenant's
// plan and seats change at once, under the contract's rules (a plan
// change keeps the seats within the new plan; seats never fall below the
// members), and the entitlements follow.
func (h *handlers) changeTenant(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	// The body is contract.Change's plan and seats, whose rules Change
	// checks; that it changes something is the endpoint's.
	var ch contract.Change
	if err := httpapi.DecodeJSON(r, &ch); err != nil {
		return err
	}
	if ch.PlanID == "" && ch.Seats == nil {
		return field.NewInvalidError("plan_id", field.Required, "plan_id or seats is required")
	}
	if _, err := h.Terms.Change(r.Context(), tenantID, ch); err != nil {
		return err
	}
	t, err := h.Directory.Tenant(r.Context(), tenantID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, t)
	return nil
}

// setLimitRequest is the body of PUT
// /api/operator/tenants/{id}/limits/{feature}: {"limit": n} overrides,
// {"limit": null} removes the override, {"unlimited": true} lifts the
// limit. Limit is raw so that null and absent differ.
type setLimitRequest struct {
	Limit     json.RawMessage `json:"limit"`
	Unlimited bool            `json:"unlimited"`
}

// parse returns what the body asks: the new limit (nil: unlimited), or
// clear for removing the override.
func (req setLimitRequest) parse() (limit *int64, clear bool, err error) {
	f := field.Errors{}
	switch {
	case req.Limit == nil && !req.Unlimited:
		f.Add("limit", field.Required, "is required: a number, null to remove the override, or send unlimited: true")
	case req.Limit != nil && req.Unlimited:
		f.Add("unlimited", field.Invalid, "cannot be sent with limit")
	case req.Unlimited:
		return nil, false, nil
	case string(req.Limit) == "null":
		return nil, true, nil
	default:
		var n int64
		if err := json.Unmarshal(req.Limit, &n); err != nil {
			return nil, false, httpapi.InvalidRequest("a field has the wrong type",
				httpapi.FieldError{Field: "limit", Code: "invalid_type", Message: "must be an integer or null"})
		}
		return &n, false, nil
	}
	return nil, false, f.Err()
}

// limitResponse is the answer to PUT
// /api/operator/tenants/{id}/limits/{feature}: the tenant's entitlement
// of the feature as it now is.
type limitResponse struct {
	TenantID string `json:"tenant_id"`
	tenancy.Entitlement
}

// setLimit answers PUT /api/operator/tenants/{id}/limits/{feature}.
func (h *handlers) setLimit(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	feature := r.PathValue("feature")
	if !catalog.KnownFeature(feature) {
		return httpapi.NewProblem(http.StatusNotFound, httpapi.CodeNotFound, "feature not found")
	}
	var req setLimitRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	limit, clear, err := req.parse()
	if err != nil {
		return err
	}
	if clear {
		err = h.Limits.ClearLimit(r.Context(), tenantID, feature)
	} else {
		err = h.Limits.SetLimit(r.Context(), tenantID, feature, limit)
	}
	if err != nil {
		return err
	}
	e, err := h.Limits.Get(r.Context(), tenantID, feature)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, limitResponse{TenantID: tenantID, Entitlement: e})
	return nil
}
