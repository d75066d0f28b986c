// Package operator is the platform's own credentials: operator API keys,
// with which the platform's staff (and their automation) call the
// operator API (/api/operator/…) to run tenants, users, members and keys
// across the whole platform.
//
// An operator key is not a tenant's credential: it belongs to no user and
// no tenant, the tenant API refuses it, and the operator API refuses
// every tenant credential. Its secret starts with KeyPrefix ("tko_"),
// distinct from tenant API keys ("tk_"), so that both people and the
// authenticators tell the two apart at a glance. Like a tenant key it is
// 256 random bits, stored only as a hash, shown once, revocable, and
// carries scopes: ScopeRead for reading, ScopeWrite for changing.
//
// Keys is the service; KeyStore the persistence it consumes, which
// package tenancy/bunstore implements and tenancytest.RunOperatorKeys
// checks.
package operator

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The operator scopes. They are tenancy.Scopes so that a request's
// principal carries one kind of scope, but no tenant credential can carry
// them (tenancy.Scope.Valid refuses them).
const (
	// ScopeRead allows the operator API's GET endpoints.
	ScopeRead tenancy.Scope = "operator:read"
	// ScopeWrite allows the operator API's changes (POST, PUT, PATCH,
	// DELETE); it does not imply ScopeRead.
	ScopeWrite tenancy.Scope = "operator:write"
)

// Scopes lists every operator scope.
func Scopes() []tenancy.Scope { return []tenancy.Scope{ScopeRead, ScopeWrite} }

// KeyPrefix starts every operator key secret.
const KeyPrefix = "tko_"

// maxSecretLen bounds what Keys.Authenticate will hash.
const maxSecretLen = 128

// LooksLikeKey reports whether a bearer token is meant as an operator key.
func LooksLikeKey(token string) bool { return strings.HasPrefix(token, KeyPrefix) }

// Key is an operator API key. Only a hash of its secret is stored; the
// secret itself is shown once, when the key is created.
type Key struct {
	ID string `json:"id"`
	// Name says whose or what the key is ("billing-bot", "ann"); required.
	Name   string          `json:"name"`
	Scopes []tenancy.Scope `json:"scopes"`
	// Prefix is the start of the secret ("tko_ab12cd"), enough for a
	// person to recognise a key in a listing and useless to an attacker.
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// HasScope reports whether the key carries scope s.
func (k Key) HasScope(s tenancy.Scope) bool { return slices.Contains(k.Scopes, s) }

// Filter selects a page of operator keys.
type Filter struct {
	// Limit is the page size: 20 when 0, clamped to 1..100.
	Limit int
	// Before continues a list after the key with this id.
	Before string
}

// List bounds of Keys.List.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// KeyStore is the persistence Keys needs. Implementations must be safe
// for concurrent use, join the transaction carried by ctx when there is
// one, and translate driver errors into tenancy's sentinels named below.
// tenancytest.RunOperatorKeys checks all of it.
type KeyStore interface {
	// CreateOperatorKey stores k with the hash of its secret.
	// tenancy.ErrConflict when the id or the hash is taken.
	CreateOperatorKey(ctx context.Context, k Key, secretHash string) error
	// OperatorKeyByHash returns the key whose secret hashes to secretHash,
	// revoked or not. tenancy.ErrNotFound when absent.
	OperatorKeyByHash(ctx context.Context, secretHash string) (Key, error)
	// OperatorKeys returns up to f.Limit (≥ 1) keys, revoked ones
	// included, newest (highest id) first, with id < f.Before when set;
	// and whether more follow. No error but a storage fault.
	OperatorKeys(ctx context.Context, f Filter) ([]Key, bool, error)
	// RevokeOperatorKey marks the key revoked at at and returns it.
	// Revoking twice keeps the first time. tenancy.ErrNotFound when
	// absent.
	RevokeOperatorKey(ctx context.Context, id string, at time.Time) (Key, error)
}

// Keys issues, lists, revokes and authenticates operator keys.
type Keys struct {
	store  KeyStore
	now    func() time.Time
	events Events
	tx     Transactor
}

// Option configures Keys.
type Option func(*Keys)

// WithClock makes Keys read time from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option { return func(k *Keys) { k.now = now } }

// NewKeys returns Keys on store.
func NewKeys(store KeyStore, opts ...Option) *Keys {
	k := &Keys{store: store, now: time.Now}
	for _, o := range opts {
		o(k)
	}
	return k
}

// CreateInput is what Keys.Create needs. Its tags are the rules of each
// value, checked once the name is trimmed.
type CreateInput struct {
	// Name says whose or what the key is; required.
	Name string `json:"name" validate:"required,max=200,line"`
	// Scopes the key carries: at least one of Scopes.
	Scopes []tenancy.Scope `json:"scopes" validate:"required,min=1,dive,oneof=operator:read operator:write"`
}

// Create creates a key and returns it with its secret, which is not
// stored and cannot be shown again. *tenancy.InvalidError (fields "name",
// "scopes", "scopes[i]").
func (s *Keys) Create(ctx context.Context, in CreateInput) (Key, string, error) {
	in.Name = strings.TrimSpace(in.Name)
	if err := field.Check(in); err != nil {
		return Key{}, "", fmt.Errorf("operator: create key: %w", err)
	}
	secret, err := newSecret()
	if err != nil {
		return Key{}, "", fmt.Errorf("operator: generate key: %w", err)
	}
	k := Key{
		ID: id.New(id.OperatorKey), Name: in.Name,
		Scopes: slices.Compact(slices.Sorted(slices.Values(in.Scopes))),
		Prefix: secret[:len(KeyPrefix)+6], CreatedAt: s.clock(),
	}
	_, err = s.change(ctx, eventCreated, func(ctx context.Context) (Key, bool, error) {
		return k, true, s.store.CreateOperatorKey(ctx, k, tenancy.HashSecret(secret))
	})
	if err != nil {
		return Key{}, "", fmt.Errorf("operator: create key: %w", err)
	}
	return k, secret, nil
}

// List returns a page of keys, newest first, revoked ones included, and
// whether more follow. *tenancy.InvalidError (field "cursor") for a
// Before that is no key id.
func (s *Keys) List(ctx context.Context, f Filter) ([]Key, bool, error) {
	if f.Before != "" && !id.Valid(id.OperatorKey, f.Before) {
		return nil, false, fmt.Errorf("operator: list keys: %w",
			field.NewInvalidError("cursor", field.Invalid, "must be an operator key id"))
	}
	switch {
	case f.Limit == 0:
		f.Limit = DefaultListLimit
	default:
		f.Limit = min(max(f.Limit, 1), MaxListLimit)
	}
	ks, more, err := s.store.OperatorKeys(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("operator: list keys: %w", err)
	}
	return ks, more, nil
}

// Revoke revokes a key and returns it; requests with it fail from then
// on. Revoking a revoked key changes nothing (and records no event). tenancy.ErrNotFound for an
// unknown key.
func (s *Keys) Revoke(ctx context.Context, keyID string) (Key, error) {
	if !id.Valid(id.OperatorKey, keyID) {
		return Key{}, fmt.Errorf("operator: revoke key %q: %w", keyID, tenancy.ErrNotFound)
	}
	at := s.clock()
	k, err := s.change(ctx, eventRevoked, func(ctx context.Context) (Key, bool, error) {
		k, err := s.store.RevokeOperatorKey(ctx, keyID, at)
		return k, err == nil && k.RevokedAt != nil && k.RevokedAt.Equal(at), err
	})
	if err != nil {
		return Key{}, fmt.Errorf("operator: revoke key %s: %w", keyID, err)
	}
	return k, nil
}

// Authenticate returns the key behind a secret. tenancy.ErrUnauthenticated
// for an unknown or revoked key, or a secret that is no operator key.
func (s *Keys) Authenticate(ctx context.Context, secret string) (Key, error) {
	if !LooksLikeKey(secret) || len(secret) > maxSecretLen {
		return Key{}, fmt.Errorf("operator: key: %w", tenancy.ErrUnauthenticated)
	}
	k, err := s.store.OperatorKeyByHash(ctx, tenancy.HashSecret(secret))
	if errors.Is(err, tenancy.ErrNotFound) || (err == nil && k.RevokedAt != nil) {
		return Key{}, fmt.Errorf("operator: key: %w", tenancy.ErrUnauthenticated)
	}
	if err != nil {
		return Key{}, fmt.Errorf("operator: key: %w", err)
	}
	return k, nil
}

// clock returns the current time as stored: UTC, to the microsecond
// (what Postgres keeps), so that what a method returns equals what is
// read back.
func (s *Keys) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// newSecret returns a fresh 256-bit secret: KeyPrefix + base64url.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}
