package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The tenants' customers on record (/api/v1/collections/customers), whom
// invoices name by customer_id. They belong to the collections group and
// take the invoices' permissions and scopes.

var _ Customers = (*billing.Service)(nil)

// Customers serves the customers endpoints; *billing.Service implements
// it. Every method acts for the tenant it is given: another tenant's
// customer is billing.ErrNotFound.
type Customers interface {
	// CreateCustomer validates in and stores the customer.
	// *billing.InvalidError.
	CreateCustomer(ctx context.Context, tenantID string, in billing.CreateCustomerInput) (billing.CustomerRecord, error)
	// ListCustomers returns a page of the tenant's customers, newest
	// first, and whether more follow. *billing.InvalidError for a bad
	// filter.
	ListCustomers(ctx context.Context, tenantID string, f billing.CustomerFilter) ([]billing.CustomerRecord, bool, error)
	// CustomerByID returns the tenant's customer with what it owes.
	CustomerByID(ctx context.Context, tenantID, customerID string) (billing.CustomerRecord, error)
	// UpdateCustomer changes the tenant's customer (a merge patch).
	// *billing.InvalidError; billing.ErrNotFound.
	UpdateCustomer(ctx context.Context, tenantID, customerID string, in billing.UpdateCustomerInput) (billing.CustomerRecord, error)
	// ArchiveCustomer archives the tenant's customer; billing.ErrNotFound.
	ArchiveCustomer(ctx context.Context, tenantID, customerID string) (billing.CustomerRecord, error)
}

// customerEndpoints are the customers' rows of the route table.
func (a *API) customerEndpoints() []Endpoint {
	c := a.cfg.Services.Customers
	return []Endpoint{
		{Method: "GET", Path: "/api/v1/collections/customers", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesRead, Query: ListQuery("search", "archived"), Handle: With(c, a.listCustomers)},
		{Method: "POST", Path: "/api/v1/collections/customers", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Idempotent: true,
			Handle: With(c, a.createCustomer)},
		{Method: "GET", Path: "/api/v1/collections/customers/{id}", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesRead, Handle: With(c, a.getCustomer)},
		{Method: "PATCH", Path: "/api/v1/collections/customers/{id}", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Handle: With(c, a.updateCustomer)},
		{Method: "POST", Path: "/api/v1/collections/customers/{id}/archive", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Handle: With(c, a.archiveCustomer)},
	}
}

// listCustomers answers GET /api/v1/collections/customers: the tenant's
// customers, newest first, matching ?search= (a substring of the name or
// the email, ignoring case), archived ones only with ?archived=true.
func (a *API) listCustomers(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := billing.CustomerFilter{Search: q.Get("search"), Limit: limit, Before: before}
	switch q.Get("archived") {
	case "", "false":
	case "true":
		f.Archived = true
	default:
		return field.NewInvalidError("archived", field.Invalid, "must be true or false")
	}
	m, _ := MembershipFrom(r.Context())
	page, more, err := a.cfg.Services.Customers.ListCustomers(r.Context(), m.TenantID, f)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(page, more, func(c billing.CustomerRecord) string { return c.ID }))
	return nil
}

// createCustomer answers POST /api/v1/collections/customers (201, Location).
func (a *API) createCustomer(w http.ResponseWriter, r *http.Request) error {
	var in billing.CreateCustomerInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	c, err := a.cfg.Services.Customers.CreateCustomer(r.Context(), m.TenantID, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/collections/customers/"+c.ID)
	WriteJSON(w, http.StatusCreated, c)
	return nil
}

// getCustomer answers GET /api/v1/collections/customers/{id}, with what the
// customer owes; another tenant's customer is 404.
func (a *API) getCustomer(w http.ResponseWriter, r *http.Request) error {
	customerID, err := PathID(r, id.Customer, "customer")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	c, err := a.cfg.Services.Customers.CustomerByID(r.Context(), m.TenantID, customerID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, c)
	return nil
}

// updateCustomer answers PATCH /api/v1/collections/customers/{id}: a merge
// patch, which the customer's drafts show at once.
func (a *API) updateCustomer(w http.ResponseWriter, r *http.Request) error {
	customerID, err := PathID(r, id.Customer, "customer")
	if err != nil {
		return err
	}
	var in billing.UpdateCustomerInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	c, err := a.cfg.Services.Customers.UpdateCustomer(r.Context(), m.TenantID, customerID, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, c)
	return nil
}

// archiveCustomer answers POST /api/v1/collections/customers/{id}/archive.
func (a *API) archiveCustomer(w http.ResponseWriter, r *http.Request) error {
	customerID, err := PathID(r, id.Customer, "customer")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	c, err := a.cfg.Services.Customers.ArchiveCustomer(r.Context(), m.TenantID, customerID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, c)
	return nil
}
