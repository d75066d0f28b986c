package httpapi

import (
	"context"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/support"
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
