// Package httpapi is tenantkit's HTTP edge on plain net/http: the
// Authenticator interface and the built-in authenticators, the middleware
// (authentication, CSRF, request id, logging, rate limits, body limits,
// idempotency), RFC 9457 problems mapped from domain errors in one table,
// strict JSON decoding and validation, keyset pagination, and one route
// table from which both the full API and each endpoint group are served.
//
// The endpoints call the services through the small interfaces Config
// declares (Invoices, Tickets, PaymentEvents, IdempotencyStore, …), so this
// package knows no database: tenantkit.New builds the services on one and
// hands them over (App.HTTPConfig). A host app mounts the whole API
// (API.Handler) or one group (API.GroupHandler) under its own router;
// cmd/server composes the same route table on bunrouter.
package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/trace"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/webhook"
)

// Config is everything the API needs. Directory, Entitlements, Modules,
// Notifications and Catalog are required, and Keys unless Authenticator
// replaces the built-in authenticators; the rest has defaults.
type Config struct {
	// Directory finds users and tenants and resolves the tenant a request
	// acts for (a *tenancy.Directory).
	Directory Directory
	// Keys authenticates API keys for the built-in authenticators (a
	// *tenancy.Keys).
	Keys Keys
	// Entitlements checks modules and shows limits and usage (a
	// *tenancy.Entitlements).
	Entitlements Entitlements
	// Modules switches modules at PATCH /api/tenant/entitlements/toggle
	// (a *tenancy.Modules).
	Modules Modules
	// Notifications lists them at GET /api/tenant/notifications and marks
	// them read (a *tenancy.Notifications).
	Notifications Notifications
	// Contracts serves the contract requests and the invoice preview (a
	// *contract.Service); nil leaves them 501.
	Contracts Contracts
	// Catalog is served at GET /api/catalog/public.
	Catalog *catalog.Catalog
	// Billing serves the collections endpoints; nil leaves them 501.
	Billing Invoices
	// Payments serves an invoice's payments (record one, list the
	// ledger); nil leaves them 501.
	Payments InvoicePayments
	// Support serves the tickets endpoints; nil leaves them 501.
	Support Tickets
	// Events serves the audit trail at GET /api/events and, to
	// operators, GET /api/operator/events (an *event.Log); nil leaves
	// them 501.
	Events EventLog
	// Outbound serves the tenants' outbound webhook endpoints at
	// /api/webhook-endpoints (an *outbound.Service); nil leaves them 501.
	Outbound WebhookEndpoints
	// Webhooks records and applies the payment provider's events at
	// POST /api/webhooks/payment-provider; nil leaves it 501.
	Webhooks PaymentEvents
	// WebhookVerifier checks each delivery's signature before its body is
	// read (webhook.NewVerifier builds the built-in ones). Without one the
	// webhook answers 501, whatever Webhooks says.
	WebhookVerifier webhook.Verifier
	// Operator serves the operator API (/api/operator/…), the platform's
	// staff's endpoints; its nil services leave their endpoints 501, and
	// without Operator.Keys no operator key is accepted.
	Operator OperatorConfig
	// Tracer traces requests (OpenTelemetry): a server span each, named
	// by route template, with the tenant, request and credential ids; the
	// access log carries its trace id. nil traces nothing.
	Tracer trace.TracerProvider

	// Authenticator decides who is calling. Nil means the built-in chain:
	// API keys, operator keys (with Operator.Keys), then (when JWT is
	// configured) JWT bearer tokens and the session cookie. A chain of
	// the host's own accepts operator keys only if it includes an
	// OperatorKeyAuthenticator.
	Authenticator Authenticator
	// JWT configures the built-in JWT and session authenticators; zero
	// disables them.
	JWT JWTConfig
	// Sessions checks the sessions tenantkit's portal starts (a
	// *tenancy.Sessions): a JWT, as cookie or bearer token, whose "sid"
	// is a session id of theirs (tenancy.LooksLikeSessionID) is accepted
	// only while that session is live, so that sign-out ends it. Nil
	// checks no session: the token is good until it expires.
	Sessions Sessions
	// CSRFSecret signs CSRF tokens; every replica needs the same one. When
	// empty it is derived from JWT.Secret, else random per process.
	CSRFSecret []byte

	// RateLimiter limits requests per credential (per client IP on public
	// endpoints). Nil means an in-memory limiter at 50 req/s, burst 100.
	RateLimiter RateLimiter
	// MaxBodyBytes bounds request bodies; default 1 MiB.
	MaxBodyBytes int64
	// TrustedProxies are CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []string
	// Idempotency stores Idempotency-Key outcomes; nil disables the header
	// (requests are then processed every time).
	Idempotency IdempotencyStore

	// Ready reports whether the service can take traffic (database
	// reachable, migrations applied); nil means always ready.
	Ready func(ctx context.Context) error
	// Metrics registers the API's Prometheus instruments (requests by route
	// and status, latency, rate-limited requests, webhook events); nil
	// turns metrics off.
	Metrics prometheus.Registerer
	// Logger receives one access log line per request.
	Logger zerolog.Logger
	// Version is reported by GET /api/health.
	Version string
}

// OperatorConfig is what the operator API needs: the services behind its
// endpoints, each the small interface services.go declares.
// App.HTTPConfig fills it; a host may leave any of it nil.
type OperatorConfig struct {
	// Keys authenticates operator keys (an *operator.Keys).
	Keys OperatorKeys
	// Directory creates and finds tenants and users (a
	// *tenancy.Directory).
	Directory OperatorDirectory
	// Index lists tenants, users and API keys (a *tenancy.Index).
	Index Index
	// Members adds, changes and removes members (a *tenancy.Members).
	Members Members
	// APIKeys creates and revokes tenants' API keys (a *tenancy.Keys).
	APIKeys APIKeys
	// Limits sets and clears limit overrides (a *tenancy.Entitlements).
	Limits Limits
	// Terms changes a tenant's plan and seats (a *contract.Service).
	Terms Terms
	// Requests lists and decides contract requests across tenants (a
	// *contract.Service).
	Requests OperatorRequests
	// Tickets lists, answers and changes tickets across tenants (a
	// *support.Desk).
	Tickets OperatorTickets
	// Payments settles unmatched payment events (a *webhook.Settlement).
	Payments OperatorPayments
	// Sessions ends a user's sessions (a *tenancy.Sessions).
	Sessions OperatorSessions
}

// API serves tenantkit's endpoints.
type API struct {
	cfg      Config
	auth     Authenticator
	csrf     *csrfTokens
	limiter  RateLimiter
	clientIP *clientIPResolver
	metrics  *metrics
	routes   []Route
	// fallbacks answers what no route takes (Unmatched).
	fallbacks http.Handler
}

// DefaultMaxBodyBytes is the request body limit when Config leaves it 0.
const DefaultMaxBodyBytes = 1 << 20

// New validates cfg and builds the API.
func New(ctx context.Context, cfg Config) (*API, error) {
	if cfg.Directory == nil || cfg.Entitlements == nil || cfg.Modules == nil || cfg.Notifications == nil || cfg.Catalog == nil {
		return nil, errors.New("httpapi: Config.Directory, Entitlements, Modules, Notifications and Catalog are required")
	}
	if cfg.Authenticator == nil && cfg.Keys == nil {
		return nil, errors.New("httpapi: Config.Keys is required by the built-in authenticators (or set Config.Authenticator)")
	}
	if cfg.WebhookVerifier == nil {
		// Without a way to check signatures the webhook must not run: it
		// answers 501 until the host configures a verifier.
		cfg.Webhooks = nil
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	a := &API{cfg: cfg, auth: cfg.Authenticator, limiter: cfg.RateLimiter}
	if a.auth == nil {
		auths := []Authenticator{APIKeyAuthenticator{Keys: cfg.Keys}}
		if cfg.Operator.Keys != nil {
			auths = append(auths, OperatorKeyAuthenticator{Keys: cfg.Operator.Keys})
		}
		if len(cfg.JWT.Secret) > 0 || cfg.JWT.JWKSURL != "" {
			v, err := NewJWTVerifier(ctx, cfg.JWT)
			if err != nil {
				return nil, err
			}
			auths = append(auths,
				JWTAuthenticator{Verifier: v, Directory: cfg.Directory, Sessions: cfg.Sessions},
				SessionAuthenticator{Verifier: v, Directory: cfg.Directory, Sessions: cfg.Sessions})
		}
		a.auth = Chain(auths...)
	}
	if a.limiter == nil {
		a.limiter = NewMemoryRateLimiter(50, 100)
	}
	var err error
	if a.clientIP, err = newClientIPResolver(cfg.TrustedProxies); err != nil {
		return nil, fmt.Errorf("httpapi: trusted proxies: %w", err)
	}
	if a.metrics, err = newMetrics(cfg.Metrics); err != nil {
		return nil, fmt.Errorf("httpapi: metrics: %w", err)
	}
	a.csrf = newCSRFTokens(csrfKey(cfg), 12*time.Hour)
	a.routes = a.buildRoutes()
	a.fallbacks = a.newFallbacks(a.routes)
	return a, nil
}

// csrfKey picks the CSRF signing key: configured, derived from the JWT
// secret (so replicas sharing it agree), or random for this process.
func csrfKey(cfg Config) []byte {
	switch {
	case len(cfg.CSRFSecret) > 0:
		sum := sha256.Sum256(cfg.CSRFSecret)
		return sum[:]
	case len(cfg.JWT.Secret) > 0:
		m := hmac.New(sha256.New, cfg.JWT.Secret)
		m.Write([]byte("tenantkit csrf key"))
		return m.Sum(nil)
	default:
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		return key
	}
}

// Handler serves every endpoint of the API, with request ids, access logs
// and panic recovery around them.
func (a *API) Handler() http.Handler {
	return a.Wrap(a.mux(a.routes))
}

// GroupHandler serves only the endpoints of one group (e.g. GroupSupport),
// for host apps that mount a part of tenantkit under their own router.
func (a *API) GroupHandler(g Group) http.Handler {
	var rs []Route
	for _, r := range a.routes {
		if r.Group == g {
			rs = append(rs, r)
		}
	}
	return a.Wrap(a.mux(rs))
}

// Routes returns the route table with each route's complete handler
// (authentication, checks and the endpoint itself). Routers other than
// net/http's compose the API from it; wrap the router with Wrap.
func (a *API) Routes() []Route { return a.routes }

// Wrap adds the outer middleware every request needs: request id,
// X-Content-Type-Options: nosniff, access log, panic recovery, and a 404
// for paths no route can have (control characters, invalid UTF-8) before
// the router sees them. Every response that passes through it carries
// nosniff, including the 404 and 405 answers of Unmatched and anything
// else the wrapped router serves (cmd/server's /metrics).
func (a *API) Wrap(h http.Handler) http.Handler {
	return noSniff(traced(a.cfg.Tracer, accessLog(a.cfg.Logger)(a.metrics.instrument(recoverer(routablePath(h))))))
}

// noSniff sets X-Content-Type-Options: nosniff before next runs, so that
// every answer, problems included, tells browsers to trust its
// Content-Type rather than guess one from the body.
func noSniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// NotFound answers a path no route matches with a 404 problem.
func (a *API) NotFound() http.Handler {
	return handlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return NewProblem(http.StatusNotFound, CodeNotFound, "no endpoint at this path")
	})
}

// MethodNotAllowed answers a known path with an unsupported method.
func (a *API) MethodNotAllowed(allowed string) http.Handler {
	return handlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if allowed != "" {
			w.Header().Set("Allow", allowed)
		}
		return NewProblem(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method not allowed on this path")
	})
}

// Unmatched answers a request no route took: 405 with Allow when the path
// is a route's with another method, else 404. Routers composing the API
// from Routes use it for both of their fallbacks.
func (a *API) Unmatched() http.Handler { return a.fallbacks }

// mux puts routes on a net/http ServeMux, answering unmatched paths and
// methods with problems instead of ServeMux's plain text.
func (a *API) mux(routes []Route) http.Handler {
	mux := http.NewServeMux()
	for _, r := range routes {
		mux.Handle(r.Method+" "+r.Pattern, r.Handler)
	}
	mux.Handle("/", a.newFallbacks(routes))
	return mux
}

// newFallbacks answers what routes do not take: every route pattern,
// without a method, answers 405 listing the methods it has; anything else
// is 404.
func (a *API) newFallbacks(routes []Route) http.Handler {
	mux := http.NewServeMux()
	allowed := map[string][]string{}
	for _, r := range routes {
		allowed[r.Pattern] = append(allowed[r.Pattern], r.Method)
	}
	for pattern, methods := range allowed {
		mux.Handle(pattern, a.MethodNotAllowed(strings.Join(methods, ", ")))
	}
	mux.Handle("/", a.NotFound())
	return mux
}
