package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The collections group (/api/v1/collections/invoices): a tenant's
// invoices to its customers, their lifecycle and their payments.

var (
	_ Invoices        = (*billing.Service)(nil)
	_ InvoicePayments = (*billing.Ledger)(nil)
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

// invoiceEndpoints are the collections group's rows of the route table.
func (a *API) invoiceEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/v1/collections/invoices", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesRead, Query: ListQuery("status", "customer_email", "customer_id"), Handle: With(a.cfg.Services.Billing, a.listInvoices)},
		{Method: "POST", Path: "/api/v1/collections/invoices", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Idempotent: true,
			Handle: With(a.cfg.Services.Billing, a.createInvoice)},
		{Method: "GET", Path: "/api/v1/collections/invoices/{id}", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesRead, Handle: With(a.cfg.Services.Billing, a.getInvoice)},
		{Method: "GET", Path: "/api/v1/collections/invoices/{id}/pdf", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesRead, Handle: With(a.cfg.Services.Billing, With(a.cfg.InvoicePDF, a.collectionsInvoicePDF))},
		{Method: "PATCH", Path: "/api/v1/collections/invoices/{id}", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Handle: With(a.cfg.Services.Billing, a.updateInvoice)},
		{Method: "DELETE", Path: "/api/v1/collections/invoices/{id}", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Handle: With(a.cfg.Services.Billing, a.deleteInvoice)},
		{Method: "POST", Path: "/api/v1/collections/invoices/{id}/finalize", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Handle: With(a.cfg.Services.Billing, a.finalizeInvoice)},
		{Method: "POST", Path: "/api/v1/collections/invoices/{id}/void", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Handle: With(a.cfg.Services.Billing, a.voidInvoice)},
		{Method: "POST", Path: "/api/v1/collections/invoices/{id}/mark-uncollectible", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Handle: With(a.cfg.Services.Billing, a.markInvoiceUncollectible)},
		{Method: "GET", Path: "/api/v1/collections/invoices/{id}/payments", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesRead, Query: ListQuery(), Handle: With(a.cfg.Services.Payments, a.listInvoicePayments)},
		{Method: "POST", Path: "/api/v1/collections/invoices/{id}/payments", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Idempotent: true,
			Handle: With(a.cfg.Services.Payments, a.recordInvoicePayment)},
	}
}

// listInvoices answers GET /api/v1/collections/invoices: the tenant's
// invoices, newest first, filtered by ?status=, ?customer_email= and
// ?customer_id=.
func (a *API) listInvoices(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	q := r.URL.Query()
	invoices, more, err := a.cfg.Services.Billing.List(r.Context(), m.TenantID, billing.ListFilter{
		Status: q.Get("status"), CustomerEmail: q.Get("customer_email"), CustomerID: q.Get("customer_id"),
		Limit: limit, Before: before})
	if err != nil {
		return err
	}
	page, err := a.withHostedURLs(r, m.TenantID, invoices...)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(page, more, func(i invoiceJSON) string { return i.ID }))
	return nil
}

// createInvoice answers POST /api/v1/collections/invoices: the server
// computes every amount and assigns the next number (201, Location).
func (a *API) createInvoice(w http.ResponseWriter, r *http.Request) error {
	var in billing.CreateInvoiceInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := a.cfg.Services.Billing.Create(r.Context(), m.TenantID, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/collections/invoices/"+inv.ID)
	return a.writeInvoice(w, r, http.StatusCreated, m.TenantID, inv)
}

// getInvoice answers GET /api/v1/collections/invoices/{id}; another
// tenant's invoice is 404.
func (a *API) getInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := a.cfg.Services.Billing.Get(r.Context(), m.TenantID, invoiceID)
	if err != nil {
		return err
	}
	return a.writeInvoice(w, r, http.StatusOK, m.TenantID, inv)
}

// updateInvoice answers PATCH /api/v1/collections/invoices/{id}: a draft
// changed with merge semantics, its amounts computed again.
func (a *API) updateInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	var in billing.UpdateInvoiceInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := a.cfg.Services.Billing.Update(r.Context(), m.TenantID, invoiceID, in)
	if err != nil {
		return err
	}
	return a.writeInvoice(w, r, http.StatusOK, m.TenantID, inv)
}

// deleteInvoice answers DELETE /api/v1/collections/invoices/{id}: a draft
// is removed (204).
func (a *API) deleteInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	if err := a.cfg.Services.Billing.Delete(r.Context(), m.TenantID, invoiceID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// voidInvoice answers POST /api/v1/collections/invoices/{id}/void.
func (a *API) voidInvoice(w http.ResponseWriter, r *http.Request) error {
	return a.moveInvoice(w, r, a.cfg.Services.Billing.Void)
}

// markInvoiceUncollectible answers
// POST /api/v1/collections/invoices/{id}/mark-uncollectible.
func (a *API) markInvoiceUncollectible(w http.ResponseWriter, r *http.Request) error {
	return a.moveInvoice(w, r, a.cfg.Services.Billing.MarkUncollectible)
}

// moveInvoice runs one of the lifecycle moves on the path's invoice and
// answers the invoice as it is after it; an illegal move is a 409 that
// names the invoice's status (problemFor).
func (a *API) moveInvoice(w http.ResponseWriter, r *http.Request,
	move func(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := move(r.Context(), m.TenantID, invoiceID)
	if err != nil {
		return err
	}
	return a.writeInvoice(w, r, http.StatusOK, m.TenantID, inv)
}

// recordInvoicePayment answers POST /api/v1/collections/invoices/{id}/payments:
// a payment received out of band, booked on the invoice (201, the ledger
// entry).
func (a *API) recordInvoicePayment(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	var in billing.RecordPaymentInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	p, _, err := a.cfg.Services.Payments.Record(r.Context(), m.TenantID, invoiceID, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, p)
	return nil
}

// listInvoicePayments answers GET /api/v1/collections/invoices/{id}/payments:
// the invoice's payments and refunds from every source, newest first.
func (a *API) listInvoicePayments(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	page, more, err := a.cfg.Services.Payments.Payments(r.Context(), m.TenantID, invoiceID, billing.PaymentFilter{Limit: limit, Before: before})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(page, more, func(p billing.Payment) string { return p.ID }))
	return nil
}
