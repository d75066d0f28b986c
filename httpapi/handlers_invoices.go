package httpapi

import (
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// listInvoices answers GET /api/v1/collections/invoices: the tenant's
// invoices, newest first, filtered by ?status= and ?customer_email=.
func (a *API) listInvoices(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	q := r.URL.Query()
	invoices, more, err := a.cfg.Billing.List(r.Context(), m.TenantID, billing.ListFilter{
		Status: q.Get("status"), CustomerEmail: q.Get("customer_email"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(invoices, more, func(i billing.Invoice) string { return i.ID }))
	return nil
}

// createInvoice answers POST /api/v1/collections/invoices: the server
// computes every amount and assigns the next number (201, Location).
func (a *API) createInvoice(w http.ResponseWriter, r *http.Request) error {
	var in billing.CreateInvoiceInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := a.cfg.Billing.Create(r.Context(), m.TenantID, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/collections/invoices/"+inv.ID)
	writeJSON(w, http.StatusCreated, inv)
	return nil
}

// getInvoice answers GET /api/v1/collections/invoices/{id}; another
// tenant's invoice is 404.
func (a *API) getInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := pathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := a.cfg.Billing.Get(r.Context(), m.TenantID, invoiceID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, inv)
	return nil
}
