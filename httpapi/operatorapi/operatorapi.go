// Package operatorapi is the operator API (/api/operator/…): the
// platform's staff, with operator keys, managing tenants, users, members
// and tenants' API keys, and working the queues of work across tenants:
// contract requests to decide, the platform's invoices to settle, tickets
// to answer, payment events to settle, the audit trail to read; and
// moving test tenants' clocks.
//
// It is an endpoint group served by package httpapi from outside its
// request core. Endpoints returns the group's rows of the route table,
// which a host hands to httpapi.Config.Endpoints; tenantkit's
// App.HTTPConfig does:
//
//	cfg := app.HTTPConfig() // cfg.Endpoints holds operatorapi.Endpoints(…)
//	api, err := httpapi.New(ctx, cfg)
//
// httpapi authenticates operator keys (httpapi.Services.OperatorKeys) and
// runs its checks before every handler here: each row admits operator keys
// with its scope and no other credential, and the rate limits, query, body
// and Idempotency-Key rules are the API's. The services check the input.
package operatorapi

import (
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// Services are the services the operator API calls. They act across
// tenants; only operator keys reach them. tenantkit's App.HTTPConfig fills
// them; a host may leave any of them nil, which leaves its endpoints
// answering 501 not_implemented.
type Services struct {
	// Directory creates and finds tenants and users (a
	// *tenancy.Directory).
	Directory Directory
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
	Requests Requests
	// Billing lists, voids and marks paid the platform's invoices to
	// its tenants and moves test tenants' clocks (a *contract.Service).
	Billing PlatformBilling
	// Tickets lists, answers and changes tickets across tenants (a
	// *support.Desk).
	Tickets Tickets
	// Payments settles unmatched payment events (a *webhook.Settlement).
	Payments Payments
	// Sessions ends a user's sessions (a *tenancy.Sessions).
	Sessions Sessions
	// Events reads every tenant's audit trail (an *event.Log).
	Events Events
}

// Endpoints returns the operator API's rows of the route table, served on
// s, for httpapi.Config.Endpoints. Every row is in group
// httpapi.GroupOperator and needs an operator key with the scope it names
// (operator.ScopeRead or ScopeWrite).
func Endpoints(s Services) []httpapi.Endpoint {
	h := &handlers{Services: s}
	return []httpapi.Endpoint{
		{Method: "GET", Path: "/api/operator/tenants", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery("q"), Handle: httpapi.With(s.Index, h.listTenants)},
		{Method: "POST", Path: "/api/operator/tenants", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Idempotent: true, Handle: httpapi.With(s.Directory, h.createTenant)},
		{Method: "GET", Path: "/api/operator/tenants/{id}", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Handle: httpapi.With(s.Directory, h.getTenant)},
		{Method: "PATCH", Path: "/api/operator/tenants/{id}", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Terms, httpapi.With(s.Directory, h.changeTenant))},
		{Method: "PUT", Path: "/api/operator/tenants/{id}/limits/{feature}", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Limits, h.setLimit)},
		{Method: "GET", Path: "/api/operator/users", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery("q"), Handle: httpapi.With(s.Index, h.listUsers)},
		{Method: "POST", Path: "/api/operator/users", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Idempotent: true, Handle: httpapi.With(s.Directory, h.createUser)},
		{Method: "DELETE", Path: "/api/operator/users/{id}/sessions", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Sessions, h.endUserSessions)},
		{Method: "GET", Path: "/api/operator/tenants/{id}/members", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery(), Handle: httpapi.With(s.Members, h.listMembers)},
		{Method: "POST", Path: "/api/operator/tenants/{id}/members", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Idempotent: true, Handle: httpapi.With(s.Members, h.addMember)},
		{Method: "PATCH", Path: "/api/operator/tenants/{id}/members/{user_id}", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Members, h.setMemberRole)},
		{Method: "DELETE", Path: "/api/operator/tenants/{id}/members/{user_id}", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Members, h.removeMember)},
		{Method: "GET", Path: "/api/operator/tenants/{id}/api-keys", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery(), Handle: httpapi.With(s.Index, h.listAPIKeys)},
		// Not idempotent: a replay would have to keep the key's secret.
		{Method: "POST", Path: "/api/operator/tenants/{id}/api-keys", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.APIKeys, h.createAPIKey)},
		{Method: "DELETE", Path: "/api/operator/api-keys/{id}", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.APIKeys, h.revokeAPIKey)},
		{Method: "GET", Path: "/api/operator/contract-requests", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery("status", "tenant_id"), Handle: httpapi.With(s.Requests, h.listContractRequests)},
		{Method: "POST", Path: "/api/operator/contract-requests/{id}/approve", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Requests, h.approveContractRequest)},
		{Method: "POST", Path: "/api/operator/contract-requests/{id}/reject", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Requests, h.rejectContractRequest)},
		{Method: "GET", Path: "/api/operator/invoices", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery("tenant_id", "status", "period"), Handle: httpapi.With(s.Billing, h.listPlatformInvoices)},
		{Method: "POST", Path: "/api/operator/invoices/{id}/void", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Billing, h.voidPlatformInvoice)},
		{Method: "POST", Path: "/api/operator/invoices/{id}/mark-paid", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Billing, h.markPlatformInvoicePaid)},
		{Method: "POST", Path: "/api/operator/tenants/{id}/clock", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Billing, httpapi.With(s.Directory, h.advanceTenantClock))},
		{Method: "GET", Path: "/api/operator/tickets", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery("status", "priority", "tenant_id", "assignee"), Handle: httpapi.With(s.Tickets, h.listTickets)},
		{Method: "GET", Path: "/api/operator/tickets/{id}", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Handle: httpapi.With(s.Tickets, h.getTicket)},
		{Method: "PATCH", Path: "/api/operator/tickets/{id}", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Tickets, h.changeTicket)},
		{Method: "POST", Path: "/api/operator/tickets/{id}/replies", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Tickets, h.replyTicket)},
		{Method: "GET", Path: "/api/operator/payment-events", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.ListQuery("outcome"), Handle: httpapi.With(s.Payments, h.listPaymentEvents)},
		{Method: "POST", Path: "/api/operator/payment-events/{id}/apply", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Payments, h.applyPaymentEvent)},
		{Method: "POST", Path: "/api/operator/payment-events/{id}/dismiss", Group: httpapi.GroupOperator, Operator: operator.ScopeWrite,
			Handle: httpapi.With(s.Payments, h.dismissPaymentEvent)},
		{Method: "GET", Path: "/api/operator/events", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Query: httpapi.EventListQuery("tenant_id"), Handle: httpapi.With(s.Events, h.listEvents)},
		{Method: "GET", Path: "/api/operator/events/{id}", Group: httpapi.GroupOperator, Operator: operator.ScopeRead,
			Handle: httpapi.With(s.Events, h.getEvent)},
	}
}

// handlers are the operator API's endpoints, on the services they call.
// Who acts is the actor httpapi puts in the request's context (the
// operator key; tenancy.ActorFrom), which every service call receives.
type handlers struct{ Services }
