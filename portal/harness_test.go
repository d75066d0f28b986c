package portal_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/portal"
	portalstore "github.com/tenantkit/tenantkit/portal/bunstore"
	"github.com/tenantkit/tenantkit/tenancy"
)

// env is the portal served by an httptest server on a real App, with two
// tenants: acme (alice owner, dave support) and globex (carol owner).
type env struct {
	srv   *httptest.Server
	app   *tenantkit.App
	links *portal.Links
	acme  tenancy.Tenant
	globx tenancy.Tenant
	// metrics is the registry of the API's (and so the portal's)
	// request metrics.
	metrics *prometheus.Registry
}

func newEnv(t *testing.T, db *bun.DB, app *tenantkit.App) *env {
	t.Helper()
	ctx := context.Background()
	dir := app.Tenancy.Directory
	e := &env{app: app}
	var err error
	if e.acme, err = dir.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme Corp", PlanID: catalog.PlanGrowth}); err != nil {
		t.Fatal(err)
	}
	if e.globx, err = dir.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "globex", Name: "Globex Inc", PlanID: catalog.PlanStarter}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct {
		email, tenant string
		role          tenancy.Role
	}{
		{"alice@acme.test", "acme", tenancy.RoleOwner}, {"dave@acme.test", "acme", tenancy.RoleSupport},
		{"carol@globex.test", "globex", tenancy.RoleOwner},
	} {
		if _, err := dir.CreateUser(ctx, tenancy.CreateUserInput{Email: u.email, Name: strings.Split(u.email, "@")[0]}); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Tenancy.Members.Add(ctx, u.tenant, u.email, u.role); err != nil {
			t.Fatal(err)
		}
	}
	secret := []byte(strings.Repeat("s", 32))
	e.srv = httptest.NewUnstartedServer(nil)
	publicURL := "http://" + e.srv.Listener.Addr().String()
	e.metrics = prometheus.NewRegistry()
	apiCfg := app.HTTPConfig()
	apiCfg.JWT = httpapi.JWTConfig{Secret: secret}
	apiCfg.PublicURL, apiCfg.Metrics = publicURL, e.metrics
	api, err := httpapi.New(ctx, apiCfg)
	if err != nil {
		t.Fatal(err)
	}
	e.links = portal.NewLinks(portalstore.New(db), dir)
	pcfg := app.PortalConfig()
	pcfg.Links, pcfg.SessionSecret, pcfg.CSRF = e.links, secret, api.CSRF()
	pcfg.PublicURL, pcfg.Logger = publicURL, zerolog.New(zerolog.NewTestWriter(t))
	h, err := portal.New(ctx, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	// As cmd/server serves it: under the API's outer middleware, which
	// logs and measures every request by its route.
	mux.Handle("/portal/", api.Wrap(h))
	mux.Handle("/", api.Handler())
	e.srv.Config.Handler = mux
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	return e
}

// link issues a sign-in link for email on the test server.
func (e *env) link(t *testing.T, email, tenant string) string {
	t.Helper()
	l, err := e.links.Issue(context.Background(), email, tenant, e.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return l.URL
}

// client is a browser-like HTTP client: a cookie jar, no redirects
// followed automatically unless follow.
type client struct {
	t  *testing.T
	hc *http.Client
	e  *env
}

func (e *env) signIn(t *testing.T, email string) *client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &client{t: t, e: e, hc: &http.Client{Jar: jar}}
	body := c.get(e.link(t, email, ""), http.StatusOK)
	form := url.Values{"token": {field(t, body, "token")}, "csrf_token": {field(t, body, "csrf_token")}}
	c.post("/portal/login", form, http.StatusOK)
	return c
}

var inputRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// field returns the value of the first hidden input called name in body.
func field(t *testing.T, body, name string) string {
	t.Helper()
	for _, m := range inputRE.FindAllStringSubmatch(body, -1) {
		if m[1] == name {
			return m[2]
		}
	}
	t.Fatalf("no hidden input %q in:\n%s", name, body)
	return ""
}

func (c *client) abs(path string) string {
	if strings.HasPrefix(path, "http") {
		return path
	}
	return c.e.srv.URL + path
}

func (c *client) get(path string, want int) string {
	c.t.Helper()
	resp, err := c.hc.Get(c.abs(path))
	if err != nil {
		c.t.Fatal(err)
	}
	return c.read(resp, "GET "+path, want)
}

func (c *client) post(path string, form url.Values, want int) string {
	c.t.Helper()
	resp, err := c.hc.PostForm(c.abs(path), form)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.read(resp, "POST "+path, want)
}

func (c *client) read(resp *http.Response, what string, want int) string {
	c.t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		c.t.Fatalf("%s: status %d, want %d\n%s", what, resp.StatusCode, want, b)
	}
	return string(b)
}

// csrf returns a CSRF token for this client's session, from a page.
func (c *client) csrf() string {
	c.t.Helper()
	return field(c.t, c.get("/portal/tenants", http.StatusOK), "csrf_token")
}

func defaultCatalog() *catalog.Catalog { return catalog.Default() }

// sqliteEnv is the portal on a fresh SQLite App with the default catalog,
// for the browser tests.
func sqliteEnv(t *testing.T) (*env, *tenantkit.App) {
	t.Helper()
	db := dbtest.SQLite(t, tenantkit.Schema()...)
	app, err := tenantkit.New(db, defaultCatalog(), tenantkit.WithSecretKey([]byte(strings.Repeat("k", 32))))
	if err != nil {
		t.Fatal(err)
	}
	return newEnv(t, db, app), app
}
