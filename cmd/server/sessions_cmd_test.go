package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// TestUserEndSessions: `server user end-sessions` ends every session of
// the user, and only theirs; the sessions are started as the portal starts
// them, through the app the CLI opens.
func TestUserEndSessions(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		ann := mustCLIJSON(t, dbURL, "user", "create", "--email", "ann@acme.test", "--name", "Ann")["id"].(string)
		bob := mustCLIJSON(t, dbURL, "user", "create", "--email", "bob@acme.test", "--name", "Bob")["id"].(string)
		a, err := openApp(ctx, config{DatabaseURL: dbURL, LogLevel: "warn", LogFormat: "json"}, io.Discard, false)
		if err != nil {
			t.Fatal(err)
		}
		defer a.close()
		sessions := a.kit.Tenancy.Sessions
		start := func(userID string) tenancy.Session {
			s, err := sessions.Start(ctx, userID, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		ann1, ann2, bob1 := start(ann), start(ann), start(bob)

		got := mustCLIJSON(t, dbURL, "user", "end-sessions", "--user", "ann@acme.test")
		if got["ended"] != float64(2) {
			t.Fatalf("end-sessions printed %v, want ended: 2", got)
		}
		for _, s := range []tenancy.Session{ann1, ann2} {
			if err := sessions.Check(ctx, s.ID, ann); !errors.Is(err, tenancy.ErrUnauthenticated) {
				t.Errorf("ann's session %s after end-sessions: %v, want ErrUnauthenticated", s.ID, err)
			}
		}
		if err := sessions.Check(ctx, bob1.ID, bob); err != nil {
			t.Errorf("bob's session after ann's ended: %v, want live", err)
		}
		if out := string(mustCLI(t, dbURL, "user", "end-sessions", "--user", ann)); !strings.Contains(out, "ended 0 sessions") {
			t.Errorf("second end-sessions printed %q, want it to say it ended 0", out)
		}
		for _, tc := range []struct {
			name string
			args []string
			code int
		}{
			{"NoUser", nil, 2},
			{"UnknownUser", []string{"--user", "nobody@acme.test"}, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				args := append([]string{"user", "end-sessions", "--database-url", dbURL, "--log-level", "warn"}, tc.args...)
				if code, _, stderr := cliRun(t, args...); code != tc.code {
					t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
				}
			})
		}
	})
}
