package portal_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// signInTo signs email in with a link starting in tenant ("" for none)
// and returns the browser and its session cookie.
func (e *env) signInTo(t *testing.T, email, tenant string) (*client, *http.Cookie) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &client{t: t, e: e, hc: &http.Client{Jar: jar}}
	body := c.get(e.link(t, email, tenant), http.StatusOK)
	c.post("/portal/login", url.Values{"token": {field(t, body, "token")}, "csrf_token": {field(t, body, "csrf_token")}}, http.StatusOK)
	u, _ := url.Parse(e.srv.URL)
	for _, ck := range jar.Cookies(u) {
		if ck.Name == "tenantkit_session" {
			return c, ck
		}
	}
	t.Fatalf("signing %s in set no session cookie", email)
	return nil, nil
}

// replay is the outcome of presenting a session cookie on its own, as a
// copy of it would be: to the portal's dashboard, and to the API as
// cookie and as bearer token.
type replay struct {
	portal            int    // status of GET /portal/
	location, tenant  string // where it redirects; the tenant the page shows
	cleared           bool   // the answer clears the cookie
	apiCookie, bearer int    // statuses of GET /api/auth/me
}

func (e *env) replay(t *testing.T, session *http.Cookie) replay {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(path string, withCookie bool) *http.Response {
		req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
		if withCookie {
			req.AddCookie(&http.Cookie{Name: session.Name, Value: session.Value})
		} else {
			req.Header.Set("Authorization", "Bearer "+session.Value)
		}
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var got replay
	resp := send("/portal/", true)
	body := (&client{t: t}).read(resp, "GET /portal/", resp.StatusCode)
	got.portal, got.location = resp.StatusCode, resp.Header.Get("Location")
	for _, name := range []string{"Acme Corp", "Globex Inc"} {
		if strings.Contains(body, name+" (") {
			got.tenant = name
		}
	}
	for _, ck := range resp.Cookies() {
		got.cleared = got.cleared || ck.Name == "tenantkit_session" && ck.MaxAge < 0
	}
	for _, r := range []struct {
		status     *int
		withCookie bool
	}{{&got.apiCookie, true}, {&got.bearer, false}} {
		resp := send("/api/auth/me", r.withCookie)
		resp.Body.Close()
		*r.status = resp.StatusCode
	}
	return got
}

// wantLive fails unless the session cookie still signs in, acting for
// tenant.
func wantLive(t *testing.T, e *env, what string, session *http.Cookie, tenant string) {
	t.Helper()
	got := e.replay(t, session)
	if got.portal != http.StatusOK || got.tenant != tenant || got.cleared || got.apiCookie != http.StatusOK || got.bearer != http.StatusOK {
		t.Fatalf("%s: got %+v, want the dashboard of %s and 200 from the API", what, got, tenant)
	}
}

// wantEnded fails unless the session cookie is refused: the portal sends
// the browser to sign in and clears the cookie, the API answers 401.
func wantEnded(t *testing.T, e *env, what string, session *http.Cookie) {
	t.Helper()
	got := e.replay(t, session)
	if got.portal != http.StatusSeeOther || got.location != "/portal/signin" || !got.cleared ||
		got.apiCookie != http.StatusUnauthorized || got.bearer != http.StatusUnauthorized {
		t.Fatalf("%s: got %+v, want a redirect to /portal/signin clearing the cookie and 401 from the API", what, got)
	}
}

// TestSessionsEnd: a session is kept on the server and ends for good — at
// sign-out, when the member is removed from the tenant it acts for, when
// an operator ends the user's sessions — after which a copy of its cookie
// signs nobody in, in the portal or the API. Other sessions go on.
func TestSessionsEnd(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)
		ctx := context.Background()
		for _, m := range []struct {
			email, tenant string
			role          tenancy.Role
		}{{"dave@acme.test", "globex", tenancy.RoleMember}, {"alice@acme.test", "globex", tenancy.RoleMember}} {
			if _, err := app.Tenancy.Members.Add(ctx, m.tenant, m.email, m.role); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := app.Tenancy.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "erin@acme.test", Name: "erin"}); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Tenancy.Members.Add(ctx, "acme", "erin@acme.test", tenancy.RoleMember); err != nil {
			t.Fatal(err)
		}
		_, opKey, err := app.Operators.Create(ctx, operator.CreateInput{Name: "ops", Scopes: operator.Scopes()})
		check(t, err)
		_, readKey, err := app.Operators.Create(ctx, operator.CreateInput{Name: "reader", Scopes: []tenancy.Scope{operator.ScopeRead}})
		check(t, err)
		user := func(email string) tenancy.User {
			u, err := app.Tenancy.Directory.UserByEmail(ctx, email)
			check(t, err)
			return u
		}
		apiDelete := func(t *testing.T, path, key string) int {
			t.Helper()
			req, _ := http.NewRequest("DELETE", e.srv.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			check(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}

		t.Run("SignOut", func(t *testing.T) {
			c, session := e.signInTo(t, "alice@acme.test", "acme")
			_, other := e.signInTo(t, "alice@acme.test", "acme")
			wantLive(t, e, "before sign-out", session, "Acme Corp")
			c.post("/portal/logout", url.Values{"csrf_token": {c.csrf()}}, http.StatusOK)
			wantEnded(t, e, "the signed-out cookie", session)
			wantLive(t, e, "the same user's other session", other, "Acme Corp")
		})

		t.Run("MemberRemoved", func(t *testing.T) {
			_, inAcme := e.signInTo(t, "dave@acme.test", "acme")
			_, inGlobex := e.signInTo(t, "dave@acme.test", "globex")
			_, aliceInAcme := e.signInTo(t, "alice@acme.test", "acme")
			_, erin := e.signInTo(t, "erin@acme.test", "")
			wantLive(t, e, "erin before removal", erin, "Acme Corp")
			for _, email := range []string{"dave@acme.test", "erin@acme.test"} {
				if got := apiDelete(t, "/api/operator/tenants/"+e.acme.ID+"/members/"+user(email).ID, opKey); got != http.StatusNoContent {
					t.Fatalf("remove %s from acme: status %d, want 204", email, got)
				}
			}
			wantEnded(t, e, "dave's session in acme", inAcme)
			wantEnded(t, e, "erin's session (acme was her only tenant)", erin)
			wantLive(t, e, "dave's session in globex", inGlobex, "Globex Inc")
			wantLive(t, e, "alice's session in acme", aliceInAcme, "Acme Corp")
		})

		t.Run("OperatorEndsSessions", func(t *testing.T) {
			_, inAcme := e.signInTo(t, "alice@acme.test", "acme")
			_, inGlobex := e.signInTo(t, "alice@acme.test", "globex")
			_, carol := e.signInTo(t, "carol@globex.test", "")
			path := "/api/operator/users/" + user("alice@acme.test").ID + "/sessions"
			for _, tc := range []struct {
				name, path, key string
				want            int
			}{
				{"ReadScope", path, readKey, http.StatusForbidden},
				{"SessionCookieAsBearer", path, inAcme.Value, http.StatusForbidden},
				{"UnknownUser", "/api/operator/users/usr_01jd3k8v9w2x4y5z6a7b8c9d0e/sessions", opKey, http.StatusNotFound},
				{"MalformedUser", "/api/operator/users/alice/sessions", opKey, http.StatusNotFound},
			} {
				t.Run(tc.name, func(t *testing.T) {
					if got := apiDelete(t, tc.path, tc.key); got != tc.want {
						t.Fatalf("DELETE %s: status %d, want %d", tc.path, got, tc.want)
					}
					wantLive(t, e, "alice's session after a refused request", inAcme, "Acme Corp")
				})
			}
			if got := apiDelete(t, path, opKey); got != http.StatusNoContent {
				t.Fatalf("DELETE %s: status %d, want 204", path, got)
			}
			wantEnded(t, e, "alice's session in acme", inAcme)
			wantEnded(t, e, "alice's session in globex", inGlobex)
			wantLive(t, e, "carol's session", carol, "Globex Inc")
			if got := apiDelete(t, path, opKey); got != http.StatusNoContent {
				t.Fatalf("DELETE %s again: status %d, want 204", path, got)
			}
			_, again := e.signInTo(t, "alice@acme.test", "acme")
			wantLive(t, e, "alice signing in again", again, "Acme Corp")
		})
	})
}

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
