package operatorapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Users and what they hold: their accounts, their memberships of tenants
// (within the tenants' seats, never without an owner), their portal
// sessions and the API keys pinned to a tenant.

var (
	_ Members  = (*tenancy.Members)(nil)
	_ APIKeys  = (*tenancy.Keys)(nil)
	_ Sessions = (*tenancy.Sessions)(nil)
)

// Members adds, changes, removes and lists a tenant's members, within its
// seats and never without an owner. *tenancy.Members implements it.
type Members interface {
	// Add: a *tenancy.LimitError when every seat is taken;
	// tenancy.ErrConflict for a member already; tenancy.ErrNotFound for
	// an unknown tenant or user; *tenancy.InvalidError (field "role").
	Add(ctx context.Context, tenantRef, userRef string, role tenancy.Role) (tenancy.Member, error)
	// SetRole and Remove: tenancy.ErrLastOwner (matching
	// tenancy.ErrConflict) for the tenant's only owner;
	// tenancy.ErrNotFound for no such member.
	SetRole(ctx context.Context, tenantRef, userRef string, role tenancy.Role) (tenancy.Member, error)
	Remove(ctx context.Context, tenantRef, userRef string) error
	// List: *tenancy.InvalidError (field "cursor"); tenancy.ErrNotFound
	// for an unknown tenant.
	List(ctx context.Context, tenantRef string, f tenancy.MemberFilter) ([]tenancy.Member, bool, error)
}

// APIKeys creates and revokes tenants' API keys. *tenancy.Keys implements
// it.
type APIKeys interface {
	// Create returns the key and its secret: *tenancy.InvalidError
	// (fields "scopes", "name"); tenancy.ErrNotMember when the user is no
	// member of the tenant the key is pinned to.
	Create(ctx context.Context, in tenancy.CreateAPIKeyInput) (tenancy.APIKey, string, error)
	// Revoke: tenancy.ErrNotFound for an unknown key.
	Revoke(ctx context.Context, keyID string) error
}

// Sessions ends a user's sessions. *tenancy.Sessions implements
// it.
type Sessions interface {
	// EndAll ends every session of the user (id or email) and returns how
	// many were live: tenancy.ErrNotFound for an unknown user.
	EndAll(ctx context.Context, userRef string) (int64, error)
}

// listUsers answers GET /api/operator/users: every user, newest first,
// searched by email or name with ?q=.
func (h *handlers) listUsers(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	us, more, err := h.Index.Users(r.Context(),
		tenancy.SearchFilter{Query: r.URL.Query().Get("q"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(us, more, func(u tenancy.User) string { return u.ID }))
	return nil
}

// createUser answers POST /api/operator/users (201). The body is
// tenancy.CreateUserInput, whose rules CreateUser checks.
func (h *handlers) createUser(w http.ResponseWriter, r *http.Request) error {
	var in tenancy.CreateUserInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	u, err := h.Directory.CreateUser(r.Context(), in)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, u)
	return nil
}

// endUserSessions answers DELETE /api/operator/users/{id}/sessions
// (204): every portal session of the user ends, in every tenant, and its
// cookie is refused from then on. A user without sessions is no error.
func (h *handlers) endUserSessions(w http.ResponseWriter, r *http.Request) error {
	userID, err := httpapi.PathID(r, id.User, "user")
	if err != nil {
		return err
	}
	if _, err := h.Sessions.EndAll(r.Context(), userID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listMembers answers GET /api/operator/tenants/{id}/members, newest
// user first.
func (h *handlers) listMembers(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	ms, more, err := h.Members.List(r.Context(), tenantID, tenancy.MemberFilter{Limit: limit, Before: before})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(ms, more, func(m tenancy.Member) string { return m.UserID }))
	return nil
}

// ref returns the one reference u gives, recording in f what is wrong
// with it: not exactly one of user_id and email (the operator API's rule),
// or the form of the one given (tenancy.UserRef's tags, on the email as
// tenancy normalizes it).
func ref(u tenancy.UserRef, f field.Errors) string {
	switch {
	case u.UserID == "" && u.Email == "":
		f.Add("user_id", field.Required, "user_id or email is required")
	case u.UserID != "" && u.Email != "":
		f.Add("email", field.Invalid, "cannot be sent with user_id")
	}
	u.Email = tenancy.NormalizeEmail(u.Email)
	f.Merge(field.Check(u))
	if u.UserID != "" {
		return u.UserID
	}
	return u.Email
}

// addMemberRequest is the body of POST /api/operator/tenants/{id}/members:
// the user (exactly one of user_id and email) and the role, whose rules
// are tenancy.RoleInput's.
type addMemberRequest struct {
	tenancy.UserRef
	tenancy.RoleInput
}

// addMember answers POST /api/operator/tenants/{id}/members: the user
// joins the tenant, taking one of its seats (403
// entitlement_limit_exceeded when none is free).
func (h *handlers) addMember(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	var req addMemberRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	f := field.Errors{}
	user := ref(req.UserRef, f)
	f.Merge(field.Check(req.RoleInput)) // Add checks it too; here for one answer naming every field
	if err := f.Err(); err != nil {
		return err
	}
	m, err := h.Members.Add(r.Context(), tenantID, user, req.Role)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, m)
	return nil
}

// setMemberRole answers PATCH
// /api/operator/tenants/{id}/members/{user_id}; demoting the tenant's
// last owner is 409 conflict.
func (h *handlers) setMemberRole(w http.ResponseWriter, r *http.Request) error {
	tenantID, userID, err := memberPath(r)
	if err != nil {
		return err
	}
	var in tenancy.RoleInput // SetRole checks it
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	m, err := h.Members.SetRole(r.Context(), tenantID, userID, in.Role)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, m)
	return nil
}

// removeMember answers DELETE
// /api/operator/tenants/{id}/members/{user_id} (204), which frees a seat;
// removing the tenant's last owner is 409 conflict.
func (h *handlers) removeMember(w http.ResponseWriter, r *http.Request) error {
	tenantID, userID, err := memberPath(r)
	if err != nil {
		return err
	}
	if err := h.Members.Remove(r.Context(), tenantID, userID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// memberPath returns the tenant and user ids of a member's path; a
// malformed one is 404.
func memberPath(r *http.Request) (tenantID, userID string, err error) {
	if tenantID, err = httpapi.PathID(r, id.Tenant, "tenant"); err != nil {
		return "", "", err
	}
	if userID = r.PathValue("user_id"); !id.Valid(id.User, userID) {
		return "", "", httpapi.NewProblem(http.StatusNotFound, httpapi.CodeNotFound, "member not found")
	}
	return tenantID, userID, nil
}

// listAPIKeys answers GET /api/operator/tenants/{id}/api-keys: the keys
// pinned to the tenant, newest first, revoked ones included, never their
// secrets.
func (h *handlers) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	ks, more, err := h.Index.APIKeys(r.Context(), tenantID, tenancy.KeyFilter{Limit: limit, Before: before})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(ks, more, func(k tenancy.APIKey) string { return k.ID }))
	return nil
}

// createAPIKeyRequest is the body of POST
// /api/operator/tenants/{id}/api-keys: the key's user (exactly one of
// user_id and email) and its scopes and name, whose rules are
// tenancy.CreateAPIKeyInput's.
type createAPIKeyRequest struct {
	tenancy.UserRef
	tenancy.CreateAPIKeyInput
}

// createdAPIKey is the answer to POST /api/operator/tenants/{id}/api-keys:
// the key and, this once, its secret.
type createdAPIKey struct {
	tenancy.APIKey
	Key string `json:"key"`
}

// createAPIKey answers POST /api/operator/tenants/{id}/api-keys: a key
// of a member, pinned to the tenant (201). The secret is in this answer
// only; the endpoint does not honour Idempotency-Key, whose replay would
// need the secret stored.
func (h *handlers) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	var req createAPIKeyRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	f := field.Errors{}
	user := ref(req.UserRef, f)
	f.Merge(field.Check(req.CreateAPIKeyInput)) // Create checks it too; here for one answer naming every field
	if err := f.Err(); err != nil {
		return err
	}
	in := req.CreateAPIKeyInput
	in.UserID, in.UserEmail, in.Tenant = req.UserRef.UserID, req.UserRef.Email, tenantID
	k, secret, err := h.APIKeys.Create(r.Context(), in)
	if errors.Is(err, tenancy.ErrNotMember) {
		return httpapi.ValidationProblem([]httpapi.FieldError{{Field: userField(req.UserRef), Code: field.Invalid,
			Message: "must name a member of the tenant: " + user + " is not one"}})
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, createdAPIKey{APIKey: k, Key: secret})
	return nil
}

// userField is the body field a user was named in.
func userField(u tenancy.UserRef) string {
	if u.UserID != "" {
		return "user_id"
	}
	return "email"
}

// revokeAPIKey answers DELETE /api/operator/api-keys/{id} (204): the
// key fails from then on. Revoking a revoked key changes nothing.
func (h *handlers) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	keyID, err := httpapi.PathID(r, id.APIKey, "API key")
	if err != nil {
		return err
	}
	if err := h.APIKeys.Revoke(r.Context(), keyID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
