package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// updateInvoice answers PATCH /api/v1/collections/invoices/{id}: a draft
// changed with merge semantics, its amounts computed again.
func (a *API) updateInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := pathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	var in billing.UpdateInvoiceInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := a.cfg.Billing.Update(r.Context(), m.TenantID, invoiceID, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, inv)
	return nil
}

// deleteInvoice answers DELETE /api/v1/collections/invoices/{id}: a draft
// is removed (204).
func (a *API) deleteInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := pathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	if err := a.cfg.Billing.Delete(r.Context(), m.TenantID, invoiceID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// finalizeInvoice answers POST /api/v1/collections/invoices/{id}/finalize.
func (a *API) finalizeInvoice(w http.ResponseWriter, r *http.Request) error {
	return a.moveInvoice(w, r, a.cfg.Billing.Finalize)
}

// voidInvoice answers POST /api/v1/collections/invoices/{id}/void.
func (a *API) voidInvoice(w http.ResponseWriter, r *http.Request) error {
	return a.moveInvoice(w, r, a.cfg.Billing.Void)
}

// markInvoiceUncollectible answers
// POST /api/v1/collections/invoices/{id}/mark-uncollectible.
func (a *API) markInvoiceUncollectible(w http.ResponseWriter, r *http.Request) error {
	return a.moveInvoice(w, r, a.cfg.Billing.MarkUncollectible)
}

// moveInvoice runs one of the lifecycle moves on the path's invoice and
// answers the invoice as it is after it; an illegal move is a 409 that
// names the invoice's status (problemFor).
func (a *API) moveInvoice(w http.ResponseWriter, r *http.Request,
	move func(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)) error {
	invoiceID, err := pathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	inv, err := move(r.Context(), m.TenantID, invoiceID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, inv)
	return nil
}

// recordInvoicePayment answers POST /api/v1/collections/invoices/{id}/payments:
// a payment received out of band, booked on the invoice (201, the ledger
// entry).
func (a *API) recordInvoicePayment(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := pathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	var in billing.RecordPaymentInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	p, _, err := a.cfg.Payments.Record(r.Context(), m.TenantID, invoiceID, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, p)
	return nil
}

// listInvoicePayments answers GET /api/v1/collections/invoices/{id}/payments:
// the invoice's payments and refunds from every source, newest first.
func (a *API) listInvoicePayments(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := pathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	page, more, err := a.cfg.Payments.Payments(r.Context(), m.TenantID, invoiceID, billing.PaymentFilter{Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(page, more, func(p billing.Payment) string { return p.ID }))
	return nil
}
