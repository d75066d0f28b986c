package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// The authentication group: who the caller is, and the CSRF token a
// session's unsafe requests carry.

// authEndpoints are the authentication group's rows of the route table.
func (a *API) authEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/auth/me", Group: GroupAuth, Handle: a.me},
		{Method: "GET", Path: "/api/csrf", Group: GroupAuth, Public: true, Handle: a.csrfToken},
	}
}

// meResponse is the body of GET /api/auth/me.
type meResponse struct {
	ID             string          `json:"id"`
	Email          string          `json:"email"`
	Name           string          `json:"name"`
	AuthMethod     AuthMethod      `json:"auth_method"`
	Scopes         []tenancy.Scope `json:"scopes"`
	ActiveTenantID *string         `json:"active_tenant_id"`
	Tenants        []tenantRef     `json:"tenants"`
}

// tenantRef is a tenant as listed for its member.
type tenantRef struct {
	ID   string       `json:"id"`
	Slug string       `json:"slug"`
	Name string       `json:"name"`
	Role tenancy.Role `json:"role"`
}

// me answers GET /api/auth/me: the caller, how they authenticated, and
// their tenants. active_tenant_id is null while none is chosen.
func (a *API) me(w http.ResponseWriter, r *http.Request) error {
	p, _ := PrincipalFrom(r.Context())
	ms, err := a.cfg.Services.Directory.Memberships(r.Context(), p.User.ID)
	if err != nil {
		return err
	}
	resp := meResponse{ID: p.User.ID, Email: p.User.Email, Name: p.User.Name, AuthMethod: p.Method,
		Scopes: p.Scopes, Tenants: make([]tenantRef, 0, len(ms))}
	if resp.Scopes == nil {
		resp.Scopes = []tenancy.Scope{}
	}
	for _, m := range ms {
		resp.Tenants = append(resp.Tenants, tenantRef{ID: m.Tenant.ID, Slug: m.Tenant.Slug, Name: m.Tenant.Name, Role: m.Role})
	}
	active, err := a.cfg.Services.Directory.ResolveTenant(r.Context(), p.Credential, r.Header.Get(tenantHeaderKey))
	switch {
	case err == nil:
		resp.ActiveTenantID = &active.TenantID
	case errors.Is(err, tenancy.ErrTenantNotSelected), errors.Is(err, tenancy.ErrNoTenant), errors.Is(err, tenancy.ErrNotMember):
	default:
		return err
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// csrfResponse is the body of GET /api/csrf.
type csrfResponse struct {
	Token     string    `json:"token"`
	Header    string    `json:"header"`
	ExpiresAt time.Time `json:"expires_at"`
}

// csrfToken answers GET /api/csrf with a token bound to the caller's
// session when the request carries one, and sets it as the double-submit
// cookie too.
func (a *API) csrfToken(w http.ResponseWriter, r *http.Request) error {
	binding := ""
	if p, err := a.auth.Authenticate(r); err == nil && p != nil && p.Ambient() {
		binding = p.SessionBinding
	}
	token, expires := a.csrf.issue(binding)
	setCSRFCookie(w, r, token, expires)
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusOK, csrfResponse{Token: token, Header: csrfHeader, ExpiresAt: expires.UTC()})
	return nil
}
