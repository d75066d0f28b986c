package operatorapi

import (
	"context"
	"net/http"
	"time"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The platform's invoices to its tenants, across tenants: listed, voided,
// marked paid when the money came outside the payment provider; and the
// test tenants' clocks, moved forward to bill them.

var _ PlatformBilling = (*contract.Service)(nil)

// PlatformBilling lists and settles the platform's invoices to its tenants
// and moves test tenants' clocks. *contract.Service implements it.
type PlatformBilling interface {
	// AllInvoices: *tenancy.InvalidError (fields "tenant_id", "status",
	// "period", "cursor").
	AllInvoices(ctx context.Context, f contract.InvoiceFilter) ([]contract.Invoice, bool, error)
	// VoidInvoice and MarkInvoicePaid: contract.ErrInvoiceNotFound
	// (matching tenancy.ErrNotFound); *contract.InvoiceStatusError
	// (matching tenancy.ErrConflict) unless the invoice is open;
	// MarkInvoicePaid: *tenancy.InvalidError (field "reference").
	VoidInvoice(ctx context.Context, invoiceID string) (contract.Invoice, error)
	MarkInvoicePaid(ctx context.Context, invoiceID string, in contract.MarkPaidInput) (contract.Invoice, error)
	// AdvanceClock: *tenancy.InvalidError on "tenant" for a real tenant,
	// on "advance_to" for a time not after the clock's;
	// tenancy.ErrNotFound for an unknown tenant.
	AdvanceClock(ctx context.Context, tenantID string, in contract.ClockInput) (time.Time, error)
}

// listPlatformInvoices answers GET /api/operator/invoices: the platform's
// invoices to every tenant (or ?tenant_id=), newest first, by ?status=
// and ?period= (a month, "2026-11").
func (h *handlers) listPlatformInvoices(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	invs, more, err := h.Billing.AllInvoices(r.Context(), contract.InvoiceFilter{
		TenantID: q.Get("tenant_id"), Status: contract.InvoiceStatus(q.Get("status")), Period: q.Get("period"),
		Limit: limit, Before: before})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(invs, more, func(i contract.Invoice) string { return i.ID }))
	return nil
}

// voidPlatformInvoice answers POST /api/operator/invoices/{id}/void: the
// open invoice, void; nothing is owed on it any more. An invoice that is
// not open is 409 conflict.
func (h *handlers) voidPlatformInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := httpapi.PathID(r, id.PlatformInvoice, "invoice")
	if err != nil {
		return err
	}
	inv, err := h.Billing.VoidInvoice(r.Context(), invoiceID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, inv)
	return nil
}

// markPlatformInvoicePaid answers POST
// /api/operator/invoices/{id}/mark-paid: the open invoice, paid outside
// the payment provider, with the body's reference (contract.MarkPaidInput,
// whose rules MarkInvoicePaid checks). A past-due tenant's writes go
// through again at once. An invoice that is not open is 409 conflict.
func (h *handlers) markPlatformInvoicePaid(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := httpapi.PathID(r, id.PlatformInvoice, "invoice")
	if err != nil {
		return err
	}
	var in contract.MarkPaidInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	inv, err := h.Billing.MarkInvoicePaid(r.Context(), invoiceID, in)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, inv)
	return nil
}

// advanceTenantClock answers POST /api/operator/tenants/{id}/clock: the
// test tenant's clock moves forward to the body's advance_to
// (contract.ClockInput), running on the way what falls due (each
// period's invoice, the contract changes, the overdue marks). The answer
// is the tenant, as GET /api/operator/tenants/{id} shows it, with its new
// test_clock. A real tenant, or a time not after the clock's, is 422.
func (h *handlers) advanceTenantClock(w http.ResponseWriter, r *http.Request) error {
	tenantID, err := httpapi.PathID(r, id.Tenant, "tenant")
	if err != nil {
		return err
	}
	var in contract.ClockInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	if _, err := h.Billing.AdvanceClock(r.Context(), tenantID, in); err != nil {
		return err
	}
	t, err := h.Directory.Tenant(r.Context(), tenantID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, t)
	return nil
}
