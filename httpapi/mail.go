package httpapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/tenancy"
)

var _ InvoiceMail = (*mail.Service)(nil)

// InvoiceMail emails invoices to the tenants' customers (a *mail.Service,
// Services.Mail). Without one, sending answers 409 mail_not_configured.
type InvoiceMail interface {
	// Send queues the invoice's email to its customer.
	Send(ctx context.Context, tenantID, invoiceID string) (mail.Message, error)
	// FinalizeAndSend finalizes the draft and queues its email, as one.
	FinalizeAndSend(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, mail.Message, error)
}

// mailEndpoints are the rows of sending an invoice by email.
func (a *API) mailEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "POST", Path: "/api/v1/collections/invoices/{id}/send", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Module: catalog.ModuleInvoices, Idempotent: true,
			Handle: With(a.cfg.Services.Billing, a.sendInvoice)},
	}
}

// errMailNotConfigured is the answer to a send on a server without mail.
var errMailNotConfigured = NewProblem(http.StatusConflict, CodeMailNotConfigured,
	"this server has no mail server configured (TENANTKIT_SMTP_URL), so invoices cannot be sent by email")

// sendInvoice answers POST /api/v1/collections/invoices/{id}/send: 202
// with the queued message; the mail server has it once invoice.sent is
// recorded. A draft or void invoice is 409 conflict.
func (a *API) sendInvoice(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	if a.cfg.Services.Mail == nil {
		return errMailNotConfigured
	}
	m, _ := MembershipFrom(r.Context())
	msg, err := a.cfg.Services.Mail.Send(r.Context(), m.TenantID, invoiceID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusAccepted, msg)
	return nil
}

// finalizeBody is the optional body of POST …/invoices/{id}/finalize.
type finalizeBody struct {
	// Send emails the invoice to its customer once finalized, in the
	// same transaction.
	Send bool `json:"send"`
}

// finalizeInvoice answers POST /api/v1/collections/invoices/{id}/finalize,
// with {"send": true} also queueing its email.
func (a *API) finalizeInvoice(w http.ResponseWriter, r *http.Request) error {
	var body finalizeBody
	if err := decodeOptionalJSON(r, &body); err != nil {
		return err
	}
	if !body.Send {
		return a.moveInvoice(w, r, a.cfg.Services.Billing.Finalize)
	}
	if a.cfg.Services.Mail == nil {
		return errMailNotConfigured
	}
	return a.moveInvoice(w, r, func(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error) {
		inv, _, err := a.cfg.Services.Mail.FinalizeAndSend(ctx, tenantID, invoiceID)
		return inv, err
	})
}
