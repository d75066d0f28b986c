package httpapi

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/tenantkit/tenantkit/tenancy"
)

// Group names a set of endpoints that a host app can mount on its own.
type Group string

// The endpoint groups.
const (
	GroupAuth        Group = "auth"
	GroupCollections Group = "collections"
	GroupTenant      Group = "tenant"
	GroupSupport     Group = "support"
	GroupContracts   Group = "contracts"
	GroupCatalog     Group = "catalog"
	GroupHealth      Group = "health"
	GroupWebhooks    Group = "webhooks"
	// GroupEvents is the audit trail (/api/events).
	GroupEvents Group = "events"
	// GroupWebhookEndpoints is the tenants' outbound webhook endpoints
	// (/api/webhook-endpoints).
	GroupWebhookEndpoints Group = "webhook_endpoints"
	// GroupDocs serves the API's own OpenAPI document.
	GroupDocs Group = "docs"
	// GroupOperator is the operator API (/api/operator/…): the platform's
	// staff, with operator keys, across every tenant. Package
	// httpapi/operatorapi serves it, mounted through Config.Endpoints.
	GroupOperator Group = "operator"
	// GroupHosted is the hosted invoice pages (/pay/{token}): public
	// HTML, for the tenants' customers.
	GroupHosted Group = "hosted"
)

// Route is one endpoint with its complete handler.
type Route struct {
	// Method is the HTTP method, e.g. "GET".
	Method string
	// Pattern is the path in net/http pattern syntax, e.g. "/api/tickets/{id}".
	Pattern string
	// Group is the endpoint group the route belongs to.
	Group Group
	// Handler serves the route, checks included.
	Handler http.Handler
}

// Endpoint is one row of the route table: what an endpoint requires before
// its handler runs. The middleware reads the row, so a requirement is
// declared once and enforced the same way everywhere. Each group of this
// package declares its rows beside its handlers; a group outside it (the
// operator API) hands its rows to Config.Endpoints.
type Endpoint struct {
	// Method is the HTTP method, e.g. "GET".
	Method string
	// Path is the path in net/http pattern syntax, e.g. "/api/tickets/{id}".
	Path string
	// Group is the endpoint group the row belongs to (API.GroupHandler).
	Group Group
	// Public endpoints need no credential; they are rate limited per client IP.
	Public bool
	// OwnRateLimit: a public endpoint that limits itself, with a budget
	// of its own (the hosted invoice page), instead of the API's.
	OwnRateLimit bool
	// Tenant: the endpoint acts on the caller's active tenant.
	Tenant bool
	// Permission the caller's role must hold in that tenant (403
	// forbidden); the scope it needs (Permission.Scope) the credential
	// must carry (403 insufficient_scope).
	Permission tenancy.Permission
	// Module that must be on for the tenant (403 module_disabled).
	Module string
	// Operator: the endpoint is the operator API, for operator keys with
	// this scope (operator.ScopeRead or ScopeWrite) and no other
	// credential (Endpoint.admits).
	Operator tenancy.Scope
	// State: the handler reads the tenant's entitlements, usage or
	// contract. The tenant's entitlement state is then read with the
	// membership, in one round trip, and handed on in the context
	// (tenancy.WithState); endpoints behind a module always get it.
	State bool
	// PastDueOK keeps a write open to a tenant that is past due on a
	// platform invoice (Config.PastDueGrace), which every other write of
	// a tenant answers 402 payment_required: the invoice preview, which
	// stores nothing and shows what it would owe.
	PastDueOK bool
	// Idempotent endpoints honour Idempotency-Key.
	Idempotent bool
	// Query lists the query parameters the endpoint takes; any other is
	// refused with 400, as unknown body fields are (checkQuery).
	Query []string
	// MaxBody overrides the API's body limit.
	MaxBody int64
	// CSRFExempt skips the CSRF check (only the provider-called webhook).
	CSRFExempt bool
	// Handle is the endpoint; nil (its service is not configured) answers
	// 501 not_implemented.
	Handle HandlerFunc
}

// table is the route table: every documented endpoint of this package's
// groups, and the companions tenantkit adds. Config.Endpoints adds the
// groups served from outside it.
func (a *API) table() []Endpoint {
	return slices.Concat(
		a.authEndpoints(),
		a.invoiceEndpoints(),
		a.hostedEndpoints(),
		a.mailEndpoints(),
		a.customerEndpoints(),
		a.tenantEndpoints(),
		a.settingsEndpoints(),
		a.entitlementEndpoints(),
		a.notificationEndpoints(),
		a.ticketEndpoints(),
		a.contractEndpoints(),
		a.eventEndpoints(),
		a.outboundWebhookEndpoints(),
		a.publicEndpoints(),
		a.paymentWebhookEndpoints(),
		docsEndpoints(),
	)
}

// ListQuery is the query of a list endpoint: the pagination parameters
// (ParseListParams) and the endpoint's filters, for Endpoint.Query.
func ListQuery(filters ...string) []string {
	return append([]string{"limit", "cursor"}, filters...)
}

// buildRoutes turns the table, and the rows of Config.Endpoints, into
// routes with their middleware.
func (a *API) buildRoutes() []Route {
	eps := append(a.table(), a.cfg.Endpoints...)
	routes := make([]Route, len(eps))
	for i, ep := range eps {
		routes[i] = Route{Method: ep.Method, Pattern: ep.Path, Group: ep.Group, Handler: a.chain(ep)}
	}
	return routes
}

// checkRoutes refuses a table that serves one method and path twice (a
// row of Config.Endpoints repeating another) or a row without either,
// which net/http's ServeMux would only refuse by panicking once mounted.
func checkRoutes(routes []Route) error {
	seen := make(map[string]bool, len(routes))
	for _, r := range routes {
		name := r.Method + " " + r.Pattern
		switch {
		case r.Method == "" || r.Pattern == "":
			return fmt.Errorf("httpapi: Config.Endpoints: the row %q needs a Method and a Path", name)
		case seen[name]:
			return fmt.Errorf("httpapi: Config.Endpoints: %s is served twice", name)
		}
		seen[name] = true
	}
	return nil
}

// scope is the credential scope the endpoint needs: its operator scope,
// else its permission's.
func (ep Endpoint) scope() tenancy.Scope {
	if ep.Operator != "" {
		return ep.Operator
	}
	return ep.Permission.Scope()
}

// With returns handle when the service it needs (a pointer or an
// interface) is configured, else nil, which the route answers 501
// not_implemented: a host app may serve only some groups. An Endpoint's
// Handle is written With(service, handler).
func With[S comparable](service S, handle HandlerFunc) HandlerFunc {
	var none S
	if service == none {
		return nil
	}
	return handle
}

// notConfigured answers endpoints whose service this server runs without
// (a host app serving only some groups, a webhook without a verifier).
func notConfigured(w http.ResponseWriter, r *http.Request) error {
	return NewProblem(http.StatusNotImplemented, CodeNotImplemented, "this endpoint is not configured on this server")
}
