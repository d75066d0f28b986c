package tenancytest

import (
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunSessions checks a tenancy.SessionStore: every method and its
// documented errors, that a session is live for its own user only, and
// that ending a user's sessions in one tenant leaves their sessions in
// another tenant, and other users' sessions, live.
func RunSessions(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"LiveSession", testLiveSession},
		{"EndSession", testEndSession},
		{"EndUserSessions", testEndUserSessions},
		{"EndTenantSessions", testEndTenantSessions},
	})
}

// mustSession stores a session of the user, started at at(0), expiring at
// at(60).
func mustSession(tb testing.TB, s Backend, userID string) tenancy.Session {
	tb.Helper()
	sess := tenancy.Session{ID: id.New(id.Session), UserID: userID, CreatedAt: at(0), ExpiresAt: at(60)}
	if err := s.CreateSession(tb.Context(), sess); err != nil {
		tb.Fatalf("CreateSession: %v", err)
	}
	return sess
}

// wantLive checks whether the session is live for its user at at(1).
func wantLive(tb testing.TB, s Backend, sess tenancy.Session, live bool) {
	tb.Helper()
	err := s.LiveSession(tb.Context(), sess.ID, sess.UserID, at(1))
	var want error
	if !live {
		want = tenancy.ErrNotFound
	}
	wantErr(tb, "LiveSession("+sess.ID+")", err, want)
}

func testLiveSession(t *testing.T, s Backend) {
	ctx := t.Context()
	u, other := mustUser(t, s), mustUser(t, s)
	sess := mustSession(t, s, u.ID)
	for _, tc := range []struct {
		name           string
		sessionID, usr string
		now            int
		want           error
	}{
		{"OK", sess.ID, u.ID, 1, nil},
		{"AnotherUser", sess.ID, other.ID, 1, tenancy.ErrNotFound},
		{"Unknown", id.New(id.Session), u.ID, 1, tenancy.ErrNotFound},
		{"Expired", sess.ID, u.ID, 60, tenancy.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, "LiveSession", s.LiveSession(ctx, tc.sessionID, tc.usr, at(tc.now)), tc.want)
		})
	}
}

func testEndSession(t *testing.T, s Backend) {
	ctx := t.Context()
	u := mustUser(t, s)
	sess, kept := mustSession(t, s, u.ID), mustSession(t, s, u.ID)
	wantErr(t, "EndSession", s.EndSession(ctx, sess.ID, at(1)), nil)
	wantLive(t, s, sess, false)
	wantLive(t, s, kept, true)
	t.Run("Again", func(t *testing.T) { wantErr(t, "EndSession(ended)", s.EndSession(ctx, sess.ID, at(2)), nil) })
	t.Run("Unknown", func(t *testing.T) {
		wantErr(t, "EndSession(unknown)", s.EndSession(ctx, id.New(id.Session), at(2)), nil)
	})
}

func testEndUserSessions(t *testing.T, s Backend) {
	ctx := t.Context()
	u, other := mustUser(t, s), mustUser(t, s)
	a, b, ended, others := mustSession(t, s, u.ID), mustSession(t, s, u.ID), mustSession(t, s, u.ID), mustSession(t, s, other.ID)
	wantErr(t, "EndSession", s.EndSession(ctx, ended.ID, at(1)), nil)
	n, err := s.EndUserSessions(ctx, u.ID, at(1))
	if err != nil || n != 2 {
		t.Fatalf("EndUserSessions: got %d, %v; want 2 (the live ones), nil", n, err)
	}
	wantLive(t, s, a, false)
	wantLive(t, s, b, false)
	wantLive(t, s, others, true)
}

// testEndTenantSessions: a session whose credential has tenant A selected
// ends; the user's session in tenant B and with no selection, and another
// member's session in tenant A, stay live.
func testEndTenantSessions(t *testing.T, s Backend) {
	ctx := t.Context()
	ta, tb := mustTenant(t, s), mustTenant(t, s)
	u, other := mustUser(t, s), mustUser(t, s)
	for _, m := range []struct{ tenant, user string }{{ta.ID, u.ID}, {tb.ID, u.ID}, {ta.ID, other.ID}} {
		mustMember(t, s, m.tenant, m.user, tenancy.RoleMember)
	}
	inA, inB, none, othersInA := mustSession(t, s, u.ID), mustSession(t, s, u.ID), mustSession(t, s, u.ID), mustSession(t, s, other.ID)
	for _, sel := range []struct {
		sess   tenancy.Session
		tenant string
	}{{inA, ta.ID}, {inB, tb.ID}, {othersInA, ta.ID}} {
		if err := s.SetSelection(ctx, "sid:"+sel.sess.ID, sel.sess.UserID, sel.tenant, at(0)); err != nil {
			t.Fatalf("SetSelection: %v", err)
		}
	}
	n, err := s.EndTenantSessions(ctx, ta.ID, u.ID, at(1))
	if err != nil || n != 1 {
		t.Fatalf("EndTenantSessions: got %d, %v; want 1, nil", n, err)
	}
	wantLive(t, s, inA, false)
	wantLive(t, s, inB, true)
	wantLive(t, s, none, true)
	wantLive(t, s, othersInA, true)
}
