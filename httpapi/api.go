// Package httpapi is tenantkit's HTTP edge on plain net/http: the
// Authenticator interface and the built-in authenticators, the middleware
// (authentication, CSRF, request id, logging, rate limits, body limits,
// idempotency), RFC 9457 problems mapped from domain errors in one table,
// strict JSON decoding and validation, keyset pagination, and one route
// table from which both the full API and each endpoint group are served.
//
// Each endpoint group is one file (invoices.go, tickets.go, …) holding its
// rows of the route table, its handlers and the small interfaces of the
// services it calls (Invoices, Tickets, …), gathered in Config.Services;
// so this package knows no database: tenantkit.New builds the services on
// one and hands them over (App.HTTPConfig). Groups outside the package
// are served through the same checks from Config.Endpoints; the operator
// API (package httpapi/operatorapi) is one. A host app mounts the whole
// API (API.Handler) or one group (API.GroupHandler) under its own router;
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

// Config is what a host sets to serve the API: the services behind the
// endpoints (Services, which App.HTTPConfig fills), further endpoint
// groups, and the edge's own knobs. Services.Directory, Entitlements,
// Modules, Notifications and Catalog are required, and Services.Keys
// unless Authenticator replaces the built-in authenticators; the rest has
// defaults.
type Config struct {
	// Services are the services the endpoints call; a nil one leaves its
	// endpoints 501.
	Services Services
	// Endpoints are further endpoint groups served through the same
	// checks, e.g. operatorapi.Endpoints(…): each row is authenticated,
	// limited and checked as the API's own.
	Endpoints []Endpoint

	// InvoicePDF draws the invoices served as PDF documents at GET
	// /api/v1/collections/invoices/{id}/pdf and GET /api/invoices/{id}/pdf
	// (an *invoicepdf.Renderer, which App.HTTPConfig sets); a host may
	// pass its own, for its letterhead or fonts. Nil leaves both 501.
	InvoicePDF InvoicePDF

	// Authenticator decides who is calling. Nil means the built-in chain:
	// API keys, operator keys (with Services.OperatorKeys), then (when JWT
	// is configured) JWT bearer tokens and the session cookie. A chain of
	// the host's own accepts operator keys only if it includes an
	// OperatorKeyAuthenticator.
	Authenticator Authenticator
	// JWT configures the built-in JWT and session authenticators; zero
	// disables them.
	JWT JWTConfig
	// CSRFSecret signs CSRF tokens; every replica needs the same one. When
	// empty it is derived from JWT.Secret, else random per process.
	CSRFSecret []byte

	// RateLimiter limits requests per credential (per client IP on public
	// endpoints). Nil means an in-memory limiter at 50 req/s, burst 100.
	RateLimiter RateLimiter
	// HostedRateLimiter limits the hosted invoice pages (GET /pay/{token})
	// per client IP, a budget apart from RateLimiter's: a page is for
	// people, and guessing tokens must stay slow. Nil means an in-memory
	// limiter at 1 req/s, burst 20; beyond it the page answers 429.
	HostedRateLimiter RateLimiter
	// PublicURL is the server's public base URL ("https://billing.example.com"),
	// where the hosted invoice pages are: an invoice's hosted_url is
	// PublicURL + "/pay/" + its token. Empty leaves hosted_url out.
	PublicURL string
	// PastDueGrace turns on past-due enforcement: a tenant with a
	// platform invoice still open this long after its due date
	// (Contracts.PastDue) gets 402 payment_required on every write
	// (POST, PUT, PATCH, DELETE) except the invoice preview, until the
	// invoice is paid or voided; its reads keep working. It is checked on
	// every write, uncached, so that a payment lifts it at once. nil, the
	// default, leaves it off; 0 enforces from the due date itself. It
	// needs Services.Contracts.
	PastDueGrace *time.Duration
	// MaxBodyBytes bounds request bodies; default 1 MiB.
	MaxBodyBytes int64
	// TrustedProxies are CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []string
	// WebhookVerifier checks each delivery's signature before its body is
	// read (webhook.NewVerifier builds the built-in ones). Without one the
	// webhook answers 501, whatever Services.Webhooks says.
	WebhookVerifier webhook.Verifier

	// Metrics registers the API's Prometheus instruments (requests by route
	// and status, latency, rate-limited requests, webhook events); nil
	// turns metrics off.
	Metrics prometheus.Registerer
	// Logger receives one access log line per request.
	Logger zerolog.Logger
	// Version is reported by GET /api/health.
	Version string
	// Tracer traces requests (OpenTelemetry): a server span each, named
	// by route template, with the tenant, request and credential ids; the
	// access log carries its trace id. nil traces nothing.
	Tracer trace.TracerProvider
}

// Services are the services the API's endpoints call, each the small
// interface declared beside the endpoints that use it (Invoices in
// invoices.go, Tickets in tickets.go, …), so that this package knows no
// database. tenantkit's App.HTTPConfig fills them with the domain
// services; a host may pass its own, for instance to wrap one with its
// audit log. A nil service leaves its endpoints answering 501
// not_implemented.
type Services struct {
	// Directory finds users and tenants and resolves the tenant a request
	// acts for (a *tenancy.Directory). Required.
	Directory Directory
	// Keys authenticates API keys for the built-in authenticators (a
	// *tenancy.Keys); required unless Config.Authenticator is set.
	Keys Keys
	// OperatorKeys authenticates operator keys for the built-in
	// authenticators (an *operator.Keys); without it no operator key is
	// accepted.
	OperatorKeys OperatorKeys
	// Sessions checks the sessions tenantkit's portal starts (a
	// *tenancy.Sessions): a JWT, as cookie or bearer token, whose "sid"
	// is a session id of theirs (tenancy.LooksLikeSessionID) is accepted
	// only while that session is live, so that sign-out ends it. Nil
	// checks no session: the token is good until it expires.
	Sessions Sessions
	// Entitlements checks modules and shows limits and usage (a
	// *tenancy.Entitlements). Required.
	Entitlements Entitlements
	// Modules switches modules at PATCH /api/tenant/entitlements/toggle
	// (a *tenancy.Modules). Required.
	Modules Modules
	// Notifications lists them at GET /api/tenant/notifications and marks
	// them read (a *tenancy.Notifications). Required.
	Notifications Notifications
	// Catalog is served at GET /api/catalog/public. Required.
	Catalog *catalog.Catalog
	// Contracts serves the contract requests and the invoice preview (a
	// *contract.Service).
	Contracts Contracts
	// Billing serves the collections endpoints (a *billing.Service).
	Billing Invoices
	// Customers serves the tenants' customers on record at
	// /api/v1/collections/customers (a *billing.Service).
	Customers Customers
	// Payments serves an invoice's payments: record one, list the ledger
	// (a *billing.Ledger).
	Payments InvoicePayments
	// Support serves the tickets endpoints (a *support.Service).
	Support Tickets
	// Events serves the audit trail at GET /api/events (an *event.Log).
	Events EventLog
	// Outbound serves the tenants' outbound webhook endpoints at
	// /api/webhook-endpoints (an *outbound.Service).
	Outbound WebhookEndpoints
	// Webhooks records and applies the payment provider's events at
	// POST /api/webhooks/payment-provider (a *webhook.Service); it runs
	// only with Config.WebhookVerifier.
	Webhooks PaymentEvents
	// Idempotency stores Idempotency-Key outcomes; nil disables the header
	// (requests are then processed every time).
	Idempotency IdempotencyStore
	// Settings serves the tenant's settings at /api/tenant/settings (a
	// *tenancy.TenantSettings); the hosted page reads its payment link
	// and footer.
	Settings TenantSettings
	// Hosted serves the hosted invoice pages and their URLs (a
	// *billing.Hosted).
	Hosted HostedInvoices
	// Mail emails invoices to the customers (a *mail.Service); nil
	// answers sending with 409 mail_not_configured.
	Mail InvoiceMail
	// Ready reports whether the service can take traffic (database
	// reachable, migrations applied); nil means always ready.
	Ready func(ctx context.Context) error
}

// API serves tenantkit's endpoints.
type API struct {
	cfg     Config
	auth    Authenticator
	csrf    *csrfTokens
	limiter RateLimiter
	// hostedLimiter is the hosted pages' own budget.
	hostedLimiter RateLimiter
	clientIP      *clientIPResolver
	metrics       *metrics
	routes        []Route
	// fallbacks answers what no route takes (Unmatched).
	fallbacks http.Handler
}

// DefaultMaxBodyBytes is the request body limit when Config leaves it 0.
const DefaultMaxBodyBytes = 1 << 20

// New validates cfg and builds the API.
func New(ctx context.Context, cfg Config) (*API, error) {
	svc := cfg.Services
	if svc.Directory == nil || svc.Entitlements == nil || svc.Modules == nil || svc.Notifications == nil || svc.Catalog == nil {
		return nil, errors.New("httpapi: Config.Services.Directory, Entitlements, Modules, Notifications and Catalog are required")
	}
	if cfg.Authenticator == nil && svc.Keys == nil {
		return nil, errors.New("httpapi: Config.Services.Keys is required by the built-in authenticators (or set Config.Authenticator)")
	}
	if g := cfg.PastDueGrace; g != nil && (*g < 0 || svc.Contracts == nil) {
		return nil, errors.New("httpapi: Config.PastDueGrace must not be negative, and needs Config.Services.Contracts")
	}
	if cfg.WebhookVerifier == nil {
		// Without a way to check signatures the webhook must not run: it
		// answers 501 until the host configures a verifier.
		cfg.Services.Webhooks = nil
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	a := &API{cfg: cfg, auth: cfg.Authenticator, limiter: cfg.RateLimiter}
	if a.auth == nil {
		auths := []Authenticator{APIKeyAuthenticator{Keys: svc.Keys}}
		if svc.OperatorKeys != nil {
			auths = append(auths, OperatorKeyAuthenticator{Keys: svc.OperatorKeys})
		}
		if len(cfg.JWT.Secret) > 0 || cfg.JWT.JWKSURL != "" {
			v, err := NewJWTVerifier(ctx, cfg.JWT)
			if err != nil {
				return nil, err
			}
			auths = append(auths,
				JWTAuthenticator{Verifier: v, Directory: svc.Directory, Sessions: svc.Sessions},
				SessionAuthenticator{Verifier: v, Directory: svc.Directory, Sessions: svc.Sessions})
		}
		a.auth = Chain(auths...)
	}
	if a.limiter == nil {
		a.limiter = NewMemoryRateLimiter(50, 100)
	}
	if a.hostedLimiter = cfg.HostedRateLimiter; a.hostedLimiter == nil {
		a.hostedLimiter = NewMemoryRateLimiter(1, 20)
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
	if err = checkRoutes(a.routes); err != nil {
		return nil, err
	}
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
	return HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return NewProblem(http.StatusNotFound, CodeNotFound, "no endpoint at this path")
	})
}

// MethodNotAllowed answers a known path with an unsupported method.
func (a *API) MethodNotAllowed(allowed string) http.Handler {
	return HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
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
