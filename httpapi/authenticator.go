package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// Authenticator turns a request into a Principal.
//
// It returns ErrNoCredential when the request carries no credential of the
// kind it understands, so that a chain can try the next one; any other
// error means "a credential was presented and it is bad" and ends the
// request with 401.
type Authenticator interface {
	Authenticate(r *http.Request) (*Principal, error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (*Principal, error)

// Authenticate implements Authenticator.
func (f AuthenticatorFunc) Authenticate(r *http.Request) (*Principal, error) { return f(r) }

// ErrNoCredential: the request carries no credential this Authenticator
// understands.
var ErrNoCredential = errors.New("no credential")

// errBadCredential is what every rejected credential becomes at the edge:
// one message, whatever was wrong, so that nothing is learnt from it.
var errBadCredential = NewProblem(http.StatusUnauthorized, CodeUnauthenticated, "the credential is invalid, expired or revoked")

// Chain tries each Authenticator in order and returns the first answer
// that is not ErrNoCredential.
func Chain(auths ...Authenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*Principal, error) {
		for _, a := range auths {
			p, err := a.Authenticate(r)
			if errors.Is(err, ErrNoCredential) {
				continue
			}
			return p, err
		}
		return nil, ErrNoCredential
	})
}

// bearerToken returns the token of an "Authorization: Bearer …" header.
func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

var (
	_ Keys         = (*tenancy.Keys)(nil)
	_ OperatorKeys = (*operator.Keys)(nil)
)

// Keys authenticates API keys. *tenancy.Keys implements it.
type Keys interface {
	Authenticate(ctx context.Context, secret string) (tenancy.APIKey, tenancy.User, error)
}

// APIKeyAuthenticator accepts "Authorization: Bearer tk_…" API keys.
type APIKeyAuthenticator struct {
	// Keys authenticates the keys (a *tenancy.Keys).
	Keys Keys
}

// Authenticate implements Authenticator.
func (a APIKeyAuthenticator) Authenticate(r *http.Request) (*Principal, error) {
	token, ok := bearerToken(r)
	if !ok || !tenancy.LooksLikeKey(token) {
		return nil, ErrNoCredential
	}
	key, user, err := a.Keys.Authenticate(r.Context(), token)
	if err != nil {
		return nil, fmt.Errorf("httpapi: api key: %w", err)
	}
	return &Principal{
		User:   user,
		Scopes: key.Scopes,
		Method: AuthAPIKey,
		Credential: tenancy.Credential{
			Key: "key:" + key.ID, UserID: user.ID, PinnedTenantID: key.TenantID,
		},
	}, nil
}

// OperatorKeys authenticates operator keys. *operator.Keys implements it.
type OperatorKeys interface {
	// Authenticate returns the key behind a secret; an error wrapping
	// tenancy.ErrUnauthenticated for an unknown or revoked one.
	Authenticate(ctx context.Context, secret string) (operator.Key, error)
}

// OperatorKeyAuthenticator accepts "Authorization: Bearer tko_…" operator
// keys. The principal it returns has Method AuthOperatorKey, the key's
// scopes, and no user.
type OperatorKeyAuthenticator struct {
	// Keys authenticates the keys (an *operator.Keys).
	Keys OperatorKeys
}

// Authenticate implements Authenticator.
func (a OperatorKeyAuthenticator) Authenticate(r *http.Request) (*Principal, error) {
	token, ok := bearerToken(r)
	if !ok || !operator.LooksLikeKey(token) {
		return nil, ErrNoCredential
	}
	key, err := a.Keys.Authenticate(r.Context(), token)
	if err != nil {
		return nil, fmt.Errorf("httpapi: operator key: %w", err)
	}
	return &Principal{
		Scopes:        key.Scopes,
		Method:        AuthOperatorKey,
		Credential:    tenancy.Credential{Key: "operator:" + key.ID},
		OperatorKeyID: key.ID,
	}, nil
}
