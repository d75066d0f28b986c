package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The hosted invoice page (SPEC §18): every finalized invoice has a
// hosted_url, {Config.PublicURL}/pay/{token}, where its customer sees it
// without signing in; the tenant rotates the URL to kill a leaked one.
// billing.Hosted explains the tokens; hosted_page.go renders the page.

var _ HostedInvoices = (*billing.Hosted)(nil)

// HostedInvoices issues, rotates and resolves the hosted pages' tokens
// (a *billing.Hosted).
type HostedInvoices interface {
	// Tokens returns the current token of each finalized invoice among
	// invs, the tenant's.
	Tokens(ctx context.Context, tenantID string, invs ...billing.Invoice) (map[string]string, error)
	// Rotate gives the invoice a new token, the old one dead at once.
	Rotate(ctx context.Context, tenantID, invoiceID string) (string, error)
	// Invoice returns the invoice whose current token is token;
	// billing.ErrNotFound for any other.
	Invoice(ctx context.Context, token string) (billing.Invoice, error)
}

// hostedEndpoints are the rows of the hosted page and of its rotation.
func (a *API) hostedEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "POST", Path: "/api/v1/collections/invoices/{id}/hosted-url/rotate", Group: GroupCollections,
			Tenant: true, Permission: tenancy.PermInvoicesWrite, Handle: With(a.cfg.Services.Hosted, a.rotateHostedURL)},
		{Method: "GET", Path: "/pay/{token}", Group: GroupHosted, Public: true, OwnRateLimit: true,
			Handle: With(a.cfg.Services.Hosted, a.hostedPage)},
		{Method: "GET", Path: "/pay/{token}/pdf", Group: GroupHosted, Public: true, OwnRateLimit: true,
			Handle: With(a.cfg.Services.Hosted, a.hostedPDF)},
	}
}

// invoiceJSON is an invoice as the API answers it: with its hosted_url
// once finalized (and when the server has a public URL and hosted pages).
type invoiceJSON struct {
	billing.Invoice
	HostedURL string `json:"hosted_url,omitempty"`
}

// hostedURL is the page's URL for token.
func (a *API) hostedURL(token string) string {
	return strings.TrimRight(a.cfg.PublicURL, "/") + "/pay/" + token
}

// withHostedURLs returns invs with their hosted URLs.
func (a *API) withHostedURLs(r *http.Request, tenantID string, invs ...billing.Invoice) ([]invoiceJSON, error) {
	out := make([]invoiceJSON, len(invs))
	for i, inv := range invs {
		out[i].Invoice = inv
	}
	if a.cfg.Services.Hosted == nil || a.cfg.PublicURL == "" {
		return out, nil
	}
	tokens, err := a.cfg.Services.Hosted.Tokens(r.Context(), tenantID, invs...)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if tok, ok := tokens[out[i].ID]; ok {
			out[i].HostedURL = a.hostedURL(tok)
		}
	}
	return out, nil
}

// writeInvoice answers inv, with its hosted URL.
func (a *API) writeInvoice(w http.ResponseWriter, r *http.Request, status int, tenantID string, inv billing.Invoice) error {
	out, err := a.withHostedURLs(r, tenantID, inv)
	if err != nil {
		return err
	}
	WriteJSON(w, status, out[0])
	return nil
}

// hostedURLResponse is the answer to a rotation.
type hostedURLResponse struct {
	HostedURL string `json:"hosted_url"`
}

// rotateHostedURL answers POST …/invoices/{id}/hosted-url/rotate: the old
// URL answers 404 from now on; the new one is returned. A draft has no
// page (409).
func (a *API) rotateHostedURL(w http.ResponseWriter, r *http.Request) error {
	invoiceID, err := PathID(r, id.Invoice, "invoice")
	if err != nil {
		return err
	}
	if a.cfg.PublicURL == "" {
		return NewProblem(http.StatusNotImplemented, CodeNotImplemented, "this server has no public URL for hosted invoice pages")
	}
	m, _ := MembershipFrom(r.Context())
	tok, err := a.cfg.Services.Hosted.Rotate(r.Context(), m.TenantID, invoiceID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, hostedURLResponse{HostedURL: a.hostedURL(tok)})
	return nil
}

// hostedPage answers GET /pay/{token} with the invoice's page, in HTML:
// 404 for any token that is not an invoice's current one, 429 beyond the
// page's own per-IP budget (Config.HostedRateLimiter).
func (a *API) hostedPage(w http.ResponseWriter, r *http.Request) error {
	inv, tenantName, ok, err := a.hostedInvoice(w, r)
	if !ok || err != nil {
		return err
	}
	view := pageView{Invoice: inv, Locale: invoiceLocale(inv), TenantName: tenantName}
	if a.cfg.InvoicePDF != nil {
		view.PDFURL = "/pay/" + url.PathEscape(r.PathValue("token")) + "/pdf"
	}
	if a.cfg.Services.Settings != nil {
		st, err := a.cfg.Services.Settings.Get(r.Context(), inv.TenantID)
		if err != nil {
			return err
		}
		view.Settings = st
	}
	return writePage(w, http.StatusOK, invoicePage(view))
}

// hostedPDF answers GET /pay/{token}/pdf: the hosted invoice's PDF, under
// the page's token, budget and answers (the 404 and 429 pages); 404 as
// well on a server that draws no PDFs.
func (a *API) hostedPDF(w http.ResponseWriter, r *http.Request) error {
	inv, tenantName, ok, err := a.hostedInvoice(w, r)
	if !ok || err != nil {
		return err
	}
	if a.cfg.InvoicePDF == nil {
		return writePage(w, http.StatusNotFound, messagePage("Not found", "This invoice has no PDF here."))
	}
	link := ""
	if a.cfg.PublicURL != "" {
		link = a.hostedURL(r.PathValue("token"))
	}
	pdf, err := a.cfg.InvoicePDF.Collections(inv, tenantName, link)
	if err != nil {
		return err
	}
	// The page's Content-Security-Policy would keep a browser's PDF
	// viewer from drawing the document.
	w.Header().Del("Content-Security-Policy")
	writePDF(w, inv.Number, pdf)
	return nil
}

// hostedInvoice is what the hosted page and its PDF share: the page's
// headers, its per-IP budget, and the invoice of the token with its
// tenant's name. ok is false when it has answered already (the 404 or
// 429 page).
func (a *API) hostedInvoice(w http.ResponseWriter, r *http.Request) (inv billing.Invoice, tenantName string, ok bool, err error) {
	setPageHeaders(w)
	d, err := a.hostedLimiter.Allow(r.Context(), "pay:"+a.clientIP.ip(r))
	if err == nil {
		setRateLimitHeaders(w, d, "hosted")
		if !d.Allowed {
			a.metrics.limited("pay")
			return inv, "", false, writePage(w, http.StatusTooManyRequests, messagePage("Too many requests",
				"Too many requests from your network. Please wait a moment and reload the page."))
		}
	}
	inv, err = a.cfg.Services.Hosted.Invoice(r.Context(), r.PathValue("token"))
	if errors.Is(err, billing.ErrNotFound) {
		return inv, "", false, writePage(w, http.StatusNotFound, messagePage("Invoice not found",
			"This link is not valid. It may have been replaced by a newer one: ask the sender for the current link."))
	}
	if err != nil {
		return inv, "", false, err
	}
	t, err := a.cfg.Services.Directory.Tenant(r.Context(), inv.TenantID)
	if err != nil {
		return inv, "", false, err
	}
	return inv, t.Name, true, nil
}

// invoiceLocale is the locale the hosted page formats inv's amounts and
// dates for: its customer's (copied from the customer on record at
// finalize), billing.DefaultLocale when it has none.
func invoiceLocale(inv billing.Invoice) string {
	if inv.Customer.Locale != "" {
		return inv.Customer.Locale
	}
	return billing.DefaultLocale
}
