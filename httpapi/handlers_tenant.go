package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// selectTenantRequest is the body of POST /api/tenant/select.
type selectTenantRequest struct {
	TenantID string `json:"tenant_id"`
}

// check refuses a body that does not name a tenant by its id: said before
// it reaches a query.
func (req selectTenantRequest) check() error {
	f := field.Errors{}
	switch {
	case req.TenantID == "":
		f.Required("tenant_id")
	case !id.Valid(id.Tenant, req.TenantID):
		f.Add("tenant_id", field.Invalid, "must be a tenant id: ten_ and 26 lower-case letters and digits")
	}
	return f.Err()
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
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, err := a.cfg.Directory.SelectTenant(r.Context(), p.Credential, req.TenantID)
	if errors.Is(err, tenancy.ErrNotFound) {
		return NewProblem(http.StatusNotFound, CodeNotFound, fmt.Sprintf("tenant %q not found among your tenants", req.TenantID))
	}
	if err != nil {
		return err
	}
	t, err := a.cfg.Directory.Tenant(r.Context(), m.TenantID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, selectTenantResponse{
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
	writeJSON(w, http.StatusOK, tenancy.MatrixFor(m.TenantID, m.Role, p.Scopes))
	return nil
}
