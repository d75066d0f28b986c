package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The operator API: the platform's staff, with operator keys, managing
// tenants, users, members and tenants' API keys across the platform. The
// route table gives each endpoint its operator scope (endpoint.admits
// keeps every other credential out), and the services check the input.

// opListTenants answers GET /api/operator/tenants: every tenant, newest
// first, searched by slug or name with ?q=.
func (a *API) opListTenants(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	ts, more, err := a.cfg.Operator.Index.Tenants(r.Context(),
		tenancy.SearchFilter{Query: r.URL.Query().Get("q"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(ts, more, func(t tenancy.Tenant) string { return t.ID }))
	return nil
}

// createTenantRequest is the body of POST /api/operator/tenants.
type createTenantRequest struct {
	Slug   string `json:"slug"`
	Name   string `json:"name"`
	PlanID string `json:"plan_id"`
}

// opCreateTenant answers POST /api/operator/tenants: a tenant on a plan of
// the catalog, with the plan's included seats (201, Location).
func (a *API) opCreateTenant(w http.ResponseWriter, r *http.Request) error {
	var req createTenantRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	t, err := a.cfg.Operator.Directory.CreateTenant(r.Context(),
		tenancy.CreateTenantInput{Slug: req.Slug, Name: req.Name, PlanID: req.PlanID})
	if err != nil {
		return renameFields(err, map[string]string{"plan": "plan_id"})
	}
	w.Header().Set("Location", "/api/operator/tenants/"+t.ID)
	writeJSON(w, http.StatusCreated, t)
	return nil
}

// opGetTenant answers GET /api/operator/tenants/{id}.
func (a *API) opGetTenant(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := pathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	t, err := a.cfg.Operator.Directory.Tenant(r.Context(), tenantID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// changeTenantRequest is the body of PATCH /api/operator/tenants/{id}.
type changeTenantRequest struct {
	PlanID string `json:"plan_id"`
	Seats  *int   `json:"seats"`
}

// check refuses a body that changes nothing.
func (req changeTenantRequest) check() error {
	f := field.Errors{}
	if req.PlanID == "" && req.Seats == nil {
		f.Add("plan_id", field.Required, "plan_id or seats is required")
	}
	return f.Err()
}

// opChangeTenant answers PATCH /api/operator/tenants/{id}: the tenant's
// plan and seats change at once, under the contract's rules (a plan
// change keeps the seats within the new plan; seats never fall below the
// members), and the entitlements follow.
func (a *API) opChangeTenant(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := pathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	var req changeTenantRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	if _, err := a.cfg.Operator.Terms.Change(r.Context(), tenantID, contract.Change{PlanID: req.PlanID, Seats: req.Seats}); err != nil {
		return err
	}
	t, err := a.cfg.Operator.Directory.Tenant(r.Context(), tenantID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
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
			return nil, false, invalidRequest("a field has the wrong type",
				FieldError{Field: "limit", Code: "invalid_type", Message: "must be an integer or null"})
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

// opSetLimit answers PUT /api/operator/tenants/{id}/limits/{feature}.
func (a *API) opSetLimit(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := pathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	feature := r.PathValue("feature")
	if !catalog.KnownFeature(feature) {
		return NewProblem(http.StatusNotFound, CodeNotFound, "feature not found")
	}
	var req setLimitRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	limit, clear, err := req.parse()
	if err != nil {
		return err
	}
	if clear {
		err = a.cfg.Operator.Limits.ClearLimit(r.Context(), tenantID, feature)
	} else {
		err = a.cfg.Operator.Limits.SetLimit(r.Context(), tenantID, feature, limit)
	}
	if err != nil {
		return err
	}
	e, err := a.cfg.Operator.Limits.Get(r.Context(), tenantID, feature)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, limitResponse{TenantID: tenantID, Entitlement: e})
	return nil
}

// opListUsers answers GET /api/operator/users: every user, newest first,
// searched by email or name with ?q=.
func (a *API) opListUsers(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	us, more, err := a.cfg.Operator.Index.Users(r.Context(),
		tenancy.SearchFilter{Query: r.URL.Query().Get("q"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(us, more, func(u tenancy.User) string { return u.ID }))
	return nil
}

// createUserRequest is the body of POST /api/operator/users.
type createUserRequest struct {
	Email string `json:"email"`
	Name  string `json:"name"`
}

// opCreateUser answers POST /api/operator/users (201).
func (a *API) opCreateUser(w http.ResponseWriter, r *http.Request) error {
	var req createUserRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	u, err := a.cfg.Operator.Directory.CreateUser(r.Context(), tenancy.CreateUserInput{Email: req.Email, Name: req.Name})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, u)
	return nil
}

// opListMembers answers GET /api/operator/tenants/{id}/members, newest
// user first.
func (a *API) opListMembers(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := pathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	ms, more, err := a.cfg.Operator.Members.List(r.Context(), tenantID, tenancy.MemberFilter{Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(ms, more, func(m tenancy.Member) string { return m.UserID }))
	return nil
}

// userRef names a user in a body: by id or by email, exactly one.
type userRef struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
}

// ref returns the one reference given, recording in f when there is not
// exactly one.
func (u userRef) ref(f field.Errors) string {
	switch {
	case u.UserID == "" && u.Email == "":
		f.Add("user_id", field.Required, "user_id or email is required")
	case u.UserID != "" && u.Email != "":
		f.Add("email", field.Invalid, "cannot be sent with user_id")
	case u.UserID != "" && !id.Valid(id.User, u.UserID):
		f.Add("user_id", field.Invalid, "must be a user id: usr_ and 26 lower-case letters and digits")
	case u.UserID != "":
		return u.UserID
	}
	return u.Email
}

// addMemberRequest is the body of POST /api/operator/tenants/{id}/members.
type addMemberRequest struct {
	userRef
	Role tenancy.Role `json:"role"`
}

// opAddMember answers POST /api/operator/tenants/{id}/members: the user
// joins the tenant, taking one of its seats (403
// entitlement_limit_exceeded when none is free).
func (a *API) opAddMember(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := pathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	var req addMemberRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	f := field.Errors{}
	user := req.ref(f)
	if req.Role == "" {
		f.Required("role")
	}
	if err := f.Err(); err != nil {
		return err
	}
	m, err := a.cfg.Operator.Members.Add(r.Context(), tenantID, user, req.Role)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, m)
	return nil
}

// setRoleRequest is the body of PATCH
// /api/operator/tenants/{id}/members/{user_id}.
type setRoleRequest struct {
	Role tenancy.Role `json:"role"`
}

// opSetMemberRole answers PATCH
// /api/operator/tenants/{id}/members/{user_id}; demoting the tenant's
// last owner is 409 conflict.
func (a *API) opSetMemberRole(w http.ResponseWriter, r *http.Request) error {
	tenantID, userID, err := memberPath(r)
	if err != nil {
		return err
	}
	var req setRoleRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if req.Role == "" {
		f := field.Errors{}
		f.Required("role")
		return f.Err()
	}
	m, err := a.cfg.Operator.Members.SetRole(r.Context(), tenantID, userID, req.Role)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// opRemoveMember answers DELETE
// /api/operator/tenants/{id}/members/{user_id} (204), which frees a seat;
// removing the tenant's last owner is 409 conflict.
func (a *API) opRemoveMember(w http.ResponseWriter, r *http.Request) error {
	tenantID, userID, err := memberPath(r)
	if err != nil {
		return err
	}
	if err := a.cfg.Operator.Members.Remove(r.Context(), tenantID, userID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// opEndUserSessions answers DELETE /api/operator/users/{id}/sessions
// (204): every portal session of the user ends, in every tenant, and its
// cookie is refused from then on. A user without sessions is no error.
func (a *API) opEndUserSessions(w http.ResponseWriter, r *http.Request) error {
	userID, err := pathID(r, id.User, "user")
	if err != nil {
		return err
	}
	if _, err := a.cfg.Operator.Sessions.EndAll(r.Context(), userID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// memberPath returns the tenant and user ids of a member's path; a
// malformed one is 404.
func memberPath(r *http.Request) (tenantID, userID string, err error) {
	if tenantID, err = pathID(r, id.Tenant, "tenant"); err != nil {
		return "", "", err
	}
	if userID = r.PathValue("user_id"); !id.Valid(id.User, userID) {
		return "", "", NewProblem(http.StatusNotFound, CodeNotFound, "member not found")
	}
	return tenantID, userID, nil
}

// opListAPIKeys answers GET /api/operator/tenants/{id}/api-keys: the keys
// pinned to the tenant, newest first, revoked ones included, never their
// secrets.
func (a *API) opListAPIKeys(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := pathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	ks, more, err := a.cfg.Operator.Index.APIKeys(r.Context(), tenantID, tenancy.KeyFilter{Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(ks, more, func(k tenancy.APIKey) string { return k.ID }))
	return nil
}

// createAPIKeyRequest is the body of POST
// /api/operator/tenants/{id}/api-keys.
type createAPIKeyRequest struct {
	userRef
	Scopes []tenancy.Scope `json:"scopes"`
	Name   string          `json:"name"`
}

// createdAPIKey is the answer to POST /api/operator/tenants/{id}/api-keys:
// the key and, this once, its secret.
type createdAPIKey struct {
	tenancy.APIKey
	Key string `json:"key"`
}

// opCreateAPIKey answers POST /api/operator/tenants/{id}/api-keys: a key
// of a member, pinned to the tenant (201). The secret is in this answer
// only; the endpoint does not honour Idempotency-Key, whose replay would
// need the secret stored.
func (a *API) opCreateAPIKey(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := pathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	var req createAPIKeyRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	f := field.Errors{}
	user := req.ref(f)
	if err := f.Err(); err != nil {
		return err
	}
	in := tenancy.CreateAPIKeyInput{UserEmail: req.Email, UserID: req.UserID, Scopes: req.Scopes, Tenant: tenantID, Name: req.Name}
	k, secret, err := a.cfg.Operator.APIKeys.Create(r.Context(), in)
	if errors.Is(err, tenancy.ErrNotMember) {
		return validationProblem([]FieldError{{Field: userField(req.userRef), Code: field.Invalid,
			Message: "must name a member of the tenant: " + user + " is not one"}})
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, createdAPIKey{APIKey: k, Key: secret})
	return nil
}

// userField is the body field a userRef was given in.
func userField(u userRef) string {
	if u.UserID != "" {
		return "user_id"
	}
	return "email"
}

// opRevokeAPIKey answers DELETE /api/operator/api-keys/{id} (204): the
// key fails from then on. Revoking a revoked key changes nothing.
func (a *API) opRevokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	keyID, err := pathID(r, id.APIKey, "API key")
	if err != nil {
		return err
	}
	if err := a.cfg.Operator.APIKeys.Revoke(r.Context(), keyID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// renameFields returns err with the fields of its validation error, if
// any, renamed as names says: the service's name of an input to the name
// of the body field it came in.
func renameFields(err error, names map[string]string) error {
	var ie *field.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	f := field.Errors{}
	for _, fe := range ie.Errors() {
		if n, ok := names[fe.Field]; ok {
			fe.Field = n
		}
		f.Add(fe.Field, fe.Code, fe.Message)
	}
	return f.Err()
}
