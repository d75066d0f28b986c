package portal_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/portal"
)

// TestLoginLinkExpires: a sign-in link is good for LinkTTL (15 minutes)
// on the links' clock, and refused once older, by Links and by the sign-in
// page alike; the refusal does not use the link up.
func TestLoginLinkExpires(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)
		ctx := context.Background()
		base := time.Now().UTC().Truncate(time.Second)
		var age atomic.Int64 // how far the clock is past base
		portal.SetLinkClock(e.links, func() time.Time { return base.Add(time.Duration(age.Load())) })
		issue := func() string {
			t.Helper()
			age.Store(0)
			l, err := e.links.Issue(ctx, "alice@acme.test", "acme", e.srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			if want := base.Add(portal.LinkTTL); !l.ExpiresAt.Equal(want) {
				t.Fatalf("link expires at %v, want %v", l.ExpiresAt, want)
			}
			u, err := url.Parse(l.URL)
			if err != nil {
				t.Fatal(err)
			}
			return u.Query().Get("token")
		}

		t.Run("GoodJustBefore", func(t *testing.T) {
			token := issue()
			age.Store(int64(portal.LinkTTL - time.Second))
			if _, err := e.links.Consume(ctx, token); err != nil {
				t.Fatalf("14m59s old: %v, want it accepted", err)
			}
		})

		t.Run("RefusedWhenOlder", func(t *testing.T) {
			token := issue()
			age.Store(int64(portal.LinkTTL + time.Second))
			if _, err := e.links.Consume(ctx, token); !errors.Is(err, portal.ErrLinkInvalid) {
				t.Fatalf("15m01s old: %v, want ErrLinkInvalid", err)
			}
		})

		t.Run("SignInPageRefusesOlder", func(t *testing.T) {
			token := issue()
			age.Store(int64(portal.LinkTTL + time.Minute))
			jar, _ := cookiejar.New(nil)
			c := &client{t: t, e: e, hc: &http.Client{Jar: jar}}
			page := c.get("/portal/login?"+url.Values{"token": {token}}.Encode(), http.StatusOK)
			form := url.Values{"token": {token}, "csrf_token": {field(t, page, "csrf_token")}}
			body := c.post("/portal/login", form, http.StatusUnauthorized)
			if !strings.Contains(body, "invalid, expired or already used") {
				t.Errorf("refused sign-in does not say why:\n%s", body)
			}
			// It was refused for its age, not used up: back in its 15
			// minutes the same link signs in.
			age.Store(int64(time.Minute))
			if _, err := e.links.Consume(ctx, token); err != nil {
				t.Fatalf("within its time after the refusal: %v", err)
			}
		})
	})
}
