package portal

import (
	"net/http"
	"strconv"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The billing page is the tenant's side of the platform's billing: its
// contract (plan, seats, add-ons), the preview of the invoice the period
// will end with, and the platform's invoices to it with their PDFs.

// addOnRow is an add-on the tenant's plan sells, and whether it has it.
type addOnRow struct {
	Module catalog.Module
	Price  int64
	Bought bool
}

type billingData struct {
	Terms    contract.Terms
	Plan     catalog.Plan
	AddOns   []addOnRow
	Preview  *contract.Preview
	Invoices []contract.Invoice
	// PDF says the invoices have PDFs to link to.
	PDF bool
}

// billingPage shows the tenant's contract, the preview of its next
// invoice (to members who may preview) and its platform invoices.
func (h *Handler) billingPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx, tid := r.Context(), rq.membership.TenantID
	terms, err := h.cfg.Contracts.Current(ctx, tid)
	if err != nil {
		return err
	}
	d := billingData{Terms: terms, PDF: h.cfg.PDF != nil}
	d.Plan, _ = h.cfg.Catalog.Plan(terms.PlanID)
	for _, a := range d.Plan.AddOns {
		m, ok := h.cfg.Catalog.Module(a.Module)
		if !ok {
			m = catalog.Module{ID: a.Module, Name: a.Module}
		}
		d.AddOns = append(d.AddOns, addOnRow{Module: m, Price: a.Price, Bought: terms.HasAddOn(a.Module)})
	}
	if rq.can(tenancy.PermBillingPreview) {
		p, err := h.cfg.Contracts.Preview(ctx, tid, contract.PreviewInput{})
		if err != nil {
			return err
		}
		d.Preview = &p
	}
	if d.Invoices, _, err = h.cfg.Contracts.Invoices(ctx, tid, contract.InvoiceFilter{TenantID: tid, Limit: 24}); err != nil {
		return err
	}
	return h.render(w, r, rq, http.StatusOK, "billing", "Billing", d)
}

// platformInvoicePDF serves the PDF of one of the platform's invoices to
// the tenant (another tenant's is a 404 page).
func (h *Handler) platformInvoicePDF(w http.ResponseWriter, r *http.Request, rq *request) error {
	invoiceID := r.PathValue("id")
	if !id.Valid(id.PlatformInvoice, invoiceID) {
		return contract.ErrInvoiceNotFound
	}
	if h.cfg.PDF == nil {
		return httpapi.NewProblem(http.StatusNotImplemented, httpapi.CodeNotImplemented, "This server draws no PDFs.")
	}
	inv, err := h.cfg.Contracts.Invoice(r.Context(), rq.membership.TenantID, invoiceID)
	if err != nil {
		return err
	}
	doc, err := h.cfg.PDF.Platform(inv, rq.tenant.Name)
	if err != nil {
		return err
	}
	servePDF(w, "invoice-"+strconv.FormatInt(inv.Number, 10), doc)
	return nil
}
