package portal

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
)

// maxSearchLen bounds the customers' search as typed.
const maxSearchLen = 254

// customerRow is a customer in the list, with what it owes.
type customerRow struct {
	billing.CustomerRecord
	Owes []amount
}

type customerList struct {
	Customers []customerRow
	Search    string
	// Next is the query of the next page, built from values checked here.
	Next template.URL
	// Partial says the tenant has more open invoices than the sums read.
	Partial bool
}

// listCustomers lists the tenant's customers on record, newest first,
// each with what its open invoices still ask for, per currency.
func (h *Handler) listCustomers(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx, tid := r.Context(), rq.membership.TenantID
	q := r.URL.Query()
	f := billing.CustomerFilter{Search: strings.TrimSpace(q.Get("q")), Before: q.Get("before"), Limit: 20}
	if len(f.Search) > maxSearchLen || (f.Before != "" && !id.Valid(id.Customer, f.Before)) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That search is not valid.")
	}
	cs, more, err := h.cfg.Customers.ListCustomers(ctx, tid, f)
	if errors.Is(err, field.ErrInvalid) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That search is not valid.")
	}
	if err != nil {
		return err
	}
	d := customerList{Search: f.Search}
	if len(cs) > 0 {
		open, partial, err := h.scanInvoices(ctx, tid, billing.ListFilter{Status: string(billing.StatusOpen)})
		if err != nil {
			return err
		}
		owes := map[string]sums{}
		for _, inv := range open {
			if inv.CustomerID == nil {
				continue
			}
			if owes[*inv.CustomerID] == nil {
				owes[*inv.CustomerID] = sums{}
			}
			owes[*inv.CustomerID][inv.Currency] += inv.AmountDue
		}
		for _, c := range cs {
			d.Customers = append(d.Customers, customerRow{CustomerRecord: c, Owes: owes[c.ID].list()})
		}
		d.Partial = partial
	}
	if more && len(cs) > 0 {
		d.Next = template.URL(url.Values{"q": {f.Search}, "before": {cs[len(cs)-1].ID}}.Encode())
	}
	return h.render(w, r, rq, http.StatusOK, "customers", "Customers", d)
}

type customerPage struct {
	Customer billing.CustomerRecord
	// Outstanding is what the customer owes, per currency.
	Outstanding []amount
	Invoices    []billing.Invoice
	// Next is the query of the older invoices' page.
	Next template.URL
}

// showCustomer shows one of the tenant's customers: its details, what it
// owes and its invoices, newest first (another tenant's is a 404 page).
func (h *Handler) showCustomer(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx, tid := r.Context(), rq.membership.TenantID
	c, err := h.cfg.Customers.CustomerByID(ctx, tid, r.PathValue("id"))
	if err != nil {
		return err
	}
	before := r.URL.Query().Get("before")
	if before != "" && !id.Valid(id.Invoice, before) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That page is not valid.")
	}
	invs, more, err := h.cfg.Invoices.List(ctx, tid, billing.ListFilter{CustomerID: c.ID, Before: before, Limit: 20})
	if err != nil {
		return err
	}
	d := customerPage{Customer: c, Invoices: invs}
	for _, o := range c.Outstanding {
		d.Outstanding = append(d.Outstanding, amount{Currency: o.Currency, Amount: o.AmountDue})
	}
	if more && len(invs) > 0 {
		d.Next = template.URL(url.Values{"before": {invs[len(invs)-1].ID}}.Encode())
	}
	return h.render(w, r, rq, http.StatusOK, "customer", c.Name, d)
}
