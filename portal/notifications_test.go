package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestPortalNotifications(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)
		ctx := context.Background()
		notify := func(tenantID, title string) tenancy.Notification {
			t.Helper()
			n, err := app.Tenancy.Notifications.Notify(ctx, tenantID, tenancy.NewNotification{Type: "test.note", Title: title, Body: "Body of " + title})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		first, second := notify(e.acme.ID, "First"), notify(e.acme.ID, "Second")
		notify(e.acme.ID, "Third")
		foreign := notify(e.globx.ID, "Globex only")
		c := e.signIn(t, "alice@acme.test")
		unread := func(want string) string {
			t.Helper()
			body := c.get("/portal/", http.StatusOK)
			nav := body[strings.Index(body, `id="nav-notifications">`)+len(`id="nav-notifications">`):]
			nav = nav[:strings.Index(nav, "</a>")]
			if got := strings.Join(strings.Fields(stripTags(nav)), " "); got != want {
				t.Errorf("navigation says %q, want %q", got, want)
			}
			return body
		}

		body := unread("Notifications (3 unread)")
		for _, want := range []string{"First", "Second", "Third", `id="mark-all-read"`, `action="/portal/notifications/` + first.ID + `/read"`} {
			if !strings.Contains(body, want) {
				t.Errorf("dashboard lacks %q", want)
			}
		}
		if strings.Contains(body, "Globex only") {
			t.Error("dashboard shows another tenant's notification")
		}
		upTo := field(t, body, "up_to") // the newest shown

		for _, tc := range []struct {
			name, path string
			form       url.Values
			code       int
			nav        string
		}{
			{"no token", "/notifications/" + first.ID + "/read", url.Values{}, http.StatusForbidden, "Notifications (3 unread)"},
			{"another tenant's", "/notifications/" + foreign.ID + "/read", url.Values{"csrf_token": {c.csrf()}}, http.StatusNotFound, "Notifications (3 unread)"},
			{"malformed id", "/notifications/nonsense/read", url.Values{"csrf_token": {c.csrf()}}, http.StatusNotFound, "Notifications (3 unread)"},
			{"one", "/notifications/" + first.ID + "/read", url.Values{"csrf_token": {c.csrf()}}, http.StatusOK, "Notifications (2 unread)"},
			{"again", "/notifications/" + first.ID + "/read", url.Values{"csrf_token": {c.csrf()}}, http.StatusOK, "Notifications (2 unread)"},
			{"all without token", "/notifications/read-all", url.Values{"up_to": {upTo}}, http.StatusForbidden, "Notifications (2 unread)"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c.post("/portal"+tc.path, tc.form, tc.code)
				unread(tc.nav)
			})
		}
		if n, _ := app.Tenancy.Notifications.UnreadCount(ctx, e.globx.ID); n != 1 {
			t.Errorf("globex has %d unread, want 1", n)
		}

		t.Run("AllUpToWhatWasShown", func(t *testing.T) {
			late := notify(e.acme.ID, "Arrived later")
			body := c.post("/portal/notifications/read-all", url.Values{"csrf_token": {c.csrf()}, "up_to": {upTo}}, http.StatusOK)
			if !strings.Contains(body, "All notifications are marked read.") || strings.Contains(body, second.Title+"</strong>") {
				t.Errorf("after mark all read:\n%s", body)
			}
			body = unread("Notifications (1 unread)")
			if !strings.Contains(body, late.Title) {
				t.Error("the notification that arrived later is not unread")
			}
			c.post("/portal/notifications/read-all", url.Values{"csrf_token": {c.csrf()}, "up_to": {field(t, body, "up_to")}}, http.StatusOK)
			if body = unread("Notifications"); !strings.Contains(body, "Nothing new.") {
				t.Error("dashboard still lists unread notifications")
			}
		})
	})
}

// stripTags drops the HTML tags of s, leaving its text.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
