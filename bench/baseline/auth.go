package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenantkit/tenantkit/catalog"
)

// caller is who a request acts as: the key, its user, and the pinned
// tenant with the member's role and the tenant's plan.
type caller struct {
	keyID, userID, email, name string
	tenantID, role             string
	plan                       catalog.Plan
	seats                      int
}

// apiError is a problem to answer with.
type apiError struct {
	status       int
	code, detail string
}

func (e *apiError) Error() string { return e.code + ": " + e.detail }

func fail(status int, code, detail string) *apiError {
	return &apiError{status: status, code: code, detail: detail}
}

// The role → permission table of tenancy, for the permissions the bench's
// endpoints need.
var rolePerms = map[string][]string{
	"owner":   {"invoices:read", "invoices:write", "tickets:write", "entitlements:read", "billing:preview"},
	"admin":   {"invoices:read", "invoices:write", "tickets:write", "entitlements:read", "billing:preview"},
	"billing": {"invoices:read", "invoices:write", "tickets:write", "entitlements:read", "billing:preview"},
	"support": {"tickets:write", "entitlements:read"},
	"member":  {"tickets:write", "entitlements:read"},
}

// authenticate finds the API key by the hash of its secret (with its
// user), checks the scope, resolves the pinned tenant's membership (with
// the tenant's plan) and checks the role's permission: two queries.
func (s *server) authenticate(r *http.Request, scope, perm string) (caller, error) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(token, "tk_") || len(token) > 128 {
		return caller{}, fail(http.StatusUnauthorized, "unauthenticated", "authentication required")
	}
	sum := sha256.Sum256([]byte(token))
	var (
		c       caller
		scopes  string
		pinned  *string
		revoked bool
	)
	err := s.db.QueryRow(r.Context(),
		`SELECT k.id, k.scopes, k.tenant_id, k.revoked_at IS NOT NULL, u.id, u.email, u.name
		   FROM api_keys k JOIN users u ON u.id = k.user_id
		  WHERE k.secret_hash = $1`, hex.EncodeToString(sum[:])).
		Scan(&c.keyID, &scopes, &pinned, &revoked, &c.userID, &c.email, &c.name)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && revoked) {
		return caller{}, fail(http.StatusUnauthorized, "unauthenticated", "the credential is invalid, expired or revoked")
	}
	if err != nil {
		return caller{}, err
	}
	if scope != "" && !slices.Contains(strings.Fields(scopes), scope) {
		return caller{}, fail(http.StatusForbidden, "insufficient_scope", "this endpoint needs the scope "+scope)
	}
	if pinned == nil {
		return caller{}, fail(http.StatusConflict, "tenant_not_selected", "the baseline serves only keys pinned to a tenant")
	}
	var planID string
	err = s.db.QueryRow(r.Context(),
		`SELECT m.role, t.plan_id, t.seats FROM memberships m JOIN tenants t ON t.id = m.tenant_id
		  WHERE m.tenant_id = $1 AND m.user_id = $2`, *pinned, c.userID).Scan(&c.role, &planID, &c.seats)
	if errors.Is(err, pgx.ErrNoRows) {
		return caller{}, fail(http.StatusForbidden, "forbidden", "not a member of the key's tenant")
	}
	if err != nil {
		return caller{}, err
	}
	c.tenantID = *pinned
	var ok bool
	if c.plan, ok = s.plans[planID]; !ok {
		return caller{}, fmt.Errorf("tenant %s is on unknown plan %q", c.tenantID, planID)
	}
	if perm != "" && !slices.Contains(rolePerms[c.role], perm) {
		return caller{}, fail(http.StatusForbidden, "forbidden", "your role lacks the permission "+perm)
	}
	return c, nil
}

// respondError writes err as a problem; anything but an *apiError is a 500.
func respondError(w http.ResponseWriter, err error) {
	var ae *apiError
	if errors.As(err, &ae) {
		writeProblem(w, ae.status, ae.code, ae.detail)
		return
	}
	fmt.Println("baseline: internal error:", err)
	writeProblem(w, http.StatusInternalServerError, "internal", "internal error")
}

func writeProblem(w http.ResponseWriter, status int, code, detail string) {
	body, _ := json.Marshal(map[string]any{
		"type": "about:blank", "title": http.StatusText(status), "status": status, "code": code, "detail": detail})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		respondError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// decodeBody decodes a JSON request body strictly (unknown fields refused).
func decodeBody(r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fail(http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be application/json")
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 1<<20))
	if err != nil {
		return fail(http.StatusRequestEntityTooLarge, "payload_too_large", "body too large")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fail(http.StatusBadRequest, "invalid_request", err.Error())
	}
	return nil
}
