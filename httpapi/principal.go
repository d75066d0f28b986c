package httpapi

import (
	"context"
	"slices"

	"github.com/tenantkit/tenantkit/tenancy"
)

// AuthMethod says how a request proved who it is.
type AuthMethod string

// The built-in authentication methods.
const (
	AuthAPIKey  AuthMethod = "api_key"
	AuthJWT     AuthMethod = "jwt"
	AuthSession AuthMethod = "session"
	// AuthOperatorKey is an operator API key ("tko_…"): the platform's
	// staff, accepted only by the operator API.
	AuthOperatorKey AuthMethod = "operator_key"
)

// Principal is the authenticated caller of a request.
type Principal struct {
	// User is the person or robot behind the credential.
	User tenancy.User
	// Scopes bound what the credential may do, whatever the user's role.
	Scopes []tenancy.Scope
	// Method is how the credential was presented.
	Method AuthMethod
	// Credential identifies the credential for remembering its active
	// tenant (see tenancy.Credential).
	Credential tenancy.Credential
	// SessionID is the tenantkit session (tenancy.Sessions) the
	// credential belongs to, checked live, or "" when it belongs to none;
	// signing out ends it.
	SessionID string
	// SessionBinding is set for ambient credentials (the session cookie):
	// CSRF tokens are bound to it, and unsafe requests must carry one.
	SessionBinding string
	// OperatorKeyID is the operator key's id when Method is
	// AuthOperatorKey. Such a principal has no User and acts for no
	// tenant: only the operator API accepts it, and it accepts no other.
	OperatorKeyID string
}

// Operator reports whether the principal is the platform's staff (an
// operator key) rather than a tenant's user.
func (p *Principal) Operator() bool { return p.Method == AuthOperatorKey }

// actor is who p is, as the services' audit trail records it.
func (p *Principal) actor(requestID string) tenancy.Actor {
	a := tenancy.Actor{Kind: tenancy.ActorUser, ID: p.User.ID, Credential: p.Credential.Key,
		Method: string(p.Method), RequestID: requestID}
	if p.Operator() {
		a.Kind, a.ID = tenancy.ActorOperator, p.OperatorKeyID
	}
	return a
}

// HasScope reports whether the principal's credential carries scope s.
func (p *Principal) HasScope(s tenancy.Scope) bool { return slices.Contains(p.Scopes, s) }

// Ambient reports whether the credential is sent by the browser on its own
// (a cookie), which is what makes CSRF checks necessary.
func (p *Principal) Ambient() bool { return p.SessionBinding != "" }

type principalKey struct{}

type membershipKey struct{}

// WithPrincipal returns ctx carrying p. Custom Authenticators do not need
// it (the edge stores what they return); tests and host apps may.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the authenticated caller, if any.
func PrincipalFrom(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok
}

func withMembership(ctx context.Context, m tenancy.Membership) context.Context {
	return context.WithValue(ctx, membershipKey{}, m)
}

// MembershipFrom returns the caller's membership of the tenant the request
// acts for, set on endpoints that act on a tenant.
func MembershipFrom(ctx context.Context) (tenancy.Membership, bool) {
	m, ok := ctx.Value(membershipKey{}).(tenancy.Membership)
	return m, ok
}
