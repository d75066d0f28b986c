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
	// SessionBinding is set for ambient credentials (the session cookie):
	// CSRF tokens are bound to it, and unsafe requests must carry one.
	SessionBinding string
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
