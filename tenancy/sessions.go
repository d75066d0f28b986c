package tenancy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
)

// Session is one sign-in of a user in a browser (the portal's session
// cookie). The cookie is a signed token naming the session by its id (the
// token's "sid"); the session itself is kept here, so that it can end
// before the token expires: at sign-out, when the user leaves the tenant
// the session acts for, or when an operator ends all of the user's
// sessions. The id is not a secret: without the signing key it makes no
// cookie.
type Session struct {
	ID        string     `json:"id"`
	UserID    string     `json:"user_id"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt time.Time  `json:"expires_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
}

// SessionStore keeps sessions. Implementations must be safe for
// concurrent use, join the transaction carried by ctx when there is one,
// and translate driver errors into the sentinels named below.
// tenancytest.RunSessions checks all of it.
type SessionStore interface {
	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s Session) error
	// LiveSession reports whether the session exists, belongs to userID,
	// has not ended and expires after now: ErrNotFound when it does not.
	LiveSession(ctx context.Context, sessionID, userID string, now time.Time) error
	// EndSession ends the session at at. Ending an unknown or ended
	// session changes nothing and is no error.
	EndSession(ctx context.Context, sessionID string, at time.Time) error
	// EndUserSessions ends every session of the user not ended yet and
	// returns how many it ended.
	EndUserSessions(ctx context.Context, userID string, at time.Time) (int64, error)
	// EndTenantSessions ends the user's sessions not ended yet whose
	// active tenant (the selection of the credential "sid:" + id) is
	// tenantID, and returns how many it ended.
	EndTenantSessions(ctx context.Context, tenantID, userID string, at time.Time) (int64, error)
}

// Sessions starts, checks and ends sessions.
type Sessions struct {
	store SessionStore
	dir   *Directory
	now   func() time.Time
}

// NewSessions returns Sessions on store, finding users in dir.
func NewSessions(store SessionStore, dir *Directory, opts ...Option) *Sessions {
	o := newOptions(opts)
	return &Sessions{store: store, dir: dir, now: o.now}
}

// LooksLikeSessionID reports whether s has the form of the ids Sessions
// gives: a token whose "sid" has it names a session of Sessions, which
// must be live, whoever else signs tokens with the same key.
func LooksLikeSessionID(s string) bool { return id.Valid(id.Session, s) }

// Start begins a session of the user that lasts ttl. ErrNotFound for an
// unknown user.
func (s *Sessions) Start(ctx context.Context, userID string, ttl time.Duration) (Session, error) {
	if _, err := s.dir.User(ctx, userID); err != nil {
		return Session{}, err
	}
	now := s.now().UTC()
	sess := Session{ID: id.New(id.Session), UserID: userID, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return Session{}, fmt.Errorf("tenancy: start session of %s: %w", userID, err)
	}
	return sess, nil
}

// Check returns nil when the session is live and the user's, else an
// error matching ErrUnauthenticated.
func (s *Sessions) Check(ctx context.Context, sessionID, userID string) error {
	if !LooksLikeSessionID(sessionID) {
		return fmt.Errorf("tenancy: session: malformed id: %w", ErrUnauthenticated)
	}
	err := s.store.LiveSession(ctx, sessionID, userID, s.now().UTC())
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("tenancy: session %s: ended, expired or unknown: %w", sessionID, ErrUnauthenticated)
	}
	if err != nil {
		return fmt.Errorf("tenancy: session %s: %w", sessionID, err)
	}
	return nil
}

// End ends the session (sign-out): its cookie is refused from then on.
// Ending an ended or unknown session is no error.
func (s *Sessions) End(ctx context.Context, sessionID string) error {
	if !LooksLikeSessionID(sessionID) {
		return nil
	}
	if err := s.store.EndSession(ctx, sessionID, s.now().UTC()); err != nil {
		return fmt.Errorf("tenancy: end session %s: %w", sessionID, err)
	}
	return nil
}

// EndAll ends every session of the user (id or email), in every tenant,
// and returns how many were live. ErrNotFound for an unknown user.
func (s *Sessions) EndAll(ctx context.Context, userRef string) (int64, error) {
	u, err := s.dir.FindUser(ctx, userRef)
	if err != nil {
		return 0, err
	}
	n, err := s.store.EndUserSessions(ctx, u.ID, s.now().UTC())
	if err != nil {
		return 0, fmt.Errorf("tenancy: end sessions of %s: %w", u.Email, err)
	}
	return n, nil
}

// endForRemoval ends the sessions of the user that act for the tenant
// the user is being removed from, in the removal's transaction: those
// whose active tenant it is, and, when it is the user's only tenant,
// every session (one without a selection acts for the only tenant).
func (s *Sessions) endForRemoval(ctx context.Context, tenantID, userID string) error {
	ms, err := s.dir.store.Memberships(ctx, userID)
	if err != nil {
		return err
	}
	at := s.now().UTC()
	if len(ms) <= 1 {
		_, err = s.store.EndUserSessions(ctx, userID, at)
	} else {
		_, err = s.store.EndTenantSessions(ctx, tenantID, userID, at)
	}
	return err
}
