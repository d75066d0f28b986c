package tenancy

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Scope limits what a credential may do, whatever the user's role allows.
type Scope string

// The scopes of the interface document, and no others.
const (
	ScopeCollectionsRead  Scope = "collections:read"
	ScopeCollectionsWrite Scope = "collections:write"
	ScopeTicketsRead      Scope = "tickets:read"
	ScopeTicketsWrite     Scope = "tickets:write"
)

// Scopes lists every scope.
func Scopes() []Scope {
	return []Scope{ScopeCollectionsRead, ScopeCollectionsWrite, ScopeTicketsRead, ScopeTicketsWrite}
}

// Valid reports whether s is one of Scopes.
func (s Scope) Valid() bool { return slices.Contains(Scopes(), s) }

// APIKey is a long-lived credential of one user. Only a hash of its secret
// is stored; the secret itself is shown once, when the key is created.
type APIKey struct {
	ID     string  `json:"id"`
	UserID string  `json:"user_id"`
	Name   string  `json:"name"`
	Scopes []Scope `json:"scopes"`
	// TenantID pins the key to one tenant; empty means the key acts in
	// whichever tenant is selected, like its user.
	TenantID string `json:"tenant_id,omitempty"`
	// Prefix is the start of the secret ("tk_ab12cd"), enough for a person
	// to recognise a key in a listing and useless to an attacker.
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// KeyPrefix starts every API key secret, so that scanners and people can
// tell a tenantkit key at a glance.
const KeyPrefix = "tk_"

// maxSecretLen bounds what Keys.Authenticate will hash.
const maxSecretLen = 128

// newSecret returns a fresh 256-bit secret, "tk_" + base64url.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// HashSecret is how a key secret is stored and looked up: hex SHA-256. The
// secret has 256 bits of entropy, so a fast hash is enough (no salt or
// stretching needed) and lets the lookup use an index.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// LooksLikeKey reports whether a bearer token is meant as an API key
// rather than a JWT.
func LooksLikeKey(token string) bool { return strings.HasPrefix(token, KeyPrefix) }

// HasScope reports whether the key carries scope s.
func (k APIKey) HasScope(s Scope) bool { return slices.Contains(k.Scopes, s) }

// KeyStore is the persistence Keys needs. Implementations must be safe
// for concurrent use, join the transaction carried by ctx when there is
// one, and translate driver errors into the sentinels named below.
// tenancytest.RunKeys checks all of it.
type KeyStore interface {
	// CreateAPIKey stores k with the hash of its secret. ErrConflict when
	// the id or the hash is taken; ErrNotFound when its user or tenant
	// does not exist.
	CreateAPIKey(ctx context.Context, k APIKey, secretHash string) error
	// APIKeyByHash returns the key whose secret hashes to secretHash,
	// revoked or not, with its user: what authenticating a request needs,
	// read together. ErrNotFound when absent.
	APIKeyByHash(ctx context.Context, secretHash string) (APIKey, User, error)
	// RevokeAPIKey marks the key revoked at at. ErrNotFound when absent.
	// Revoking twice keeps the first time.
	RevokeAPIKey(ctx context.Context, id string, at time.Time) error
}

// Keys issues, revokes and authenticates API keys.
type Keys struct {
	store  KeyStore
	dir    *Directory
	now    func() time.Time
	tx     Transactor // nil: the store's writes run alone
	events Events
}

// NewKeys returns Keys on store, finding users and tenants in dir. Its
// events (WithEvents) are written in the transaction ctx carries, if any;
// New runs each change and its event in a transaction of its own.
func NewKeys(store KeyStore, dir *Directory, opts ...Option) *Keys {
	return newKeys(store, dir, nil, opts)
}

func newKeys(store KeyStore, dir *Directory, tx Transactor, opts []Option) *Keys {
	o := newOptions(opts)
	return &Keys{store: store, dir: dir, now: o.now, tx: tx, events: o.events}
}

// inTx runs fn in a transaction of s.tx, or alone without one.
func (s *Keys) inTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.tx == nil {
		return fn(ctx)
	}
	return s.tx.InTx(ctx, fn)
}

// CreateAPIKeyInput is what Keys.Create needs. The tags are the rules of
// Scopes (Scopes(), no other; at most 4, as many as there are) and Name,
// whose json names are those of the body of POST
// /api/operator/tenants/{id}/api-keys; the user and tenant must exist.
// That body names the user its own way (user_id or email, exactly one) and
// the tenant in its path, hence no json names for them.
type CreateAPIKeyInput struct {
	// UserEmail names the key's user.
	UserEmail string `json:"-"`
	// UserID names the key's user by id instead, when set.
	UserID string `json:"-"`
	// Scopes the key carries; at least one.
	Scopes []Scope `json:"scopes" validate:"required,min=1,max=4,dive,oneof=collections:read collections:write tickets:read tickets:write"`
	// Tenant (id or slug) pins the key to one tenant; optional.
	Tenant string `json:"-"`
	// Name helps people recognise the key; optional.
	Name string `json:"name" validate:"max=200,line"`
}

// Create creates a key and returns it with its secret, which is not
// stored and cannot be shown again. InvalidError (fields "scopes",
// "scopes[i]", "name"); ErrNotFound for an unknown user or tenant;
// ErrNotMember when the key is pinned to a tenant its user does not belong
// to.
func (s *Keys) Create(ctx context.Context, in CreateAPIKeyInput) (APIKey, string, error) {
	if err := field.Check(in); err != nil {
		return APIKey{}, "", fmt.Errorf("tenancy: create api key: %w", err)
	}
	ref := in.UserEmail
	if in.UserID != "" {
		ref = in.UserID
	}
	u, err := s.dir.FindUser(ctx, ref)
	if err != nil {
		return APIKey{}, "", err
	}
	key := APIKey{ID: id.New(id.APIKey), UserID: u.ID, Name: in.Name, CreatedAt: s.now().UTC()}
	key.Scopes = slices.Compact(slices.Sorted(slices.Values(in.Scopes)))
	if in.Tenant != "" {
		t, err := s.dir.FindTenant(ctx, in.Tenant)
		if err != nil {
			return APIKey{}, "", err
		}
		if _, err := s.dir.store.Membership(ctx, t.ID, u.ID); err != nil {
			return APIKey{}, "", fmt.Errorf("tenancy: pin key to %s: %w", t.Slug, ErrNotMember)
		}
		key.TenantID = t.ID
	}
	secret, err := newSecret()
	if err != nil {
		return APIKey{}, "", fmt.Errorf("tenancy: generate key: %w", err)
	}
	key.Prefix = secret[:len(KeyPrefix)+6]
	err = s.inTx(ctx, func(ctx context.Context) error {
		if err := s.store.CreateAPIKey(ctx, key, HashSecret(secret)); err != nil {
			return err
		}
		return record(ctx, s.events, key.TenantID, eventAPIKeyCreated, "api_key", key.ID, key)
	})
	if err != nil {
		return APIKey{}, "", fmt.Errorf("tenancy: create api key: %w", err)
	}
	return key, secret, nil
}

// Revoke revokes a key; requests with it fail from then on. ErrNotFound
// for an unknown key.
func (s *Keys) Revoke(ctx context.Context, keyID string) error {
	at := s.now().UTC().Truncate(time.Microsecond)
	err := s.inTx(ctx, func(ctx context.Context) error {
		if err := s.store.RevokeAPIKey(ctx, keyID, at); err != nil {
			return err
		}
		return record(ctx, s.events, "", eventAPIKeyRevoked, "api_key", keyID, revokedKey{ID: keyID, RevokedAt: at})
	})
	if err != nil {
		return fmt.Errorf("tenancy: revoke key %s: %w", keyID, err)
	}
	return nil
}

// Authenticate returns the key and user behind a secret.
// ErrUnauthenticated for an unknown or revoked key.
func (s *Keys) Authenticate(ctx context.Context, secret string) (APIKey, User, error) {
	if !LooksLikeKey(secret) || len(secret) > maxSecretLen {
		return APIKey{}, User{}, fmt.Errorf("tenancy: api key: %w", ErrUnauthenticated)
	}
	key, u, err := s.store.APIKeyByHash(ctx, HashSecret(secret))
	if errors.Is(err, ErrNotFound) || (err == nil && key.RevokedAt != nil) {
		return APIKey{}, User{}, fmt.Errorf("tenancy: api key: %w", ErrUnauthenticated)
	}
	if err != nil {
		return APIKey{}, User{}, fmt.Errorf("tenancy: api key: %w", err)
	}
	return key, u, nil
}
