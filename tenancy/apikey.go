package tenancy

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"time"
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

// maxSecretLen bounds what AuthenticateAPIKey will hash.
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
