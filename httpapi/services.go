package httpapi

import (
	"context"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/tenancy/operator"
	"github.com/tenantkit/tenantkit/webhook"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// The services the endpoints call, each declared as the methods its
// endpoints use and nothing more. The domain services implement them
// (tenantkit.New wires them on a database); a host may pass its own, for
// instance to wrap one with its audit log. A nil service leaves its
// endpoints answering 501 not_implemented.
var (
	_ Invoices      = (*billing.Service)(nil)
	_ Tickets       = (*support.Service)(nil)
	_ PaymentEvents = (*webhook.Service)(nil)
	_ Contracts     = (*contract.Service)(nil)

	_ OperatorKeys      = (*operator.Keys)(nil)
	_ OperatorDirectory = (*tenancy.Directory)(nil)
	_ OperatorRequests  = (*contract.Service)(nil)
	_ OperatorTickets   = (*support.Desk)(nil)
	_ OperatorPayments  = (*webhook.Settlement)(nil)
	_ Index             = (*tenancy.Index)(nil)
	_ Members           = (*tenancy.Members)(nil)
	_ APIKeys           = (*tenancy.Keys)(nil)
	_ Limits            = (*tenancy.Entitlements)(nil)
	_ Terms             = (*contract.Service)(nil)
)

// Invoices serves the collections endpoints; *billing.Service implements
// it. Every method acts for the tenant it is given and never sees another
// tenant's invoices.
type Invoices interface {
	// List returns a page of the tenant's invoices, newest first, and
	// whether more follow. *billing.InvalidError for a bad filter.
	List(ctx context.Context, tenantID string, f billing.ListFilter) ([]billing.Invoice, bool, error)
	// Create validates in and stores the invoice with the tenant's next
	// number. *billing.InvalidError; errors wrapping
	// tenancy.ErrModuleDisabled or tenancy.ErrLimitExceeded.
	Create(ctx context.Context, tenantID string, in billing.CreateInvoiceInput) (billing.Invoice, error)
	// Get returns the tenant's invoice; billing.ErrNotFound when the
	// tenant has none with that id.
	Get(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	// Update changes the tenant's draft. *billing.InvalidError;
	// *billing.TransitionError unless it is a draft; billing.ErrNotFound.
	Update(ctx context.Context, tenantID, invoiceID string, in billing.UpdateInvoiceInput) (billing.Invoice, error)
	// Delete removes the tenant's draft; errors as Update, and
	// billing.ErrConflict for a numbered draft.
	Delete(ctx context.Context, tenantID, invoiceID string) error
	// Finalize opens the tenant's draft and numbers it;
	// *billing.TransitionError unless it is a draft; billing.ErrNotFound.
	Finalize(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	// Void cancels the tenant's open invoice; *billing.TransitionError
	// unless it is open; billing.ErrNotFound.
	Void(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	// MarkUncollectible writes the tenant's open invoice off; errors as
	// Void.
	MarkUncollectible(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
}

var _ InvoicePayments = (*billing.Ledger)(nil)

// InvoicePayments serves an invoice's payments; *billing.Ledger
// implements it. Every method acts for the tenant it is given and never
// sees another tenant's invoices.
type InvoicePayments interface {
	// Record books a payment received out of band on the tenant's open
	// invoice. *billing.InvalidError; *billing.TransitionError unless
	// the invoice is open; billing.ErrNotFound.
	Record(ctx context.Context, tenantID, invoiceID string, in billing.RecordPaymentInput) (billing.Payment, billing.Invoice, error)
	// Payments returns a page of the invoice's ledger, newest first, and
	// whether more follow; billing.ErrNotFound.
	Payments(ctx context.Context, tenantID, invoiceID string, f billing.PaymentFilter) ([]billing.Payment, bool, error)
}

// Tickets serves the tickets endpoints; *support.Service implements it.
// Every method acts for the tenant it is given and never sees another
// tenant's tickets.
type Tickets interface {
	// List returns a page of the tenant's tickets, newest first, and
	// whether more follow. *support.InvalidError for a bad filter.
	List(ctx context.Context, tenantID string, f support.ListFilter) ([]support.Ticket, bool, error)
	// Create opens a ticket requested by requester. *support.InvalidError;
	// errors wrapping tenancy.ErrModuleDisabled or
	// tenancy.ErrLimitExceeded.
	Create(ctx context.Context, tenantID string, requester support.Requester, in support.CreateTicketInput) (support.Ticket, error)
	// Get returns the tenant's ticket; support.ErrNotFound when the tenant
	// has none with that id.
	Get(ctx context.Context, tenantID, ticketID string) (support.Ticket, error)
	// Update changes the ticket's status (along the transition table),
	// priority or tags, all or nothing. *support.InvalidError;
	// support.ErrConflict for a forbidden move or a closed ticket;
	// support.ErrNotFound.
	Update(ctx context.Context, tenantID, ticketID string, in support.UpdateTicketInput) (support.Ticket, error)
	// Comments returns a page of the ticket's thread, oldest first, and
	// whether more follow. support.ErrNotFound; *support.InvalidError for
	// a bad cursor.
	Comments(ctx context.Context, tenantID, ticketID string, f support.CommentFilter) ([]support.Comment, bool, error)
	// AddComment adds the caller's comment to the ticket's thread.
	// *support.InvalidError; support.ErrConflict for a closed ticket;
	// support.ErrNotFound.
	AddComment(ctx context.Context, tenantID, ticketID string, by support.Requester, in support.CommentInput) (support.Comment, error)
	// Rate records the one satisfaction rating of a solved ticket.
	// *support.InvalidError; support.ErrForbidden; support.ErrConflict;
	// support.ErrNotFound; errors wrapping tenancy.ErrModuleDisabled.
	Rate(ctx context.Context, tenantID, ticketID string, by support.Rater, in support.RatingInput) (support.Satisfaction, error)
}

// PaymentEvents records and applies the payment provider's events, each
// exactly once; *webhook.Service implements it.
type PaymentEvents interface {
	// Handle records and applies one delivery whose signature has been
	// verified. An error wrapping webhook.ErrMalformed when body is no
	// event; any other error is a fault after which nothing of the
	// delivery remains.
	Handle(ctx context.Context, body []byte) (webhook.Result, error)
}

// The tenancy and contract services the handlers call, each declared here
// with just the methods the edge uses, so that httpapi depends on
// behaviour rather than on the services' types (and tests or hosts may
// stand in their own).

// Directory finds users and tenants, lists a user's memberships, and
// decides which tenant a request acts for. *tenancy.Directory implements
// it.
type Directory interface {
	User(ctx context.Context, userID string) (tenancy.User, error)
	UserByEmail(ctx context.Context, email string) (tenancy.User, error)
	Tenant(ctx context.Context, tenantID string) (tenancy.Tenant, error)
	Memberships(ctx context.Context, userID string) ([]tenancy.TenantMembership, error)
	SelectTenant(ctx context.Context, cred tenancy.Credential, tenantID string) (tenancy.Membership, error)
	ResolveTenant(ctx context.Context, cred tenancy.Credential, requested string) (tenancy.Membership, error)
}

// Sessions checks that a session is live. *tenancy.Sessions implements
// it.
type Sessions interface {
	// Check returns nil when the session is live and the user's; an
	// error matching tenancy.ErrUnauthenticated when it ended, expired or
	// is another's.
	Check(ctx context.Context, sessionID, userID string) error
}

// Keys authenticates API keys. *tenancy.Keys implements it.
type Keys interface {
	Authenticate(ctx context.Context, secret string) (tenancy.APIKey, tenancy.User, error)
}

// Entitlements resolves a request's tenant together with its entitlement
// state, checks modules, and shows limits and usage.
// *tenancy.Entitlements implements it.
type Entitlements interface {
	ResolveTenantState(ctx context.Context, cred tenancy.Credential, requested string, usage bool) (tenancy.Membership, tenancy.EntitlementState, error)
	RequireModule(ctx context.Context, tenantID, module string) error
	Get(ctx context.Context, tenantID, feature string) (tenancy.Entitlement, error)
	ListWithModules(ctx context.Context, tenantID string) ([]tenancy.Entitlement, []tenancy.ModuleState, error)
}

// Modules switches a tenant's modules. *tenancy.Modules implements it.
type Modules interface {
	Toggle(ctx context.Context, tenantID string, role tenancy.Role, module string, enabled bool) (tenancy.ModuleState, bool, error)
}

// Notifications lists a tenant's notifications and marks them read.
// *tenancy.Notifications implements it.
type Notifications interface {
	List(ctx context.Context, tenantID string, f tenancy.NotificationFilter) ([]tenancy.Notification, bool, error)
	UnreadCount(ctx context.Context, tenantID string) (int64, error)
	MarkRead(ctx context.Context, tenantID, notificationID string) (tenancy.Notification, error)
	MarkAllRead(ctx context.Context, tenantID, upTo string) (int64, error)
}

// Contracts takes and withdraws a tenant's contract change requests and
// previews the platform's next invoice to it. *contract.Service implements it.
type Contracts interface {
	Submit(ctx context.Context, tenantID, userID string, in contract.SubmitInput) (contract.Request, error)
	Request(ctx context.Context, tenantID, requestID string) (contract.Request, error)
	Requests(ctx context.Context, tenantID string, f contract.Filter) ([]contract.Request, bool, error)
	Preview(ctx context.Context, tenantID string, in contract.PreviewInput) (contract.Preview, error)
	Cancel(ctx context.Context, by tenancy.Membership, requestID string) (contract.Request, error)
}

// The services of the operator API (OperatorConfig). They act across
// tenants; only operator keys reach them.

// OperatorKeys authenticates operator keys. *operator.Keys implements it.
type OperatorKeys interface {
	// Authenticate returns the key behind a secret; an error wrapping
	// tenancy.ErrUnauthenticated for an unknown or revoked one.
	Authenticate(ctx context.Context, secret string) (operator.Key, error)
}

// OperatorDirectory creates and finds tenants and users.
// *tenancy.Directory implements it.
type OperatorDirectory interface {
	// CreateTenant: *tenancy.InvalidError (fields "slug", "name",
	// "plan"); tenancy.ErrConflict for a taken slug.
	CreateTenant(ctx context.Context, in tenancy.CreateTenantInput) (tenancy.Tenant, error)
	// Tenant: tenancy.ErrNotFound when absent.
	Tenant(ctx context.Context, tenantID string) (tenancy.Tenant, error)
	// CreateUser: *tenancy.InvalidError (fields "email", "name");
	// tenancy.ErrConflict for a taken email.
	CreateUser(ctx context.Context, in tenancy.CreateUserInput) (tenancy.User, error)
}

// OperatorSessions ends a user's sessions. *tenancy.Sessions implements
// it.
type OperatorSessions interface {
	// EndAll ends every session of the user (id or email) and returns how
	// many were live: tenancy.ErrNotFound for an unknown user.
	EndAll(ctx context.Context, userRef string) (int64, error)
}

// Index lists tenants, users and API keys across tenants.
// *tenancy.Index implements it.
type Index interface {
	// Tenants and Users return a page, newest first, and whether more
	// follow: *tenancy.InvalidError (fields "q", "cursor").
	Tenants(ctx context.Context, f tenancy.SearchFilter) ([]tenancy.Tenant, bool, error)
	Users(ctx context.Context, f tenancy.SearchFilter) ([]tenancy.User, bool, error)
	// APIKeys: *tenancy.InvalidError (field "cursor");
	// tenancy.ErrNotFound for an unknown tenant.
	APIKeys(ctx context.Context, tenantRef string, f tenancy.KeyFilter) ([]tenancy.APIKey, bool, error)
}

// Members adds, changes, removes and lists a tenant's members, within its
// seats and never without an owner. *tenancy.Members implements it.
type Members interface {
	// Add: a *tenancy.LimitError when every seat is taken;
	// tenancy.ErrConflict for a member already; tenancy.ErrNotFound for
	// an unknown tenant or user; *tenancy.InvalidError (field "role").
	Add(ctx context.Context, tenantRef, userRef string, role tenancy.Role) (tenancy.Member, error)
	// SetRole and Remove: tenancy.ErrLastOwner (matching
	// tenancy.ErrConflict) for the tenant's only owner;
	// tenancy.ErrNotFound for no such member.
	SetRole(ctx context.Context, tenantRef, userRef string, role tenancy.Role) (tenancy.Member, error)
	Remove(ctx context.Context, tenantRef, userRef string) error
	// List: *tenancy.InvalidError (field "cursor"); tenancy.ErrNotFound
	// for an unknown tenant.
	List(ctx context.Context, tenantRef string, f tenancy.MemberFilter) ([]tenancy.Member, bool, error)
}

// APIKeys creates and revokes tenants' API keys. *tenancy.Keys implements
// it.
type APIKeys interface {
	// Create returns the key and its secret: *tenancy.InvalidError
	// (fields "scopes", "name"); tenancy.ErrNotMember when the user is no
	// member of the tenant the key is pinned to.
	Create(ctx context.Context, in tenancy.CreateAPIKeyInput) (tenancy.APIKey, string, error)
	// Revoke: tenancy.ErrNotFound for an unknown key.
	Revoke(ctx context.Context, keyID string) error
}

// Limits overrides a tenant's limits and shows the result.
// *tenancy.Entitlements implements it.
type Limits interface {
	// SetLimit (nil: unlimited) and ClearLimit: *tenancy.InvalidError
	// (fields "feature", "limit"); tenancy.ErrNotFound for an unknown
	// tenant.
	SetLimit(ctx context.Context, tenantRef, feature string, limit *int64) error
	ClearLimit(ctx context.Context, tenantRef, feature string) error
	Get(ctx context.Context, tenantID, feature string) (tenancy.Entitlement, error)
}

// Terms changes a tenant's contract at once, as an operator may.
// *contract.Service implements it.
type Terms interface {
	// Change: *tenancy.InvalidError (fields "plan_id", "seats",
	// "modules") for a change the contract's rules refuse;
	// tenancy.ErrNotFound for an unknown tenant.
	Change(ctx context.Context, tenantID string, ch contract.Change) (contract.Terms, error)
}

// OperatorRequests decides the tenants' contract requests.
// *contract.Service implements it.
type OperatorRequests interface {
	// AllRequests: *tenancy.InvalidError (fields "status", "tenant_id",
	// "cursor").
	AllRequests(ctx context.Context, f contract.AllFilter) ([]contract.Request, bool, error)
	// Approve and Reject: contract.ErrRequestNotFound (matching
	// tenancy.ErrNotFound); *contract.RequestTransitionError (matching
	// tenancy.ErrConflict) unless pending; *tenancy.InvalidError
	// ("reason", or the change's fields when it no longer applies).
	Approve(ctx context.Context, requestID, reason string) (contract.Request, error)
	Reject(ctx context.Context, requestID, reason string) (contract.Request, error)
}

// OperatorTickets is the platform's help desk across tenants.
// *support.Desk implements it.
type OperatorTickets interface {
	// Tickets: *support.InvalidError (fields "status", "priority",
	// "tenant_id", "assignee", "cursor").
	Tickets(ctx context.Context, f support.AgentFilter) ([]support.TenantTicket, bool, error)
	// Ticket: support.ErrNotFound.
	Ticket(ctx context.Context, ticketID string) (support.TenantTicket, error)
	// Reply and Change: support.ErrNotFound; support.ErrConflict for a
	// closed ticket or a move the lifecycle refuses; an InvalidError
	// ("body", "status", "priority", "assignee_id").
	Reply(ctx context.Context, ticketID, agentID, body string) (support.Comment, error)
	Change(ctx context.Context, ticketID string, ch support.AgentChange) (support.TenantTicket, error)
}

// OperatorPayments settles the payment events that matched no invoice.
// *webhook.Settlement implements it.
type OperatorPayments interface {
	// Events: *tenancy.InvalidError (fields "outcome", "cursor").
	Events(ctx context.Context, f webhook.EventFilter) ([]webhook.Record, bool, error)
	// Apply and Dismiss: webhook.ErrNotFound; webhook.ErrConflict when
	// the event is not unmatched; *tenancy.InvalidError ("invoice_id",
	// "reason"); Apply also billing.ErrCurrencyMismatch, ErrConflict and
	// ErrInvalid when the invoice does not take the event.
	Apply(ctx context.Context, eventID, invoiceID string) (webhook.Record, error)
	Dismiss(ctx context.Context, eventID, reason string) (webhook.Record, error)
}

var _ WebhookEndpoints = (*outbound.Service)(nil)

// WebhookEndpoints serves the tenants' outbound webhook endpoints and
// their deliveries (/api/webhook-endpoints); *outbound.Service implements
// it. Every method acts for the tenant it is given: another tenant's
// endpoint or delivery is outbound.ErrNotFound (matching
// tenancy.ErrNotFound).
type WebhookEndpoints interface {
	// CreateEndpoint returns the endpoint and its secret, shown once.
	// *field.InvalidError ("url", "description", "event_types[i]");
	// outbound.ErrNotConfigured without a secret key.
	CreateEndpoint(ctx context.Context, tenantID string, in outbound.CreateEndpointInput) (outbound.Endpoint, string, error)
	// Endpoints returns a page, newest first.
	Endpoints(ctx context.Context, tenantID string, limit int, before string) ([]outbound.Endpoint, bool, error)
	Endpoint(ctx context.Context, tenantID, endpointID string) (outbound.Endpoint, error)
	// UpdateEndpoint: *field.InvalidError as CreateEndpoint.
	UpdateEndpoint(ctx context.Context, tenantID, endpointID string, in outbound.UpdateEndpointInput) (outbound.Endpoint, error)
	DeleteEndpoint(ctx context.Context, tenantID, endpointID string) error
	// RotateSecret returns the new secret, shown once;
	// outbound.ErrNotConfigured.
	RotateSecret(ctx context.Context, tenantID, endpointID string) (outbound.Endpoint, string, error)
	// SendTest: *outbound.StatusError (a conflict) for a disabled
	// endpoint.
	SendTest(ctx context.Context, tenantID, endpointID string) (outbound.Delivery, error)
	// Deliveries returns a page, newest first, with their attempts.
	Deliveries(ctx context.Context, tenantID, endpointID string, limit int, before string) ([]outbound.Delivery, bool, error)
	// Retry: *outbound.StatusError (a conflict naming the current
	// status) for a pending delivery or a disabled endpoint.
	Retry(ctx context.Context, tenantID, endpointID, deliveryID string) (outbound.Delivery, error)
}

var _ EventLog = (*event.Log)(nil)

// EventLog serves the audit trail (GET /api/events and the operator's
// GET /api/operator/events); *event.Log implements it.
type EventLog interface {
	// List returns a page of the tenant's events, newest first.
	List(ctx context.Context, tenantID string, f event.Filter) ([]event.Event, bool, error)
	// Get returns the tenant's event; event.ErrNotFound for another's.
	Get(ctx context.Context, tenantID, eventID string) (event.Event, error)
	// ListAll returns a page of every tenant's events (or f.TenantID's).
	ListAll(ctx context.Context, f event.Filter) ([]event.Event, bool, error)
	// GetAny returns the event of any tenant.
	GetAny(ctx context.Context, eventID string) (event.Event, error)
}
