package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPortalSignIn: a link from `login-link --json` signs in on the real
// server once; the session cookie then also authenticates the API; and
// --portal=false leaves /portal/ unserved.
func TestPortalSignIn(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "portal.db")
	s := mustServe(t, url)
	mustCLIJSON(t, url, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "growth")
	mustCLIJSON(t, url, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
	mustCLIJSON(t, url, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
	out := mustCLIJSON(t, url, "login-link", "--email", "ann@acme.test", "--tenant", "acme", "--base-url", s.URL())
	link, _ := out["url"].(string)
	if !strings.HasPrefix(link, s.URL()+"/portal/login?token=") || out["expires_at"] == nil {
		t.Fatalf("login-link --json: %v", out)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	signIn := func(wantStatus int) string {
		t.Helper()
		status, body := signInWith(t, c, s.URL(), link)
		if status != wantStatus {
			t.Fatalf("sign in: status %d, want %d\n%s", status, wantStatus, body)
		}
		return body
	}
	if body := signIn(http.StatusOK); !strings.Contains(body, "<h1>Dashboard</h1>") {
		t.Fatalf("after sign-in:\n%s", body)
	}
	resp, err := c.Get(s.URL() + "/api/auth/me")
	if err != nil {
		t.Fatal(err)
	}
	me, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(me), `"auth_method":"session"`) {
		t.Fatalf("API with the portal's cookie: %d %s", resp.StatusCode, me)
	}
	signIn(http.StatusUnauthorized) // the link works once

	off := mustServe(t, url, "--portal=false")
	resp, err = http.Get(off.URL() + "/portal/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("--portal=false: /portal/ answered %d", resp.StatusCode)
	}
}

// signInWith follows a one-time sign-in link on the server at base as a
// browser without JavaScript does (the link's page, then its form posted
// with its hidden fields), and returns the answer's status and page.
func signInWith(t *testing.T, c *http.Client, base, link string) (int, string) {
	t.Helper()
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	hidden := regexp.MustCompile(`name="(token|csrf_token)" value="([^"]*)"`).FindAllStringSubmatch(string(page), -1)
	form := map[string][]string{}
	for _, m := range hidden {
		form[m[1]] = []string{m[2]}
	}
	resp, err = c.PostForm(base+"/portal/login", form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(body)
}
