package httpapi_test

import (
	"context"
	"encoding/json"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rs/zerolog"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// hostedBase is the test API's public URL: hosted_url starts with it,
// and a test requests the path after it (hostedPath).
const hostedBase = "https://billing.test"

// jwtSecret signs the test JWTs (HS256).
var jwtSecret = []byte("test-secret-test-secret-test-secret!")

// env is a running API on a real database with two tenants and users:
// alice owns acme and is a member of globex; bob is billing at acme only.
type env struct {
	t       testing.TB
	db      *bun.DB
	svc     *tenancy.Services
	api     *httpapi.API
	srv     *httptest.Server
	acme    tenancy.Tenant
	globex  tenancy.Tenant
	alice   tenancy.User
	bob     tenancy.User
	keyAll  string // alice, every scope, not pinned
	keyBob  string // bob, collections scopes
	keyNone string // alice, tickets:read only
	mutate  func(*httpapi.Config)
}

// newAPI builds an API over e's database, as one server replica would.
func newAPI(t testing.TB, e *env) *httpapi.API {
	t.Helper()
	app, err := tenantkit.New(e.db, catalog.Default(),
		tenantkit.WithSecretKey([]byte(strings.Repeat("k", 32))), tenantkit.WithWebhookAllow("127.0.0.1"))
	if err != nil {
		t.Fatalf("tenantkit.New: %v", err)
	}
	cfg := app.HTTPConfig()
	cfg.JWT = httpapi.JWTConfig{Secret: jwtSecret, Issuer: "https://idp.test", Audience: "tenantkit"}
	cfg.WebhookVerifier = newWebhookVerifier(t)
	cfg.Logger = zerolog.Nop()
	cfg.RateLimiter = httpapi.NewMemoryRateLimiter(1000, 1000)
	cfg.HostedRateLimiter = httpapi.NewMemoryRateLimiter(1000, 1000)
	cfg.PublicURL = hostedBase
	if e.mutate != nil {
		e.mutate(&cfg)
	}
	api, err := httpapi.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("httpapi.New: %v", err)
	}
	return api
}

func eachEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) { fn(t, newEnv(t, db, nil)) }, migrations()...)
}

func newEnv(t testing.TB, db *bun.DB, mutate func(*httpapi.Config)) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{t: t, db: db, svc: newTenancy(db)}
	var err error
	e.acme, err = e.svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
	check(t, err)
	e.globex, err = e.svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "globex", Name: "Globex", PlanID: catalog.PlanStarter})
	check(t, err)
	e.alice, err = e.svc.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "alice@acme.test", Name: "Alice"})
	check(t, err)
	e.bob, err = e.svc.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "bob@acme.test", Name: "Bob"})
	check(t, err)
	_, err = e.svc.Members.Add(ctx, "acme", "alice@acme.test", tenancy.RoleOwner)
	check(t, err)
	_, err = e.svc.Members.Add(ctx, "globex", "alice@acme.test", tenancy.RoleMember)
	check(t, err)
	_, err = e.svc.Members.Add(ctx, "acme", "bob@acme.test", tenancy.RoleBilling)
	check(t, err)
	e.keyAll = e.newKey("alice@acme.test", "", tenancy.Scopes()...)
	e.keyBob = e.newKey("bob@acme.test", "", tenancy.ScopeCollectionsRead, tenancy.ScopeCollectionsWrite)
	e.keyNone = e.newKey("alice@acme.test", "", tenancy.ScopeTicketsRead)
	e.mutate = mutate
	e.api = newAPI(t, e)
	e.srv = httptest.NewServer(e.api.Handler())
	t.Cleanup(e.srv.Close)
	return e
}

// newTenancy wires tenancy's services on db, as the server does.
func newTenancy(db *bun.DB) *tenancy.Services {
	return tenancy.New(bunstore.New(db).Stores(), database.NewTransactor(db), catalog.Default())
}

// migrations are every schema the API's tests need.
func migrations() []database.Source { return tenantkit.Schema() }

func (e *env) newKey(email, tenant string, scopes ...tenancy.Scope) string {
	e.t.Helper()
	_, secret, err := e.svc.Keys.Create(context.Background(), tenancy.CreateAPIKeyInput{UserEmail: email, Scopes: scopes, Tenant: tenant})
	if err != nil {
		e.t.Fatalf("create key: %v", err)
	}
	return secret
}

// jwtFor signs a token for email with the given claims applied on top of
// valid defaults.
func jwtFor(t *testing.T, email string, edit func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	claims := jwt.MapClaims{
		"sub": "idp|" + email, "email": email, "iss": "https://idp.test", "aud": "tenantkit",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"scope": "collections:read collections:write tickets:read tickets:write",
	}
	if edit != nil {
		edit(claims)
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(jwtSecret)
	if err != nil {
		t.Fatalf("sign jwt: %v", err)
	}
	return s
}

// request is one HTTP call in a test.
type request struct {
	method, path, body string
	bearer             string
	header             map[string]string
	cookies            []*http.Cookie
	// chunked sends body without a Content-Length.
	chunked bool
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

// do sends req to e's server and returns the answer. Every request and
// response is checked against the OpenAPI document (checkOpenAPI).
func (e *env) do(t testing.TB, req request) response {
	t.Helper()
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	if req.chunked {
		body = io.MultiReader(body) // hides the length from http.NewRequest
	}
	r, err := http.NewRequest(req.method, e.srv.URL+req.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if req.bearer != "" {
		r.Header.Set("Authorization", "Bearer "+req.bearer)
	}
	for k, v := range req.header {
		r.Header.Set(k, v)
	}
	for _, c := range req.cookies {
		r.AddCookie(c)
	}
	resp, err := e.srv.Client().Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", req.method, req.path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	checkOpenAPI(t, r, []byte(req.body), resp, b)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// wantProblem checks a problem+json answer's status and code.
func wantProblem(t *testing.T, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("Content-Type = %q, want application/problem+json", ct)
	}
	if got := r.json(t)["code"]; got != code {
		t.Fatalf("code = %v, want %q; body %s", got, code, r.body)
	}
}

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// syncWriter serialises writes from concurrent requests to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
