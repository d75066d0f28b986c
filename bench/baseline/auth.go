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
	"time"

	"github.com/jackc/pgx/v5"
)

// caller is who a request acts as: the key, its user, and the pinned
// tenant with the member's role; st is the tenant's entitlement state when
// the route reads it.
type caller struct {
	keyID, userID, email, name string
	tenantID, role             string
	st                         *state
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
	"owner":   {"invoices:read", "invoices:write", "tickets:write", "entitlements:read", "billing:preview", "events:read"},
	"admin":   {"invoices:read", "invoices:write", "tickets:write", "entitlements:read", "billing:preview", "events:read"},
	"billing": {"invoices:read", "invoices:write", "tickets:write", "entitlements:read", "billing:preview", "events:read"},
	"support": {"tickets:write", "entitlements:read"},
	"member":  {"tickets:write", "entitlements:read"},
}

// reads says what tenant data a route reads with the caller's membership,
// as tenantkit's route table does: the membership alone, the entitlement
// state (module and limit checks) or the state with the period's usage
// and the member count (entitlements, preview).
type reads int

const (
	readsMembership reads = iota
	readsState
	readsUsage
)

// Tenantkit's statements, as its stores send them (bench/fairness.go
// checks that they stay the same).
const (
	sqlAPIKey = `SELECT k.*, u.email AS user_email, u.name AS user_name, u.created_at AS user_created_at FROM api_keys AS k JOIN users AS u ON u.id = k.user_id WHERE (k.secret_hash = $1)`

	sqlMembership = `SELECT membership_row.*, t.test_clock FROM "memberships" AS "membership_row" JOIN tenants AS t ON t.id = membership_row.tenant_id WHERE (tenant_id = $1) AND (user_id = $2)`

	sqlStateParts = `(SELECT 'tenant' AS kind, plan_id AS name, seats AS num, enabled_webhook_endpoints AS extra FROM tenants WHERE (id = $1)) UNION ALL (SELECT 'toggle', module, CASE WHEN enabled THEN 1 ELSE 0 END, NULL FROM module_toggles WHERE (tenant_id = $1)) UNION ALL (SELECT 'add_on', module, NULL, NULL FROM contract_add_ons WHERE (tenant_id = $1)) UNION ALL (SELECT 'limit', feature, lim, NULL FROM limit_overrides WHERE (tenant_id = $1)) UNION ALL (SELECT 'test', '', NULL, NULL FROM tenants WHERE (id = $1) AND (test))`

	sqlState = sqlStateParts + ` UNION ALL (SELECT 'member', role, NULL, NULL FROM memberships WHERE (tenant_id = $1) AND (user_id = $2))`

	sqlStateUsage = sqlStateParts + ` UNION ALL (SELECT 'usage', feature, used, NULL FROM usage_counters WHERE (tenant_id = $1) AND (period = $2)) UNION ALL (SELECT 'members', '', count(*), NULL FROM memberships WHERE (tenant_id = $1)) UNION ALL (SELECT 'member', role, NULL, NULL FROM memberships WHERE (tenant_id = $1) AND (user_id = $3))`
)

// authenticate finds the API key by the hash of its secret (with its
// user), checks the scope, reads the pinned tenant's membership — alone or
// with the entitlement state, as what says — and checks the role's
// permission: two queries.
func (s *server) authenticate(r *http.Request, scope, perm string, what reads) (caller, error) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(token, "tk_") || len(token) > 128 {
		return caller{}, fail(http.StatusUnauthorized, "unauthenticated", "authentication required")
	}
	sum := sha256.Sum256([]byte(token))
	var (
		c                    caller
		keyName, scopes      string
		prefix, hash         string
		pinned               *string
		created, userCreated time.Time
		revoked              *time.Time
	)
	err := s.db.QueryRow(r.Context(), sqlAPIKey, hex.EncodeToString(sum[:])).
		Scan(&c.keyID, &c.userID, &keyName, &scopes, &pinned, &prefix, &hash, &created, &revoked, &c.email, &c.name, &userCreated)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && revoked != nil) {
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
	c.tenantID = *pinned
	switch what {
	case readsMembership:
		var tid, uid string
		var since time.Time
		var clock *time.Time // a test tenant's clock; the bench has none
		err = s.db.QueryRow(r.Context(), sqlMembership, c.tenantID, c.userID).Scan(&tid, &uid, &c.role, &since, &clock)
		if errors.Is(err, pgx.ErrNoRows) {
			return caller{}, fail(http.StatusForbidden, "forbidden", "not a member of the key's tenant")
		}
	case readsState:
		c.st, err = s.readState(r.Context(), sqlState, c.tenantID, c.userID)
	case readsUsage:
		per, _, _ := period(time.Now())
		c.st, err = s.readState(r.Context(), sqlStateUsage, c.tenantID, per, c.userID)
	}
	if err != nil {
		return caller{}, err
	}
	if c.st != nil {
		if c.role = c.st.role; c.role == "" {
			return caller{}, fail(http.StatusForbidden, "forbidden", "not a member of the key's tenant")
		}
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
