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

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/httpapi"
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
	store  LinkStore
	dir    LinkDirectory
	now    func() time.Time
	events Recorder
	tx     Transactor
}

// Recorder records the audit trail's events: Record writes one event of type
// typ about a resource of tenantID ("" for the platform's own), with data
// (never a secret), on the transaction ctx carries. *event.Recorder
// implements it.
type Recorder interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// Transactor runs fn in one transaction carried by the context fn
// receives, committing only when fn returns nil. tenantkit.Transactor
// implements it.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// LinkOption configures Links.
type LinkOption func(*Links)

// WithLinkEvents makes Links record login_link.created when it issues a
// link and session.created when a link is redeemed (the user as actor),
// each in the transaction of its change, which tx runs. Neither carries
// the token. The events belong to the link's tenant, or to the platform
// when the link names none. tenantkit.New passes them to App.SignInLinks.
func WithLinkEvents(e Recorder, tx Transactor) LinkOption {
	return func(l *Links) { l.events, l.tx = e, tx }
}

// NewLinks returns Links on store, finding users and tenants in dir.
func NewLinks(store LinkStore, dir LinkDirectory, opts ...LinkOption) *Links {
	l := &Links{store: store, dir: dir, now: time.Now}
	for _, o := range opts {
		o(l)
	}
	return l
}

// linkEvent is the data of a login_link.created or session.created event:
// whom the link signs in, where, and when; never its token.
type linkEvent struct {
	UserID    string    `json:"user_id"`
	TenantID  string    `json:"tenant_id,omitempty"`
	Method    string    `json:"method"`
	CreatedAt time.Time `json:"link_created_at"`
	ExpiresAt time.Time `json:"link_expires_at"`
}

// change runs fn and records the event typ about link, in one transaction.
func (l *Links) change(ctx context.Context, typ, resourceType string, link *LoginLink, fn func(ctx context.Context) error) error {
	if l.events == nil || l.tx == nil {
		return fn(ctx)
	}
	return l.tx.InTx(ctx, func(ctx context.Context) error {
		if err := fn(ctx); err != nil {
			return err
		}
		if _, ok := tenancy.ActorFrom(ctx); !ok && typ == event.SessionCreated {
			// The user is who signs in, with the link as credential.
			ctx = tenancy.WithActor(ctx, tenancy.Actor{Kind: tenancy.ActorUser, ID: link.UserID,
				Method: "login_link", RequestID: httpapi.RequestIDFrom(ctx)})
		}
		data := linkEvent{UserID: link.UserID, TenantID: link.TenantID, Method: "login_link",
			CreatedAt: link.CreatedAt, ExpiresAt: link.ExpiresAt}
		return l.events.Record(ctx, link.TenantID, typ, resourceType, link.UserID, data)
	})
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
	err = l.change(ctx, event.LoginLinkCreated, "login_link", &link, func(ctx context.Context) error {
		return l.store.CreateLink(ctx, link)
	})
	if err != nil {
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
	var link LoginLink
	err := l.change(ctx, event.SessionCreated, "session", &link, func(ctx context.Context) error {
		var err error
		link, err = l.store.ConsumeLink(ctx, hashToken(token), l.now().UTC())
		return err
	})
	if err != nil {
		return LoginLink{}, err
	}
	return link, nil
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
