package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The tenant group's selection endpoints: which tenant a caller acts for,
// and what they may do there. The Directory they call also serves
// authentication (the JWT authenticators, GET /api/auth/me) and the
// tenant every tenant endpoint resolves (API.resolveTenant).

var _ Directory = (*tenancy.Directory)(nil)

// Directory finds users and tenants, lists a user's memberships, and
// decides which tenant a request acts for. *tenancy.Directory implements
// it.
type Directory interface {
	User(ctx context.Context, userID string) (tenancy.User, error)
	UserByEmail(ctx context.Context, email string) (tenancy.User, error)
	Tenant(ctx context.Context, tenantID string) (tenancy.Tenant, error)
	Memberships(ctx context.Context, userID string) ([]tenancy.TenantMembership, error)
	SelectTenant(ctx context.Context, cred tenancy.Credential, tenantID string) (tenancy.Membership, error)
	ResolveTenant(ctx context.Context, cred tenancy.Credential, requested string) (tenancy.Membership, error)
}

// tenantEndpoints are the tenant group's rows of the route table for
// selecting a tenant and reading its access matrix.
func (a *API) tenantEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "POST", Path: "/api/tenant/select", Group: GroupTenant, Handle: a.selectTenant},
		{Method: "GET", Path: "/api/tenant/access-matrix", Group: GroupTenant, Tenant: true, Handle: a.accessMatrix},
	}
}

// selectTenantRequest is the body of POST /api/tenant/select.
// A tenant_id that is no tenant id is refused before it reaches a query.
type selectTenantRequest struct {
	TenantID string `json:"tenant_id" validate:"required,id=ten"`
}

// selectTenantResponse is the answer to POST /api/tenant/select.
type selectTenantResponse struct {
	ActiveTenantID string    `json:"active_tenant_id"`
	Tenant         tenantRef `json:"tenant"`
}

// selectTenant answers POST /api/tenant/select: it records the active
// tenant of the caller's credential in the database, so that every replica
// acts on it. A tenant the caller is not a member of is 404.
func (a *API) selectTenant(w http.ResponseWriter, r *http.Request) error {
	var req selectTenantRequest
	if err := DecodeJSON(r, &req); err != nil {
		return err
	}
	if err := field.Check(req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, err := a.cfg.Services.Directory.SelectTenant(r.Context(), p.Credential, req.TenantID)
	if errors.Is(err, tenancy.ErrNotFound) {
		return NewProblem(http.StatusNotFound, CodeNotFound, fmt.Sprintf("tenant %q not found among your tenants", req.TenantID))
	}
	if err != nil {
		return err
	}
	t, err := a.cfg.Services.Directory.Tenant(r.Context(), m.TenantID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, selectTenantResponse{
		ActiveTenantID: t.ID,
		Tenant:         tenantRef{ID: t.ID, Slug: t.Slug, Name: t.Name, Role: m.Role},
	})
	return nil
}

// accessMatrix answers GET /api/tenant/access-matrix: the whole matrix,
// and what this caller may do here with this credential (its role's
// permissions whose scope the credential carries).
func (a *API) accessMatrix(w http.ResponseWriter, r *http.Request) error {
	m, _ := MembershipFrom(r.Context())
	p, _ := PrincipalFrom(r.Context())
	WriteJSON(w, http.StatusOK, tenancy.MatrixFor(m.TenantID, m.Role, p.Scopes))
	return nil
}
