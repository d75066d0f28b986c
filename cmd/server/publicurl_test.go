package main

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// TestLoginLinkURL: login-link points where the server listens by
// default — the address of --addr, or TENANTKIT_ADDR, with an unspecified
// host as 127.0.0.1, so http://127.0.0.1:8080 with neither, where the demo
// listens — unless --base-url or TENANTKIT_PUBLIC_URL names the public
// URL; a URL a link cannot point at is a usage error.
func TestLoginLinkURL(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		mustCLIJSON(t, dbURL, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
		tests := []struct {
			name      string
			args      []string
			addr, pub string // TENANTKIT_ADDR, TENANTKIT_PUBLIC_URL
			want      string // the link's base URL; "" for a usage error
		}{
			{"Default", nil, "", "", "http://127.0.0.1:8080"},
			{"DefaultIsTheDemos", nil, "", "", "http://" + demoAddr},
			{"Addr", []string{"--addr", "127.0.0.1:9000"}, "", "", "http://127.0.0.1:9000"},
			{"AddrAnyHost", []string{"--addr", ":9001"}, "", "", "http://127.0.0.1:9001"},
			{"AddrUnspecified", []string{"--addr", "0.0.0.0:9002"}, "", "", "http://127.0.0.1:9002"},
			{"AddrEnv", nil, "127.0.0.1:9003", "", "http://127.0.0.1:9003"},
			{"BaseURL", []string{"--base-url", "https://tk.example.test/"}, "127.0.0.1:9003", "", "https://tk.example.test"},
			{"PublicURLEnv", []string{"--addr", ":9004"}, "", "https://portal.example.test", "https://portal.example.test"},
			{"BadBaseURL", []string{"--base-url", "tk.example.test"}, "", "", ""},
			{"BadAddr", []string{"--addr", "nowhere"}, "", "", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Setenv("TENANTKIT_ADDR", tt.addr)
				t.Setenv("TENANTKIT_PUBLIC_URL", tt.pub)
				if tt.addr == "" {
					unsetenv(t, "TENANTKIT_ADDR")
				}
				args := append([]string{"login-link", "--email", "ann@acme.test", "--json", "--log-level", "warn", "--database-url", dbURL}, tt.args...)
				code, stdout, stderr := cliRun(t, args...)
				if tt.want == "" {
					if code != 2 || !strings.Contains(stderr, `"code":"usage"`) {
						t.Fatalf("server %s: exit %d, %s; want exit 2, a usage error", strings.Join(args, " "), code, stderr)
					}
					return
				}
				if code != 0 || !strings.HasPrefix(stdout, `{`) || !strings.Contains(stdout, `"url": "`+tt.want+`/portal/login?token=`) {
					t.Fatalf("server %s: exit %d, stdout %s stderr %s; want a link at %s", strings.Join(args, " "), code, stdout, stderr, tt.want)
				}
			})
		}
	})
}

// unsetenv removes name from the environment for the rest of the test
// (t.Setenv first, so that it is restored).
func unsetenv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

// TestDemoSignInHost: the links the demo prints and the link login-link
// prints for the same --addr point at the one host the demo reports
// (TK_URL), so that the session cookie a link sets is sent to the URLs
// the demo shows; with the address written in any of its forms.
func TestDemoSignInHost(t *testing.T) {
	stores := map[string]func(testing.TB) string{"sqlite": dbtest.SQLiteURL, "postgres": dbtest.PostgresURL}
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Run("PublicURL", func(t *testing.T) {
				d := mustRunDemo(t, "--addr", "127.0.0.1:0", "--public-url", "https://tk.example.test",
					"--database-url", stores[store](t), "--demo-env", filepath.Join(t.TempDir(), "demo.env"))
				if !regexp.MustCompile(`alice@acme\.test\s+https://tk\.example\.test/portal/login\?token=`).MatchString(d.stdout.String()) {
					t.Fatalf("--public-url https://tk.example.test: the demo printed\n%s", d.stdout.String())
				}
			})
			for _, host := range []string{"127.0.0.1", "", "localhost"} {
				t.Run("host="+host, func(t *testing.T) {
					dbURL := stores[store](t)
					_, port, _ := net.SplitHostPort(freeAddr(t))
					addr := net.JoinHostPort(host, port)
					want := "http://127.0.0.1:" + port
					t.Setenv("TENANTKIT_PUBLIC_URL", "")
					d := mustRunDemo(t, "--addr", addr, "--database-url", dbURL, "--demo-env", filepath.Join(t.TempDir(), "demo.env"))
					if d.url != want {
						t.Fatalf("demo ready at %s, want %s", d.url, want)
					}
					printed := regexp.MustCompile(`alice@acme\.test\s+(\S+)`).FindStringSubmatch(d.stdout.String())
					if printed == nil || !strings.HasPrefix(printed[1], want+"/portal/login?token=") {
						t.Fatalf("demo's sign-in link for alice: %v, want one at %s\n%s", printed, want, d.stdout.String())
					}
					out := mustCLIJSON(t, dbURL, "login-link", "--email", "alice@acme.test", "--addr", addr)
					link, _ := out["url"].(string)
					if !strings.HasPrefix(link, want+"/portal/login?token=") {
						t.Fatalf("login-link --addr %s: %v, want a link at %s", addr, out, want)
					}
					for name, l := range map[string]string{"demo's": printed[1], "login-link's": link} {
						jar, _ := cookiejar.New(nil)
						c := &http.Client{Jar: jar}
						u, _ := url.Parse(l)
						if status, page := signInWith(t, c, u.Scheme+"://"+u.Host, l); status != http.StatusOK {
							t.Fatalf("%s link: sign in answered %d\n%s", name, status, page)
						}
						resp, err := c.Get(d.url + "/portal/")
						if err != nil {
							t.Fatal(err)
						}
						page, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Choose a tenant") {
							t.Fatalf("%s link, then %s/portal/: %d, want the signed-in tenant switcher\n%s", name, d.url, resp.StatusCode, page)
						}
					}
				})
			}
		})
	}
}
