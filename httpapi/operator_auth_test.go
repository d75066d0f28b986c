package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/httpapi/operatorapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
	opkey "github.com/tenantkit/tenantkit/tenancy/operator"
)

// newOperatorKey creates an operator key on e's database and returns it
// with its secret.
func newOperatorKey(tb testing.TB, e *env, scopes ...tenancy.Scope) (opkey.Key, string) {
	tb.Helper()
	k, secret, err := opkey.NewKeys(bunstore.New(e.db)).Create(context.Background(), opkey.CreateInput{Name: "ops", Scopes: scopes})
	if err != nil {
		tb.Fatalf("create operator key: %v", err)
	}
	return k, secret
}

// routePath fills a route pattern's wildcards with well-formed ids of
// nothing, so that a request reaches the route's checks.
func routePath(pattern string) string {
	return strings.NewReplacer(
		"/api/operator/api-keys/{id}", "/api/operator/api-keys/"+id.New(id.APIKey),
		"/api/operator/users/{id}", "/api/operator/users/"+id.New(id.User),
		"/api/operator/tenants/{id}", "/api/operator/tenants/"+id.New(id.Tenant),
		"/api/operator/contract-requests/{id}", "/api/operator/contract-requests/"+id.New(id.Contract),
		"/api/operator/tickets/{id}", "/api/operator/tickets/"+id.New(id.Ticket),
		"/api/operator/payment-events/{id}", "/api/operator/payment-events/evt_nothing",
		"/api/v1/collections/invoices/{id}", "/api/v1/collections/invoices/"+id.New(id.Invoice),
		"/api/v1/collections/customers/{id}", "/api/v1/collections/customers/"+id.New(id.Customer),
		"/api/tickets/{id}", "/api/tickets/"+id.New(id.Ticket),
		"/api/contract-requests/{id}", "/api/contract-requests/"+id.New(id.Contract),
		"/api/operator/invoices/{id}", "/api/operator/invoices/"+id.New(id.PlatformInvoice),
		"/api/invoices/{id}", "/api/invoices/"+id.New(id.PlatformInvoice),
		"/api/tenant/notifications/{id}", "/api/tenant/notifications/"+id.New(id.Notification),
		"/api/operator/events/{id}", "/api/operator/events/"+id.New(id.Event),
		"/api/events/{id}", "/api/events/"+id.New(id.Event),
		"/api/webhook-endpoints/{id}", "/api/webhook-endpoints/"+id.New(id.WebhookEndpoint),
		"{delivery_id}", id.New(id.WebhookDelivery),
		"{user_id}", id.New(id.User),
		"{feature}", "seats",
		"/pay/{token}", "/pay/unknown",
	).Replace(pattern)
}

// TestOperatorCredentialsEveryRoute walks the whole route table: every
// operator endpoint refuses each kind of tenant credential (API key, JWT,
// session cookie) with 403 insufficient_scope and takes an operator key;
// every other authenticated endpoint refuses an operator key with 401.
func TestOperatorCredentialsEveryRoute(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		_, opKey := newOperatorKey(t, e, opkey.ScopeRead, opkey.ScopeWrite)
		token := jwtFor(t, "alice@acme.test", nil)
		tenantCreds := []struct {
			name string
			req  request
		}{
			{"APIKey", request{bearer: e.keyAll}},
			{"JWT", request{bearer: token}},
			{"Session", request{cookies: []*http.Cookie{{Name: httpapi.SessionCookie, Value: token}}}},
		}
		var operatorRoutes, tenantRoutes int
		for _, rt := range e.api.Routes() {
			name := rt.Method + " " + rt.Pattern
			path := routePath(rt.Pattern)
			if strings.Contains(path, "{") {
				t.Fatalf("%s: routePath left a wildcard in %s", name, path)
			}
			body := ""
			if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
				body = "{}"
			}
			switch isOperator := strings.HasPrefix(rt.Pattern, "/api/operator/"); {
			case isOperator != (rt.Group == httpapi.GroupOperator):
				t.Errorf("%s: in group %s; the operator API is /api/operator/ and group operator, both or neither", name, rt.Group)
			case isOperator:
				operatorRoutes++
				for _, cred := range tenantCreds {
					t.Run(name+"/"+cred.name, func(t *testing.T) {
						req := cred.req
						req.method, req.path, req.body = rt.Method, path, body
						wantProblem(t, e.do(t, req), http.StatusForbidden, "insufficient_scope")
					})
				}
				t.Run(name+"/OperatorKey", func(t *testing.T) {
					r := e.do(t, request{method: rt.Method, path: path, body: body, bearer: opKey})
					if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden {
						t.Fatalf("operator key refused: %d %s", r.status, r.body)
					}
				})
			default:
				r := e.do(t, request{method: rt.Method, path: path})
				if r.status != http.StatusUnauthorized {
					continue // public: takes no credential at all
				}
				tenantRoutes++
				t.Run(name+"/OperatorKey", func(t *testing.T) {
					r := e.do(t, request{method: rt.Method, path: path, body: body, bearer: opKey})
					wantProblem(t, r, http.StatusUnauthorized, "unauthenticated")
					if r.header.Get("WWW-Authenticate") == "" {
						t.Error("401 without WWW-Authenticate")
					}
				})
			}
		}
		if operatorRoutes < 14 || tenantRoutes < 15 {
			t.Fatalf("walked %d operator and %d tenant routes; the table has more", operatorRoutes, tenantRoutes)
		}
	})
}

// TestOperatorScopes: each operator endpoint needs its own scope,
// operator:read for GETs and operator:write for the rest.
func TestOperatorScopes(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		_, reader := newOperatorKey(t, e, opkey.ScopeRead)
		_, writer := newOperatorKey(t, e, opkey.ScopeWrite)
		for _, rt := range e.api.Routes() {
			if rt.Group != httpapi.GroupOperator {
				continue
			}
			lacking, want := writer, "operator:read"
			body := ""
			if rt.Method != http.MethodGet {
				lacking, want, body = reader, "operator:write", "{}"
			}
			t.Run(rt.Method+" "+rt.Pattern, func(t *testing.T) {
				r := e.do(t, request{method: rt.Method, path: routePath(rt.Pattern), body: body, bearer: lacking})
				wantProblem(t, r, http.StatusForbidden, "insufficient_scope")
				if !strings.Contains(r.json(t)["detail"].(string), want) {
					t.Fatalf("detail %q does not name %s", r.json(t)["detail"], want)
				}
			})
		}
	})
}

// TestOperatorKeyRevoked: a revoked operator key is refused like any bad
// credential.
func TestOperatorKeyRevoked(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		k, secret := newOperatorKey(t, e, opkey.ScopeRead)
		list := request{method: "GET", path: "/api/operator/tenants", bearer: secret}
		if r := e.do(t, list); r.status != http.StatusOK {
			t.Fatalf("before revoking: %d %s", r.status, r.body)
		}
		if _, err := opkey.NewKeys(bunstore.New(e.db)).Revoke(t.Context(), k.ID); err != nil {
			t.Fatal(err)
		}
		wantProblem(t, e.do(t, list), http.StatusUnauthorized, "unauthenticated")
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/operator/tenants", bearer: "tko_" + strings.Repeat("x", 43)}),
			http.StatusUnauthorized, "unauthenticated")
	})
}

// TestOperatorRateLimit: operator requests are rate limited per operator
// key.
func TestOperatorRateLimit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, func(cfg *httpapi.Config) { cfg.RateLimiter = httpapi.NewMemoryRateLimiter(0.001, 2) })
		_, first := newOperatorKey(t, e, opkey.ScopeRead)
		_, second := newOperatorKey(t, e, opkey.ScopeRead)
		list := func(key string) response {
			return e.do(t, request{method: "GET", path: "/api/operator/tenants", bearer: key})
		}
		for i := range 2 {
			if r := list(first); r.status != http.StatusOK || r.header.Get("RateLimit") == "" {
				t.Fatalf("request %d: %d, RateLimit %q", i, r.status, r.header.Get("RateLimit"))
			}
		}
		r := list(first)
		wantProblem(t, r, http.StatusTooManyRequests, "rate_limited")
		if r := list(second); r.status != http.StatusOK {
			t.Fatalf("another operator key: %d, want its own bucket", r.status)
		}
	}, migrations()...)
}

// actorRecorder records the actor in the context of the calls it passes
// on.
type actorRecorder struct {
	operatorapi.Directory
	got chan tenancy.Actor
}

func (a actorRecorder) CreateTenant(ctx context.Context, in tenancy.CreateTenantInput) (tenancy.Tenant, error) {
	act, _ := tenancy.ActorFrom(ctx)
	a.got <- act
	return a.Directory.CreateTenant(ctx, in)
}

// tenantActorRecorder does the same for the tenant API's directory.
type tenantActorRecorder struct {
	httpapi.Directory
	got chan tenancy.Actor
}

func (a tenantActorRecorder) Memberships(ctx context.Context, userID string) ([]tenancy.TenantMembership, error) {
	act, _ := tenancy.ActorFrom(ctx)
	a.got <- act
	return a.Directory.Memberships(ctx, userID)
}

// TestActorInContext: the services see who calls, through the context:
// the operator key, or the tenant's user, with the credential, the way it
// was presented and the request id.
func TestActorInContext(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		got := make(chan tenancy.Actor, 1)
		e := newEnv(t, db, func(cfg *httpapi.Config) {
			dir := cfg.Services.Directory.(*tenancy.Directory)
			cfg.Endpoints = operatorapi.Endpoints(operatorapi.Services{Directory: actorRecorder{Directory: dir, got: got}})
			cfg.Services.Directory = tenantActorRecorder{Directory: dir, got: got}
		})
		k, secret := newOperatorKey(t, e, opkey.ScopeWrite)
		r := e.do(t, request{method: "POST", path: "/api/operator/tenants", bearer: secret,
			body: `{"slug":"initech","name":"Initech","plan_id":"starter"}`, header: map[string]string{"X-Request-ID": "req-op-1"}})
		if r.status != http.StatusCreated {
			t.Fatalf("create tenant: %d %s", r.status, r.body)
		}
		want := tenancy.Actor{Kind: tenancy.ActorOperator, ID: k.ID, Credential: "operator:" + k.ID, Method: "operator_key", RequestID: "req-op-1",
			ClientIP: "127.0.0.1"}
		if act := <-got; act != want {
			t.Fatalf("operator actor: got %+v, want %+v", act, want)
		}

		r = e.do(t, request{method: "GET", path: "/api/auth/me", bearer: e.keyBob, header: map[string]string{"X-Request-ID": "req-me-1"}})
		if r.status != http.StatusOK {
			t.Fatalf("me: %d %s", r.status, r.body)
		}
		act := <-got
		if act.Kind != tenancy.ActorUser || act.ID != e.bob.ID || act.Method != "api_key" ||
			!strings.HasPrefix(act.Credential, "key:key_") || act.RequestID != "req-me-1" {
			t.Fatalf("tenant actor: got %+v, want bob's API key in request req-me-1", act)
		}
	}, migrations()...)
}

// TestOperatorAPIRefusesUsersWhateverTheirScopes: a host's own
// Authenticator that hands a user the operator scopes still does not open
// the operator API to them: it takes operator keys only.
func TestOperatorAPIRefusesUsersWhateverTheirScopes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		var user tenancy.User
		e := newEnv(t, db, func(cfg *httpapi.Config) {
			cfg.Authenticator = httpapi.AuthenticatorFunc(func(r *http.Request) (*httpapi.Principal, error) {
				return &httpapi.Principal{User: user, Method: "host_session",
					Scopes:     []tenancy.Scope{opkey.ScopeRead, opkey.ScopeWrite},
					Credential: tenancy.Credential{Key: "host:" + user.ID, UserID: user.ID}}, nil
			})
		})
		user = e.alice
		for _, rt := range e.api.Routes() {
			if rt.Group != httpapi.GroupOperator {
				continue
			}
			t.Run(rt.Method+" "+rt.Pattern, func(t *testing.T) {
				body := ""
				if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
					body = "{}"
				}
				wantProblem(t, e.do(t, request{method: rt.Method, path: routePath(rt.Pattern), body: body}), http.StatusForbidden, "insufficient_scope")
			})
		}
	}, migrations()...)
}
