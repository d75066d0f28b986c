package httpapi

import (
	"net/http"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/operator"
	"github.com/tenantkit/tenantkit/webhook"
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
	// staff, with operator keys, across every tenant.
	GroupOperator Group = "operator"
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

// endpoint is one row of the route table: what an endpoint requires before
// its handler runs. The middleware reads the row, so a requirement is
// declared once and enforced the same way everywhere.
type endpoint struct {
	method, path string
	group        Group
	// public endpoints need no credential; they are rate limited per client IP.
	public bool
	// tenant: the endpoint acts on the caller's active tenant.
	tenant bool
	// permission the caller's role must hold in that tenant (403
	// forbidden); the scope it needs (Permission.Scope) the credential
	// must carry (403 insufficient_scope).
	permission tenancy.Permission
	// module that must be on for the tenant (403 module_disabled).
	module string
	// operator: the endpoint is the operator API, for operator keys with
	// this scope (operator.ScopeRead or ScopeWrite) and no other
	// credential (endpoint.admits).
	operator tenancy.Scope
	// state: the handler reads the tenant's entitlements, usage or
	// contract. The tenant's entitlement state is then read with the
	// membership, in one round trip, and handed on in the context
	// (tenancy.WithState); endpoints behind a module always get it.
	state bool
	// idempotent endpoints honour Idempotency-Key.
	idempotent bool
	// query lists the query parameters the endpoint takes; any other is
	// refused with 400, as unknown body fields are (checkQuery).
	query []string
	// maxBody overrides the API's body limit.
	maxBody int64
	// csrfExempt skips the CSRF check (only the provider-called webhook).
	csrfExempt bool
	// handle is the endpoint; nil (its service is not configured) answers
	// 501 not_implemented.
	handle handlerFunc
}

// table is the route table: every documented endpoint, and
// the companions tenantkit adds.
func (a *API) table() []endpoint {
	return []endpoint{
		// Authentication
		{method: "GET", path: "/api/auth/me", group: GroupAuth, handle: a.me},
		{method: "GET", path: "/api/csrf", group: GroupAuth, public: true, handle: a.csrfToken},

		// Collections
		{method: "GET", path: "/api/v1/collections/invoices", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesRead, query: listQuery("status", "customer_email"), handle: with(a.cfg.Billing, a.listInvoices)},
		{method: "POST", path: "/api/v1/collections/invoices", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesWrite, module: catalog.ModuleInvoices, idempotent: true,
			handle: with(a.cfg.Billing, a.createInvoice)},
		{method: "GET", path: "/api/v1/collections/invoices/{id}", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesRead, handle: with(a.cfg.Billing, a.getInvoice)},
		{method: "PATCH", path: "/api/v1/collections/invoices/{id}", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesWrite, module: catalog.ModuleInvoices, handle: with(a.cfg.Billing, a.updateInvoice)},
		{method: "DELETE", path: "/api/v1/collections/invoices/{id}", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesWrite, module: catalog.ModuleInvoices, handle: with(a.cfg.Billing, a.deleteInvoice)},
		{method: "POST", path: "/api/v1/collections/invoices/{id}/finalize", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesWrite, module: catalog.ModuleInvoices, handle: with(a.cfg.Billing, a.finalizeInvoice)},
		{method: "POST", path: "/api/v1/collections/invoices/{id}/void", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesWrite, module: catalog.ModuleInvoices, handle: with(a.cfg.Billing, a.voidInvoice)},
		{method: "POST", path: "/api/v1/collections/invoices/{id}/mark-uncollectible", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesWrite, module: catalog.ModuleInvoices, handle: with(a.cfg.Billing, a.markInvoiceUncollectible)},
		{method: "GET", path: "/api/v1/collections/invoices/{id}/payments", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesRead, query: listQuery(), handle: with(a.cfg.Payments, a.listInvoicePayments)},
		{method: "POST", path: "/api/v1/collections/invoices/{id}/payments", group: GroupCollections,
			tenant: true, permission: tenancy.PermInvoicesWrite, module: catalog.ModuleInvoices, idempotent: true,
			handle: with(a.cfg.Payments, a.recordInvoicePayment)},

		// Tenant management
		{method: "POST", path: "/api/tenant/select", group: GroupTenant, handle: a.selectTenant},
		{method: "GET", path: "/api/tenant/access-matrix", group: GroupTenant, tenant: true, handle: a.accessMatrix},
		{method: "GET", path: "/api/tenant/entitlements/limit", group: GroupTenant, tenant: true,
			permission: tenancy.PermEntitlementsRead, state: true, query: []string{"feature"}, handle: a.entitlementLimits},
		{method: "PATCH", path: "/api/tenant/entitlements/toggle", group: GroupTenant, tenant: true,
			permission: tenancy.PermEntitlementsManage, handle: a.toggleModule},
		{method: "GET", path: "/api/tenant/notifications", group: GroupTenant, tenant: true,
			permission: tenancy.PermNotificationsRead, query: listQuery("unread"), handle: a.listNotifications},
		{method: "POST", path: "/api/tenant/notifications/{id}/read", group: GroupTenant, tenant: true,
			permission: tenancy.PermNotificationsRead, handle: a.markNotificationRead},
		{method: "POST", path: "/api/tenant/notifications/read-all", group: GroupTenant, tenant: true,
			permission: tenancy.PermNotificationsRead, handle: a.markAllNotificationsRead},

		// Support
		{method: "GET", path: "/api/tickets", group: GroupSupport, tenant: true,
			permission: tenancy.PermTicketsRead, module: catalog.ModuleTickets, query: listQuery("status", "priority", "requester"), handle: with(a.cfg.Support, a.listTickets)},
		{method: "POST", path: "/api/tickets", group: GroupSupport, tenant: true,
			permission: tenancy.PermTicketsWrite, module: catalog.ModuleTickets, idempotent: true, handle: with(a.cfg.Support, a.createTicket)},
		{method: "GET", path: "/api/tickets/{id}", group: GroupSupport, tenant: true,
			permission: tenancy.PermTicketsRead, module: catalog.ModuleTickets, handle: with(a.cfg.Support, a.getTicket)},
		{method: "PATCH", path: "/api/tickets/{id}", group: GroupSupport, tenant: true,
			permission: tenancy.PermTicketsWrite, module: catalog.ModuleTickets, handle: with(a.cfg.Support, a.updateTicket)},
		{method: "GET", path: "/api/tickets/{id}/comments", group: GroupSupport, tenant: true,
			permission: tenancy.PermTicketsRead, module: catalog.ModuleTickets, query: listQuery(), handle: with(a.cfg.Support, a.listComments)},
		{method: "POST", path: "/api/tickets/{id}/comments", group: GroupSupport, tenant: true,
			permission: tenancy.PermTicketsWrite, module: catalog.ModuleTickets, idempotent: true, handle: with(a.cfg.Support, a.createComment)},
		// The rating needs support.tickets too; the service checks it.
		{method: "POST", path: "/api/tickets/{id}/satisfaction", group: GroupSupport, tenant: true,
			permission: tenancy.PermTicketsWrite, module: catalog.ModuleCSAT, idempotent: true, handle: with(a.cfg.Support, a.rateTicket)},

		// Contracts & Billing
		{method: "GET", path: "/api/contract-requests", group: GroupContracts, tenant: true,
			permission: tenancy.PermContractsRead, query: listQuery("status"), handle: with(a.cfg.Contracts, a.listContractRequests)},
		{method: "POST", path: "/api/contract-requests", group: GroupContracts, tenant: true,
			permission: tenancy.PermContractsSubmit, state: true, idempotent: true, handle: with(a.cfg.Contracts, a.submitContractRequest)},
		{method: "GET", path: "/api/contract-requests/{id}", group: GroupContracts, tenant: true,
			permission: tenancy.PermContractsRead, handle: with(a.cfg.Contracts, a.getContractRequest)},
		{method: "POST", path: "/api/contract-requests/{id}/cancel", group: GroupContracts, tenant: true,
			permission: tenancy.PermContractsSubmit, handle: with(a.cfg.Contracts, a.cancelContractRequest)},
		{method: "POST", path: "/api/invoices/preview", group: GroupContracts, tenant: true,
			permission: tenancy.PermBillingPreview, state: true, handle: with(a.cfg.Contracts, a.previewInvoice)},

		// Events (the audit trail)
		{method: "GET", path: "/api/events", group: GroupEvents, tenant: true, permission: tenancy.PermEventsRead,
			query: listQuery(eventFilters...), handle: with(a.cfg.Events, a.listEvents)},
		{method: "GET", path: "/api/events/{id}", group: GroupEvents, tenant: true, permission: tenancy.PermEventsRead,
			handle: with(a.cfg.Events, a.getEvent)},

		// Webhook endpoints (outbound). Creating one and rotating its secret
		// are not idempotent: a replay would have to keep the secret.
		{method: "GET", path: "/api/webhook-endpoints", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, query: listQuery(), handle: with(a.cfg.Outbound, a.listWebhookEndpoints)},
		{method: "POST", path: "/api/webhook-endpoints", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, handle: with(a.cfg.Outbound, a.createWebhookEndpoint)},
		{method: "GET", path: "/api/webhook-endpoints/{id}", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, handle: with(a.cfg.Outbound, a.getWebhookEndpoint)},
		{method: "PATCH", path: "/api/webhook-endpoints/{id}", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, handle: with(a.cfg.Outbound, a.updateWebhookEndpoint)},
		{method: "DELETE", path: "/api/webhook-endpoints/{id}", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, handle: with(a.cfg.Outbound, a.deleteWebhookEndpoint)},
		{method: "POST", path: "/api/webhook-endpoints/{id}/rotate-secret", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, handle: with(a.cfg.Outbound, a.rotateWebhookSecret)},
		{method: "POST", path: "/api/webhook-endpoints/{id}/test", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, idempotent: true, handle: with(a.cfg.Outbound, a.testWebhookEndpoint)},
		{method: "GET", path: "/api/webhook-endpoints/{id}/deliveries", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, query: listQuery(), handle: with(a.cfg.Outbound, a.listWebhookDeliveries)},
		{method: "POST", path: "/api/webhook-endpoints/{id}/deliveries/{delivery_id}/retry", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, idempotent: true, handle: with(a.cfg.Outbound, a.retryWebhookDelivery)},
		{method: "POST", path: "/api/webhook-endpoints/deliveries/{delivery_id}/retry", group: GroupWebhookEndpoints, tenant: true,
			permission: tenancy.PermWebhooksManage, idempotent: true, handle: with(a.cfg.Outbound, a.retryWebhookDelivery)},

		// Catalog
		{method: "GET", path: "/api/catalog/public", group: GroupCatalog, public: true, handle: a.publicCatalog},

		// Health
		{method: "GET", path: "/api/health", group: GroupHealth, public: true, handle: a.health},
		{method: "GET", path: "/api/health/ready", group: GroupHealth, public: true, handle: a.ready},
		{method: "GET", path: "/api/health/live", group: GroupHealth, public: true, handle: a.live},

		// Webhooks (incoming)
		{method: "POST", path: "/api/webhooks/payment-provider", group: GroupWebhooks, public: true,
			csrfExempt: true, maxBody: webhook.MaxPayloadBytes, handle: with(a.cfg.Webhooks, a.paymentWebhook)},

		// Operator API
		{method: "GET", path: "/api/operator/tenants", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery("q"), handle: with(a.cfg.Operator.Index, a.opListTenants)},
		{method: "POST", path: "/api/operator/tenants", group: GroupOperator, operator: operator.ScopeWrite,
			idempotent: true, handle: with(a.cfg.Operator.Directory, a.opCreateTenant)},
		{method: "GET", path: "/api/operator/tenants/{id}", group: GroupOperator, operator: operator.ScopeRead,
			handle: with(a.cfg.Operator.Directory, a.opGetTenant)},
		{method: "PATCH", path: "/api/operator/tenants/{id}", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Terms, with(a.cfg.Operator.Directory, a.opChangeTenant))},
		{method: "PUT", path: "/api/operator/tenants/{id}/limits/{feature}", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Limits, a.opSetLimit)},
		{method: "GET", path: "/api/operator/users", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery("q"), handle: with(a.cfg.Operator.Index, a.opListUsers)},
		{method: "POST", path: "/api/operator/users", group: GroupOperator, operator: operator.ScopeWrite,
			idempotent: true, handle: with(a.cfg.Operator.Directory, a.opCreateUser)},
		{method: "DELETE", path: "/api/operator/users/{id}/sessions", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Sessions, a.opEndUserSessions)},
		{method: "GET", path: "/api/operator/tenants/{id}/members", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery(), handle: with(a.cfg.Operator.Members, a.opListMembers)},
		{method: "POST", path: "/api/operator/tenants/{id}/members", group: GroupOperator, operator: operator.ScopeWrite,
			idempotent: true, handle: with(a.cfg.Operator.Members, a.opAddMember)},
		{method: "PATCH", path: "/api/operator/tenants/{id}/members/{user_id}", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Members, a.opSetMemberRole)},
		{method: "DELETE", path: "/api/operator/tenants/{id}/members/{user_id}", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Members, a.opRemoveMember)},
		{method: "GET", path: "/api/operator/tenants/{id}/api-keys", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery(), handle: with(a.cfg.Operator.Index, a.opListAPIKeys)},
		// Not idempotent: a replay would have to keep the key's secret.
		{method: "POST", path: "/api/operator/tenants/{id}/api-keys", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.APIKeys, a.opCreateAPIKey)},
		{method: "DELETE", path: "/api/operator/api-keys/{id}", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.APIKeys, a.opRevokeAPIKey)},
		{method: "GET", path: "/api/operator/contract-requests", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery("status", "tenant_id"), handle: with(a.cfg.Operator.Requests, a.opListContractRequests)},
		{method: "POST", path: "/api/operator/contract-requests/{id}/approve", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Requests, a.opApproveContractRequest)},
		{method: "POST", path: "/api/operator/contract-requests/{id}/reject", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Requests, a.opRejectContractRequest)},
		{method: "GET", path: "/api/operator/tickets", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery("status", "priority", "tenant_id", "assignee"), handle: with(a.cfg.Operator.Tickets, a.opListTickets)},
		{method: "GET", path: "/api/operator/tickets/{id}", group: GroupOperator, operator: operator.ScopeRead,
			handle: with(a.cfg.Operator.Tickets, a.opGetTicket)},
		{method: "PATCH", path: "/api/operator/tickets/{id}", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Tickets, a.opChangeTicket)},
		{method: "POST", path: "/api/operator/tickets/{id}/replies", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Tickets, a.opReplyTicket)},
		{method: "GET", path: "/api/operator/payment-events", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery("outcome"), handle: with(a.cfg.Operator.Payments, a.opListPaymentEvents)},
		{method: "POST", path: "/api/operator/payment-events/{id}/apply", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Payments, a.opApplyPaymentEvent)},
		{method: "POST", path: "/api/operator/payment-events/{id}/dismiss", group: GroupOperator, operator: operator.ScopeWrite,
			handle: with(a.cfg.Operator.Payments, a.opDismissPaymentEvent)},
		{method: "GET", path: "/api/operator/events", group: GroupOperator, operator: operator.ScopeRead,
			query: listQuery(append([]string{"tenant_id"}, eventFilters...)...), handle: with(a.cfg.Events, a.opListEvents)},
		{method: "GET", path: "/api/operator/events/{id}", group: GroupOperator, operator: operator.ScopeRead,
			handle: with(a.cfg.Events, a.opGetEvent)},

		// The API's description (openapi.json)
		{method: "GET", path: "/api/openapi.json", group: GroupDocs, public: true, handle: openAPIHandler()},
	}
}

// listQuery is the query of a list endpoint: the pagination parameters
// (parseListParams) and the endpoint's filters.
func listQuery(filters ...string) []string {
	return append([]string{"limit", "cursor"}, filters...)
}

// buildRoutes turns the table into routes with their middleware.
func (a *API) buildRoutes() []Route {
	eps := a.table()
	routes := make([]Route, len(eps))
	for i, ep := range eps {
		routes[i] = Route{Method: ep.method, Pattern: ep.path, Group: ep.group, Handler: a.chain(ep)}
	}
	return routes
}

// scope is the credential scope the endpoint needs: its operator scope,
// else its permission's.
func (ep endpoint) scope() tenancy.Scope {
	if ep.operator != "" {
		return ep.operator
	}
	return ep.permission.Scope()
}

// with returns handle when the service it needs (a pointer or an
// interface) is configured, else nil (501 not configured): a host app may
// serve only some groups.
func with[S comparable](service S, handle handlerFunc) handlerFunc {
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
