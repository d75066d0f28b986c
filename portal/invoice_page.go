package portal

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/tenancy"
)

// maxLedgerRows is how many payments and refunds the invoice page lists.
const maxLedgerRows = 100

// Why the invoice page cannot offer to email the invoice.
const (
	mailNotConfiguredText = "Email is not set up on this server: the operator configures a mail server (TENANTKIT_SMTP_URL and TENANTKIT_MAIL_FROM) to send invoices."
	mailNoRecipientText   = "The customer has no email address, so the invoice cannot be emailed."
	mailDraftText         = "A draft cannot be sent: finalize it first."
)

// invoicePage is an invoice with its ledger, its links and what the
// member may do with it.
type invoicePage struct {
	Invoice billing.Invoice
	// The actions the member may take on the invoice as it is.
	CanFinalize, CanVoid, CanPay, CanWriteOff, CanDelete, CanSend bool
	// PaymentAmount fills the payment form: what is due, as typed.
	PaymentAmount string
	// Payments are the invoice's ledger entries, newest first; More
	// says the ledger has older ones than the page lists.
	Payments     []billing.Payment
	MorePayments bool
	// HostedURL is the customer's page of the invoice, "" when there is
	// none (a draft, or no hosted pages on this server).
	HostedURL string
	// PDF says the invoice has a PDF to link to.
	PDF bool
	// MailOff says why the invoice cannot be emailed; "" when it can, or
	// when emailing it makes no sense (void).
	MailOff string
	// Emails are the messages sent (or queued) about the invoice.
	Emails []mail.Message
}

// invoice reads the invoice of the request's path, the tenant's only.
func (h *Handler) invoice(r *http.Request, rq *request) (billing.Invoice, error) {
	invoiceID := r.PathValue("id")
	if !id.Valid(id.Invoice, invoiceID) {
		return billing.Invoice{}, billing.ErrNotFound
	}
	return h.cfg.Invoices.Get(r.Context(), rq.membership.TenantID, invoiceID)
}

// invoicePageOf gathers the page of inv: its ledger, hosted link, emails
// and the actions the member may take.
func (h *Handler) invoicePageOf(r *http.Request, rq *request, inv billing.Invoice) (invoicePage, error) {
	ctx, tid := r.Context(), rq.membership.TenantID
	write := rq.can(tenancy.PermInvoicesWrite)
	final := billing.Finalized(inv.Status)
	p := invoicePage{Invoice: inv,
		CanFinalize: write && inv.Status == billing.StatusDraft,
		CanVoid:     write && billing.CanTransition(inv.Status, billing.StatusVoid),
		CanWriteOff: write && billing.CanTransition(inv.Status, billing.StatusUncollectible),
		CanDelete:   write && inv.Status == billing.StatusDraft,
		CanPay:      write && inv.Status == billing.StatusOpen && inv.AmountDue > 0,
		PDF:         final && h.cfg.PDF != nil,
	}
	if amt, err := billing.FormatAmount(inv.AmountDue, inv.Currency); err == nil {
		p.PaymentAmount = amt
	}
	var err error
	if p.Payments, p.MorePayments, err = h.cfg.Payments.Payments(ctx, tid, inv.ID, billing.PaymentFilter{Limit: maxLedgerRows}); err != nil {
		return p, err
	}
	if final {
		if p.HostedURL, err = h.hostedURL(ctx, tid, inv); err != nil {
			return p, err
		}
	}
	switch {
	case inv.Status == billing.StatusVoid:
	case h.cfg.Mail == nil:
		p.MailOff = mailNotConfiguredText
	case inv.Status == billing.StatusDraft:
		p.MailOff = mailDraftText
	case inv.Customer.Email == "":
		p.MailOff = mailNoRecipientText
	default:
		p.CanSend = write
	}
	if h.cfg.Mail != nil && final {
		if p.Emails, err = h.cfg.Mail.Messages(ctx, tid, inv.ID); err != nil {
			return p, err
		}
	}
	return p, nil
}

func (h *Handler) showInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	inv, err := h.invoice(r, rq)
	if err != nil {
		return err
	}
	return h.renderInvoice(w, r, rq, http.StatusOK, inv, nil)
}

// renderInvoice shows the invoice page with status, and the refusal ferr
// of a form on it, if any.
func (h *Handler) renderInvoice(w http.ResponseWriter, r *http.Request, rq *request, status int, inv billing.Invoice, ferr error) error {
	p, err := h.invoicePageOf(r, rq, inv)
	if err != nil {
		return err
	}
	return h.renderForm(w, r, rq, status, "invoice", invoiceTitle(inv), p, ferr)
}

// invoiceTitle names an invoice by its number, a draft as a draft.
func invoiceTitle(inv billing.Invoice) string {
	if inv.Number == "" {
		return "Draft invoice"
	}
	return "Invoice " + inv.Number
}

// invoiceAction runs one lifecycle action and shows the invoice again:
// with the result, or with the refusal's message.
func (h *Handler) invoiceAction(w http.ResponseWriter, r *http.Request, rq *request, done string,
	act func(tenantID, id string) (billing.Invoice, error)) error {
	inv, err := h.invoice(r, rq)
	if err != nil {
		return err
	}
	if _, err = act(rq.membership.TenantID, inv.ID); err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/invoices/"+inv.ID+"?done="+done, http.StatusSeeOther)
		return nil
	}
	p := httpapi.ProblemFor(err)
	if p.Status >= 500 || p.Status == http.StatusNotFound {
		return err
	}
	return h.renderInvoice(w, r, rq, p.Status, inv, err)
}

func (h *Handler) finalizeInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.invoiceAction(w, r, rq, "finalized", func(t, id string) (billing.Invoice, error) {
		return h.cfg.Invoices.Finalize(r.Context(), t, id)
	})
}

func (h *Handler) payInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.invoiceAction(w, r, rq, "paid", func(t, id string) (billing.Invoice, error) {
		inv, err := h.cfg.Invoices.Get(r.Context(), t, id)
		if err != nil {
			return inv, err
		}
		digits := 2
		if c, err := billing.LookupCurrency(inv.Currency); err == nil {
			digits = c.Digits
		}
		amount, err := decimal(r.PostForm.Get("amount"), digits)
		if err != nil || amount <= 0 {
			return inv, field.NewInvalidError("amount", field.Invalid, "must be a positive amount such as 19.99")
		}
		method := r.PostForm.Get("method")
		if method == "" {
			method = billing.MethodOther
		}
		_, paid, err := h.cfg.Payments.Record(r.Context(), t, id, billing.RecordPaymentInput{
			Amount: amount, Method: method, Reference: r.PostForm.Get("reference")})
		return paid, err
	})
}

// sendInvoice queues the invoice's email to its customer. Without mail
// the page says why it cannot (the button is not shown either).
func (h *Handler) sendInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.invoiceAction(w, r, rq, "sent", func(t, id string) (billing.Invoice, error) {
		if h.cfg.Mail == nil {
			return billing.Invoice{}, httpapi.NewProblem(http.StatusConflict, httpapi.CodeMailNotConfigured, mailNotConfiguredText)
		}
		_, err := h.cfg.Mail.Send(r.Context(), t, id)
		if errors.Is(err, mail.ErrNoRecipient) {
			err = httpapi.NewProblem(http.StatusUnprocessableEntity, httpapi.CodeValidationFailed, mailNoRecipientText)
		}
		return billing.Invoice{}, err
	})
}

// hostedURL is the finalized invoice's hosted page, "" when the portal
// has no hosted pages or no public URL.
func (h *Handler) hostedURL(ctx context.Context, tenantID string, inv billing.Invoice) (string, error) {
	if h.cfg.Hosted == nil || h.cfg.PublicURL == "" {
		return "", nil
	}
	toks, err := h.cfg.Hosted.Tokens(ctx, tenantID, inv)
	if err != nil || toks[inv.ID] == "" {
		return "", err
	}
	return strings.TrimRight(h.cfg.PublicURL, "/") + "/pay/" + toks[inv.ID], nil
}

// invoicePDF serves the finalized invoice's PDF, as the API's
// GET /api/v1/collections/invoices/{id}/pdf does.
func (h *Handler) invoicePDF(w http.ResponseWriter, r *http.Request, rq *request) error {
	inv, err := h.invoice(r, rq)
	if err != nil {
		return err
	}
	switch {
	case h.cfg.PDF == nil:
		return httpapi.NewProblem(http.StatusNotImplemented, httpapi.CodeNotImplemented, "This server draws no PDFs.")
	case !billing.Finalized(inv.Status):
		return httpapi.NewProblem(http.StatusConflict, httpapi.CodeConflict, "A draft has no PDF: finalize it first.")
	}
	link, err := h.hostedURL(r.Context(), rq.tenant.ID, inv)
	if err != nil {
		return err
	}
	doc, err := h.cfg.PDF.Collections(inv, rq.tenant.Name, link)
	if err != nil {
		return err
	}
	servePDF(w, inv.Number, doc)
	return nil
}

// servePDF writes doc as the PDF file name.pdf, shown in the browser;
// only letters, digits, "-" and "_" of name make the file's name.
func servePDF(w http.ResponseWriter, name string, doc []byte) {
	safe := strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return -1
	}, name)
	if safe == "" {
		safe = "invoice"
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="`+safe+`.pdf"`)
	w.Header().Set("Cache-Control", "private, no-store")
	_, _ = w.Write(doc)
}
