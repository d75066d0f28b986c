package portal

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// LinkTTL is how long a sign-in link is good for.
const LinkTTL = 15 * time.Minute

// ErrLinkInvalid: the sign-in link is unknown, expired or already used.
// The three are one answer on purpose, so that a guess learns nothing.
var ErrLinkInvalid = errors.New("portal: the sign-in link is invalid, expired or already used")

// LoginLink is a one-time sign-in link as it is stored: the SHA-256 of its
// token, never the token itself, so that a copy of the database signs
// nobody in.
type LoginLink struct {
	// TokenHash is the hex SHA-256 of the token the URL carries.
	TokenHash string
	// UserID is who the link signs in.
	UserID string
	// TenantID, when set, is the tenant the session starts in.
	TenantID  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// LinkStore keeps sign-in links. httpapi/portal/bunstore implements it.
type LinkStore interface {
	// CreateLink stores l.
	CreateLink(ctx context.Context, l LoginLink) error
	// ConsumeLink marks the link whose token hashes to tokenHash used, if
	// it is unused and expires after now, and returns it. Of concurrent
	// calls for one link at most one succeeds: the check and the mark are
	// one statement. ErrLinkInvalid otherwise.
	ConsumeLink(ctx context.Context, tokenHash string, now time.Time) (LoginLink, error)
}

// LinkDirectory finds who a link is for. *tenancy.Directory implements it.
type LinkDirectory interface {
	UserByEmail(ctx context.Context, email string) (tenancy.User, error)
	FindTenant(ctx context.Context, ref string) (tenancy.Tenant, error)
	Memberships(ctx context.Context, userID string) ([]tenancy.TenantMembership, error)
}

// Links issues and redeems one-time sign-in links.
type Links struct {
	store LinkStore
	dir   LinkDirectory
	now   func() time.Time
}

// NewLinks returns Links on store, finding users and tenants in dir.
func NewLinks(store LinkStore, dir LinkDirectory) *Links {
	return &Links{store: store, dir: dir, now: time.Now}
}

// Issued is a sign-in link just made: its URL, shown once, and when it
// expires.
type Issued struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Issue makes a sign-in link for the user with email, starting in
// tenantRef (an id or slug; "" for the user's default), under baseURL
// ("https://tenantkit.example.com"). Errors wrap tenancy.ErrNotFound for
// an unknown user or tenant and tenancy.ErrNotMember when the user is not
// a member of the tenant.
func (l *Links) Issue(ctx context.Context, email, tenantRef, baseURL string) (Issued, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Issued{}, fmt.Errorf("portal: base URL %q: want http(s)://host[:port]", baseURL)
	}
	user, err := l.dir.UserByEmail(ctx, email)
	if err != nil {
		return Issued{}, fmt.Errorf("portal: user %s: %w", email, err)
	}
	tenantID := ""
	if tenantRef != "" {
		t, err := l.dir.FindTenant(ctx, tenantRef)
		if err != nil {
			return Issued{}, fmt.Errorf("portal: tenant %s: %w", tenantRef, err)
		}
		ms, err := l.dir.Memberships(ctx, user.ID)
		if err != nil {
			return Issued{}, err
		}
		member := false
		for _, m := range ms {
			member = member || m.Tenant.ID == t.ID
		}
		if !member {
			return Issued{}, fmt.Errorf("portal: %s in %s: %w", email, tenantRef, tenancy.ErrNotMember)
		}
		tenantID = t.ID
	}
	token := rand.Text() // 128 bits from crypto/rand
	now := l.now().UTC().Truncate(time.Second)
	link := LoginLink{TokenHash: hashToken(token), UserID: user.ID, TenantID: tenantID,
		CreatedAt: now, ExpiresAt: now.Add(LinkTTL)}
	if err := l.store.CreateLink(ctx, link); err != nil {
		return Issued{}, fmt.Errorf("portal: store link: %w", err)
	}
	u.Path += "/portal/login"
	u.RawQuery = url.Values{"token": {token}}.Encode()
	return Issued{URL: u.String(), ExpiresAt: link.ExpiresAt}, nil
}

// Consume redeems token once: the link it names, or ErrLinkInvalid.
func (l *Links) Consume(ctx context.Context, token string) (LoginLink, error) {
	if token == "" || len(token) > 128 {
		return LoginLink{}, ErrLinkInvalid
	}
	return l.store.ConsumeLink(ctx, hashToken(token), l.now().UTC())
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
