package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/invoicepdf"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The invoices' PDFs: GET /api/v1/collections/invoices/{id}/pdf (a
// tenant's invoice to its customer; its row is in invoices.go) and GET
// /api/invoices/{id}/pdf (the platform's invoice to the tenant; in
// contracts.go).

var _ InvoicePDF = (*invoicepdf.Renderer)(nil)

// InvoicePDF draws invoices as PDF documents; *invoicepdf.Renderer
// implements it (Config.InvoicePDF). Both methods are given a finalized
// invoice and the name the document needs from outside it.
type InvoicePDF interface {
	// Collections draws a tenant's finalized invoice to its customer;
	// issuer is the tenant's name, hostedURL its hosted page ("" for
	// none).
	Collections(inv billing.Invoice, issuer, hostedURL string) ([]byte, error)
	// Platform draws the platform's invoice to a tenant; tenantName is
	// the customer's name.
	Platform(inv contract.Invoice, tenantName string) ([]byte, error)
}

// collectionsInvoicePDF answers GET
// /api/v1/collections/invoices/{id}/pdf: the tenant's invoice as a PDF,
// issued in the tenant's name. A draft is 409 conflict (current_status
// "draft"): it has no number and may still change, so it is no document
// to send; another tenant's invoice is 404.
func (a *API) collectionsInvoicePDF(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := a.cfg.Services.Billing.Get(r.Context(), m.TenantID, invoiceID)
	if err != nil {
		return err
	}
	if inv.Status == billing.StatusDraft {
		return &billing.TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "render a PDF; finalize it first"}
	}
	tenant, err := a.cfg.Services.Directory.Tenant(r.Context(), m.TenantID)
	if err != nil {
		return err
	}
	withURL, err := a.withHostedURLs(r, m.TenantID, inv)
	if err != nil {
		return err
	}
	pdf, err := a.cfg.InvoicePDF.Collections(inv, tenant.Name, withURL[0].HostedURL)
	if err != nil {
		return err
	}
	writePDF(w, inv.Number, pdf)
	return nil
}

// platformInvoicePDF answers GET /api/invoices/{id}/pdf: the platform's
// invoice to the tenant as a PDF, issued in the platform's name; another
// tenant's is 404.
func (a *API) platformInvoicePDF(w http.ResponseWriter, r *http.Request) error {
	inv, err := a.platformInvoice(r)
	if err != nil {
		return err
	}
	tenant, err := a.cfg.Services.Directory.Tenant(r.Context(), inv.TenantID)
	if err != nil {
		return err
	}
	pdf, err := a.cfg.InvoicePDF.Platform(inv, tenant.Name)
	if err != nil {
		return err
	}
	writePDF(w, strconv.FormatInt(inv.Number, 10), pdf)
	return nil
}

// writePDF answers 200 with a PDF shown in the browser, named after the
// invoice's number should it be saved: Content-Disposition inline;
// filename="INV-000042.pdf".
func writePDF(w http.ResponseWriter, number string, pdf []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", `inline; filename="`+pdfFilename(number)+`"`)
	h.Set("Content-Length", strconv.Itoa(len(pdf)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pdf)
}

// pdfFilename is number + ".pdf", with any character other than a
// letter, digit, dot, hyphen or underscore replaced by "_", so that the
// quoted filename needs no escaping.
func pdfFilename(number string) string {
	if number == "" {
		number = "invoice"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, number) + ".pdf"
}
