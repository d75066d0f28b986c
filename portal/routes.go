package portal

import (
	"errors"
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// access says what a page needs before its handler runs.
type access int

const (
	public   access = iota // anyone, signed in or not
	signedIn               // a session; no tenant needed
	inTenant               // a session acting for a tenant it is a member of
)

// route is one row of the portal's route table.
type route struct {
	method, path string
	access       access
	// permission the member's role (and the session's scopes) must hold.
	permission tenancy.Permission
	handle     func(w http.ResponseWriter, r *http.Request, rq *request) error
}

func (h *Handler) table() []route {
	return []route{
		{"GET", "/static/style.css", public, "", h.stylesheet},
		{"GET", "/login", public, "", h.loginPage},
		{"POST", "/login", public, "", h.login},
		{"GET", "/signin", public, "", h.signinHelp},
		{"POST", "/logout", signedIn, "", h.logout},
		{"GET", "/tenants", signedIn, "", h.tenantsPage},
		{"POST", "/tenants", signedIn, "", h.selectTenant},

		{"GET", "/{$}", inTenant, "", h.dashboard},
		{"GET", "/invoices", inTenant, tenancy.PermInvoicesRead, h.listInvoices},
		{"GET", "/invoices/new", inTenant, tenancy.PermInvoicesWrite, h.newInvoice},
		{"POST", "/invoices", inTenant, tenancy.PermInvoicesWrite, h.createInvoice},
		{"GET", "/invoices/{id}", inTenant, tenancy.PermInvoicesRead, h.showInvoice},
		{"POST", "/invoices/{id}/finalize", inTenant, tenancy.PermInvoicesWrite, h.finalizeInvoice},
		{"GET", "/invoices/{id}/void", inTenant, tenancy.PermInvoicesWrite, h.confirmVoid},
		{"POST", "/invoices/{id}/void", inTenant, tenancy.PermInvoicesWrite, h.voidInvoice},
		{"GET", "/invoices/{id}/uncollectible", inTenant, tenancy.PermInvoicesWrite, h.confirmWriteOff},
		{"POST", "/invoices/{id}/uncollectible", inTenant, tenancy.PermInvoicesWrite, h.writeOffInvoice},
		{"GET", "/invoices/{id}/delete", inTenant, tenancy.PermInvoicesWrite, h.confirmDeleteInvoice},
		{"POST", "/invoices/{id}/delete", inTenant, tenancy.PermInvoicesWrite, h.deleteInvoice},
		{"POST", "/invoices/{id}/payments", inTenant, tenancy.PermInvoicesWrite, h.payInvoice},
		{"POST", "/invoices/{id}/send", inTenant, tenancy.PermInvoicesWrite, h.sendInvoice},
		{"GET", "/invoices/{id}/pdf", inTenant, tenancy.PermInvoicesRead, h.invoicePDF},
		{"GET", "/customers", inTenant, tenancy.PermInvoicesRead, h.listCustomers},
		{"GET", "/customers/{id}", inTenant, tenancy.PermInvoicesRead, h.showCustomer},
		{"GET", "/billing", inTenant, tenancy.PermBillingRead, h.billingPage},
		{"GET", "/billing/invoices/{id}/pdf", inTenant, tenancy.PermBillingRead, h.platformInvoicePDF},
		{"GET", "/tickets", inTenant, tenancy.PermTicketsRead, h.listTickets},
		{"GET", "/tickets/new", inTenant, tenancy.PermTicketsWrite, h.newTicket},
		{"POST", "/tickets", inTenant, tenancy.PermTicketsWrite, h.createTicket},
		{"GET", "/tickets/{id}", inTenant, tenancy.PermTicketsRead, h.showTicket},
		{"POST", "/tickets/{id}/comments", inTenant, tenancy.PermTicketsWrite, h.commentTicket},
		{"POST", "/tickets/{id}/status", inTenant, tenancy.PermTicketsWrite, h.moveTicket},
		{"POST", "/tickets/{id}/satisfaction", inTenant, tenancy.PermTicketsWrite, h.rateTicket},
		{"POST", "/notifications/{id}/read", inTenant, tenancy.PermNotificationsRead, h.markRead},
		{"POST", "/notifications/read-all", inTenant, tenancy.PermNotificationsRead, h.markAllRead},
		{"GET", "/modules", inTenant, tenancy.PermEntitlementsRead, h.modulesPage},
		{"POST", "/modules", inTenant, tenancy.PermEntitlementsManage, h.toggleModule},
		{"GET", "/contracts", inTenant, tenancy.PermContractsRead, h.contractsPage},
		{"POST", "/contracts", inTenant, tenancy.PermContractsSubmit, h.submitContract},
		{"POST", "/contracts/{id}/cancel", inTenant, tenancy.PermContractsSubmit, h.cancelContract},
		{"GET", "/events", inTenant, tenancy.PermEventsRead, h.listEvents},
		{"GET", "/events/{id}", inTenant, tenancy.PermEventsRead, h.showEvent},
		{"GET", "/webhooks", inTenant, tenancy.PermWebhooksManage, h.listWebhooks},
		{"GET", "/webhooks/new", inTenant, tenancy.PermWebhooksManage, h.newWebhook},
		{"POST", "/webhooks", inTenant, tenancy.PermWebhooksManage, h.createWebhook},
		{"GET", "/webhooks/{id}", inTenant, tenancy.PermWebhooksManage, h.showWebhook},
		{"POST", "/webhooks/{id}", inTenant, tenancy.PermWebhooksManage, h.updateWebhook},
		{"POST", "/webhooks/{id}/rotate-secret", inTenant, tenancy.PermWebhooksManage, h.rotateWebhook},
		{"POST", "/webhooks/{id}/test", inTenant, tenancy.PermWebhooksManage, h.testWebhook},
		{"GET", "/webhooks/{id}/delete", inTenant, tenancy.PermWebhooksManage, h.confirmDeleteWebhook},
		{"POST", "/webhooks/{id}/delete", inTenant, tenancy.PermWebhooksManage, h.deleteWebhook},
		{"POST", "/webhooks/{id}/deliveries/{delivery_id}/retry", inTenant, tenancy.PermWebhooksManage, h.retryDelivery},
	}
}

// routes puts the table on a ServeMux under BasePath; what no route takes
// is a 404 page.
func (h *Handler) routes() *http.ServeMux {
	mux := http.NewServeMux()
	base := h.cfg.BasePath
	for _, rt := range h.table() {
		mux.Handle(rt.method+" "+base+rt.path, h.wrap(rt, base+strings.TrimSuffix(rt.path, "{$}")))
	}
	mux.Handle(base, http.RedirectHandler(base+"/", http.StatusFound))
	mux.HandleFunc(base+"/", func(w http.ResponseWriter, r *http.Request) {
		rq, _ := h.session(w, r)
		h.fail(w, r, rq, httpapi.NewProblem(http.StatusNotFound, httpapi.CodeNotFound, "There is no page at this address."))
	})
	return mux
}

// wrap runs the checks of rt's row, then its handler, and renders what it
// returns as an error page. It first names the request's route template
// (the row's path under BasePath), so that the host's access log and
// metrics (httpapi's Wrap) count it as "GET /portal/invoices/{id}", not
// as unmatched.
func (h *Handler) wrap(rt route, template string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.NameRoute(r, rt.method, template)
		r.Body = http.MaxBytesReader(w, r.Body, 256<<10)
		rq, err := h.session(w, r)
		if err == nil && rq.principal != nil {
			r = r.WithContext(tenancy.WithActor(r.Context(), rq.actor(r)))
		}
		if err == nil {
			err = h.check(w, r, rq, rt)
		}
		if err == nil {
			err = rt.handle(w, r, rq)
		}
		if errors.Is(err, errRedirected) {
			return
		}
		if err != nil {
			h.fail(w, r, rq, err)
		}
	})
}

// errRedirected: the check answered with a redirect; nothing more to do.
var errRedirected = errors.New("redirected")

// check enforces rt's row: a session (else the sign-in help), the CSRF
// token on every POST, a tenant, and the permission.
func (h *Handler) check(w http.ResponseWriter, r *http.Request, rq *request, rt route) error {
	if rt.access == public {
		if r.Method == http.MethodPost {
			return h.cfg.CSRF.Check(r, rq.binding())
		}
		return nil
	}
	if rq.principal == nil {
		if r.Method == http.MethodGet {
			http.Redirect(w, r, h.cfg.BasePath+"/signin", http.StatusSeeOther)
			return errRedirected
		}
		return httpapi.NewProblem(http.StatusUnauthorized, httpapi.CodeUnauthenticated, "Your session has ended. Sign in again with a new link.")
	}
	if r.Method == http.MethodPost {
		if err := h.cfg.CSRF.Check(r, rq.binding()); err != nil {
			return err
		}
	}
	if rt.access == signedIn {
		return nil
	}
	if err := h.resolveTenant(r, rq); err != nil {
		if errors.Is(err, tenancy.ErrTenantNotSelected) && r.Method == http.MethodGet {
			http.Redirect(w, r, h.cfg.BasePath+"/tenants", http.StatusSeeOther)
			return errRedirected
		}
		return err
	}
	if rt.permission != "" && !rq.can(rt.permission) {
		return httpapi.NewProblem(http.StatusForbidden, httpapi.CodeForbidden,
			"Your role in this tenant does not allow this ("+string(rt.permission)+").")
	}
	return nil
}
