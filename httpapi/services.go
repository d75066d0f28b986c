package httpapi

import (
	"context"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
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

// Notifications lists a tenant's notifications. *tenancy.Notifications
// implements it.
type Notifications interface {
	List(ctx context.Context, tenantID string, f tenancy.NotificationFilter) ([]tenancy.Notification, bool, error)
}

// Contracts takes a tenant's contract change requests and previews the
// platform's next invoice to it. *contract.Service implements it.
type Contracts interface {
	Submit(ctx context.Context, tenantID, userID string, in contract.SubmitInput) (contract.Request, error)
	Request(ctx context.Context, tenantID, requestID string) (contract.Request, error)
	Requests(ctx context.Context, tenantID string, f contract.Filter) ([]contract.Request, bool, error)
	Preview(ctx context.Context, tenantID string, in contract.PreviewInput) (contract.Preview, error)
}
