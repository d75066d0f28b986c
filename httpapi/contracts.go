package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The contracts & billing group: a tenant's contract change requests, the
// platform's invoices to it and the preview of the next one.

var _ Contracts = (*contract.Service)(nil)

// Contracts takes and withdraws a tenant's contract change requests,
// lists the platform's invoices to it and previews the next one.
// *contract.Service implements it.
type Contracts interface {
	Submit(ctx context.Context, tenantID, userID string, in contract.SubmitInput) (contract.Request, error)
	Request(ctx context.Context, tenantID, requestID string) (contract.Request, error)
	Requests(ctx context.Context, tenantID string, f contract.Filter) ([]contract.Request, bool, error)
	Preview(ctx context.Context, tenantID string, in contract.PreviewInput) (contract.Preview, error)
	Cancel(ctx context.Context, by tenancy.Membership, requestID string) (contract.Request, error)
	// Invoices returns a page of the tenant's platform invoices, newest
	// first, and whether more follow; *tenancy.InvalidError for a bad
	// filter.
	Invoices(ctx context.Context, tenantID string, f contract.InvoiceFilter) ([]contract.Invoice, bool, error)
	// Invoice returns the tenant's platform invoice;
	// contract.ErrInvoiceNotFound (tenancy.ErrNotFound) for another
	// tenant's.
	Invoice(ctx context.Context, tenantID, invoiceID string) (contract.Invoice, error)
	// PastDue reports whether the tenant has a platform invoice still open
	// grace after its due date (Config.PastDueGrace).
	PastDue(ctx context.Context, tenantID string, grace time.Duration) (bool, error)
}

// contractEndpoints are the contracts & billing group's rows of the route
// table.
func (a *API) contractEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/contract-requests", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermContractsRead, Query: ListQuery("status"), Handle: With(a.cfg.Services.Contracts, a.listContractRequests)},
		{Method: "POST", Path: "/api/contract-requests", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermContractsSubmit, State: true, Idempotent: true, Handle: With(a.cfg.Services.Contracts, a.submitContractRequest)},
		{Method: "GET", Path: "/api/contract-requests/{id}", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermContractsRead, Handle: With(a.cfg.Services.Contracts, a.getContractRequest)},
		{Method: "POST", Path: "/api/contract-requests/{id}/cancel", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermContractsSubmit, Handle: With(a.cfg.Services.Contracts, a.cancelContractRequest)},
		{Method: "POST", Path: "/api/invoices/preview", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermBillingPreview, State: true, PastDueOK: true, Handle: With(a.cfg.Services.Contracts, a.previewInvoice)},
		{Method: "GET", Path: "/api/invoices", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermBillingRead, Query: ListQuery("status"), Handle: With(a.cfg.Services.Contracts, a.listPlatformInvoices)},
		{Method: "GET", Path: "/api/invoices/{id}", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermBillingRead, Handle: With(a.cfg.Services.Contracts, a.getPlatformInvoice)},
		{Method: "GET", Path: "/api/invoices/{id}/pdf", Group: GroupContracts, Tenant: true,
			Permission: tenancy.PermBillingRead, Handle: With(a.cfg.Services.Contracts, With(a.cfg.InvoicePDF, a.platformInvoicePDF))},
	}
}

// listPlatformInvoices answers GET /api/invoices: the platform's invoices
// to the tenant, newest first, filtered by ?status=.
func (a *API) listPlatformInvoices(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	invs, more, err := a.cfg.Services.Contracts.Invoices(r.Context(), m.TenantID, contract.InvoiceFilter{
		Status: contract.InvoiceStatus(r.URL.Query().Get("status")), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(invs, more, func(i contract.Invoice) string { return i.ID }))
	return nil
}

// getPlatformInvoice answers GET /api/invoices/{id}: one of the
// platform's invoices to the tenant; another tenant's is 404.
func (a *API) getPlatformInvoice(w http.ResponseWriter, r *http.Request) error {
	inv, err := a.platformInvoice(r)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, inv)
	return nil
}

// platformInvoice is the selected tenant's platform invoice the path
// names; another tenant's is 404.
func (a *API) platformInvoice(r *http.Request) (contract.Invoice, error) {
	invoiceID, err := PathID(r, id.PlatformInvoice, "invoice")
	if err != nil {
		return contract.Invoice{}, err
	}
	m, _ := MembershipFrom(r.Context())
	return a.cfg.Services.Contracts.Invoice(r.Context(), m.TenantID, invoiceID)
}

// listContractRequests answers GET /api/contract-requests: the tenant's
// contract change requests, newest first, filtered by ?status=.
func (a *API) listContractRequests(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	reqs, more, err := a.cfg.Services.Contracts.Requests(r.Context(), m.TenantID, contract.Filter{
		Status: r.URL.Query().Get("status"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(reqs, more, func(c contract.Request) string { return c.ID }))
	return nil
}

// submitContractRequest answers POST /api/contract-requests: a pending
// request submitted by the caller (201, Location), checked against the
// catalog and the tenant's contract.
func (a *API) submitContractRequest(w http.ResponseWriter, r *http.Request) error {
	var in contract.SubmitInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Services.Contracts.Submit(r.Context(), m.TenantID, p.User.ID, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/contract-requests/"+req.ID)
	WriteJSON(w, http.StatusCreated, req)
	return nil
}

// previewInvoice answers POST /api/invoices/preview: the tenant's next
// platform invoice, optionally with a hypothetical change. The body is
// optional: none (or only white space) previews the current contract, like
// {}. Nothing is stored.
func (a *API) previewInvoice(w http.ResponseWriter, r *http.Request) error {
	var in contract.PreviewInput
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	preview, err := a.cfg.Services.Contracts.Preview(r.Context(), m.TenantID, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, preview)
	return nil
}

// getContractRequest answers GET /api/contract-requests/{id}; another
// tenant's request is 404.
func (a *API) getContractRequest(w http.ResponseWriter, r *http.Request) error {
	contractID, err := PathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Services.Contracts.Request(r.Context(), m.TenantID, contractID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, req)
	return nil
}

// cancelContractRequest answers POST /api/contract-requests/{id}/cancel:
// the request, cancelled. Its submitter may cancel it, and so may an
// owner or admin (tenancy.PermContractsManage); another member gets 403.
// A request that is no longer pending is 409 with its status; another
// tenant's is 404.
func (a *API) cancelContractRequest(w http.ResponseWriter, r *http.Request) error {
	contractID, err := PathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Services.Contracts.Cancel(r.Context(), m, contractID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, req)
	return nil
}
