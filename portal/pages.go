package portal

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

type dashboardData struct {
	Entitlements []tenancy.Entitlement
	Unread       []tenancy.Notification
	Overdue      []billing.Invoice
	Plan         string
	// Money and Charts are shown to members who may read invoices;
	// Tickets to those who may read tickets.
	Money       *summary
	Collected   []chart
	Aging       []chart
	Tickets     *ticketSummary
	ShowTickets bool
}

// maxCharts is how many currencies the dashboard draws charts of; the
// KPIs list them all.
const maxCharts = 3

// dashboard shows, as far as the member's role allows: what is owed,
// overdue and collected, the charts of the last months and of the
// overdue invoices' age, the tickets waiting and at risk, usage against
// limits, unread notifications and the overdue invoices.
func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx, tid := r.Context(), rq.membership.TenantID
	now := h.now()
	var d dashboardData
	if p, ok := h.cfg.Catalog.Plan(rq.tenant.PlanID); ok {
		d.Plan = p.Name
	}
	var err error
	if rq.can(tenancy.PermEntitlementsRead) {
		if d.Entitlements, _, err = h.cfg.Entitlements.ListWithModules(ctx, tid); err != nil {
			return err
		}
	}
	if rq.can(tenancy.PermNotificationsRead) {
		if d.Unread, _, err = h.cfg.Notifications.List(ctx, tid, tenancy.NotificationFilter{UnreadOnly: true, Limit: 10}); err != nil {
			return err
		}
		if !seesMoney(rq) {
			for i := range d.Unread {
				d.Unread[i] = withoutAmounts(d.Unread[i])
			}
		}
	}
	if rq.can(tenancy.PermInvoicesRead) {
		s, err := h.receivables(ctx, tid, now)
		if err != nil {
			return err
		}
		d.Money = &s
		loc := localeOf(r)
		for i, ser := range s.Monthly[:min(len(s.Monthly), maxCharts)] {
			d.Collected = append(d.Collected, barChart("collected", "Collected per month, "+ser.Currency, s.Monthly[i],
				func(v int64) string { return money(loc, v, ser.Currency) }))
		}
		for i, ser := range s.Aging[:min(len(s.Aging), maxCharts)] {
			d.Aging = append(d.Aging, barChart("aging", "Overdue by age, "+ser.Currency, s.Aging[i],
				func(v int64) string { return money(loc, v, ser.Currency) }))
		}
		open, _, err := h.cfg.Invoices.List(ctx, tid, billing.ListFilter{Status: string(billing.StatusOpen), Limit: billing.MaxListLimit})
		if err != nil {
			return err
		}
		today := now.UTC().Format(time.DateOnly)
		for _, inv := range open {
			if inv.DueDate != "" && inv.DueDate < today {
				d.Overdue = append(d.Overdue, inv)
			}
		}
	}
	if rq.can(tenancy.PermTicketsRead) && h.modulesOn(ctx, tid, catalog.ModuleTickets) {
		ts, err := h.ticketFigures(ctx, tid, now)
		if err != nil {
			return err
		}
		d.Tickets = &ts
	}
	return h.render(w, r, rq, http.StatusOK, "dashboard", "Dashboard", d)
}

// modulesOn reports whether the tenant has module on; the dashboard
// leaves out what a switched-off module would refuse.
func (h *Handler) modulesOn(ctx context.Context, tenantID, module string) bool {
	return h.cfg.Entitlements.RequireModule(ctx, tenantID, module) == nil
}

// moneyKeys are the data of a notification that are amounts.
var moneyKeys = []string{"amount", "amount_due", "amount_paid", "total", "subtotal"}

// seesMoney reports whether the member may see amounts: the roles that
// read the tenant's invoices or the platform's invoices to it. Support
// and plain members do not.
func seesMoney(rq *request) bool {
	return rq.can(tenancy.PermInvoicesRead) || rq.can(tenancy.PermBillingRead)
}

// withoutAmounts is n as a member who may not see amounts reads it: a
// notification about money keeps its title (which names the invoice,
// never an amount) and loses its body and data.
func withoutAmounts(n tenancy.Notification) tenancy.Notification {
	for _, k := range moneyKeys {
		if _, ok := n.Data[k]; ok {
			n.Body = "The amounts are shown to members who handle billing."
			n.Data = nil
			return n
		}
	}
	return n
}

// markRead marks one of the tenant's notifications read (another
// tenant's, or no notification, is a 404 page).
func (h *Handler) markRead(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PathValue("id")
	if !strings.HasPrefix(id, "ntf_") || len(id) > 64 {
		return tenancy.ErrNotFound
	}
	if _, err := h.cfg.Notifications.MarkRead(r.Context(), rq.membership.TenantID, id); err != nil {
		return err
	}
	http.Redirect(w, r, h.cfg.BasePath+"/?done=read", http.StatusSeeOther)
	return nil
}

// markAllRead marks the tenant's unread notifications read, up to the
// newest the dashboard showed (up_to), so that what arrived since stays
// unread.
func (h *Handler) markAllRead(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := h.cfg.Notifications.MarkAllRead(r.Context(), rq.membership.TenantID, r.PostForm.Get("up_to")); err != nil {
		return err
	}
	http.Redirect(w, r, h.cfg.BasePath+"/?done=allread", http.StatusSeeOther)
	return nil
}

// moduleRow is one module on the modules page.
type moduleRow struct {
	ID, Name, Description string
	Enabled, Included     bool
	// AddOn: the plan sells it; Bought: the contract has it.
	AddOn, Bought bool
	// Switchable: the member's tenant may switch it (toggleable, and
	// included or bought), as the service decides.
	Switchable bool
}

func (h *Handler) modulesPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.renderModules(w, r, rq, http.StatusOK, nil)
}

func (h *Handler) renderModules(w http.ResponseWriter, r *http.Request, rq *request, status int, ferr error) error {
	_, states, err := h.cfg.Entitlements.ListWithModules(r.Context(), rq.membership.TenantID)
	if err != nil {
		return err
	}
	terms, err := h.cfg.Contracts.Current(r.Context(), rq.membership.TenantID)
	if err != nil {
		return err
	}
	plan, _ := h.cfg.Catalog.Plan(terms.PlanID)
	rows := make([]moduleRow, 0, len(states))
	for _, st := range states {
		row := moduleRow{ID: st.Module, Name: st.Module, Enabled: st.Enabled,
			Included: slices.Contains(plan.Modules, st.Module), Bought: terms.HasAddOn(st.Module)}
		if m, ok := h.cfg.Catalog.Module(st.Module); ok {
			row.Name, row.Description = m.Name, m.Description
		}
		_, row.AddOn = plan.AddOn(st.Module)
		// An add-on the contract lacks cannot be switched on: it is bought
		// through a contract request, which the page links to instead.
		row.Switchable = h.cfg.Catalog.Toggleable(plan, st.Module) && (row.Included || row.Bought)
		rows = append(rows, row)
	}
	return h.renderForm(w, r, rq, status, "modules", "Modules", modulesData{Plan: plan, Modules: rows}, ferr)
}

type modulesData struct {
	Plan    catalog.Plan
	Modules []moduleRow
}

func (h *Handler) toggleModule(w http.ResponseWriter, r *http.Request, rq *request) error {
	module := r.PostForm.Get("module")
	enabled, perr := strconv.ParseBool(r.PostForm.Get("enabled"))
	if perr != nil {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "enabled must be true or false")
	}
	_, _, err := h.cfg.Modules.Toggle(r.Context(), rq.membership.TenantID, rq.membership.Role, module, enabled)
	if err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/modules?done=toggled", http.StatusSeeOther)
		return nil
	}
	if statusOf(err) >= 500 {
		return err
	}
	// The form has no field to mark: say what was refused, and why, above
	// the list.
	var ie *field.InvalidError
	if errors.As(err, &ie) {
		name := module
		if m, ok := h.cfg.Catalog.Module(module); ok {
			name = m.Name
		}
		var why []string
		for _, fe := range ie.Errors() {
			why = append(why, fe.Message)
		}
		err = httpapi.NewProblem(statusOf(err), httpapi.CodeValidationFailed,
			"You cannot switch "+name+": "+strings.Join(why, "; ")+".")
	}
	return h.renderModules(w, r, rq, statusOf(err), err)
}

// contractForm is the change request form, also used to preview it.
type contractForm struct {
	Type, PlanID, ModuleID, Seats, Effective, Note string
}

type contractsData struct {
	Requests []contract.Request
	Form     contractForm
	Preview  *contract.Preview
	Plans    []catalog.Plan
	Modules  []catalog.Module
	Current  string
}

func (h *Handler) contractsPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	f := contractForm{Type: q.Get("type"), PlanID: q.Get("plan_id"), ModuleID: q.Get("module_id"),
		Seats: q.Get("seats"), Effective: q.Get("effective"), Note: q.Get("note")}
	var perr error
	var prev *contract.Preview
	if q.Get("preview") != "" && rq.can(tenancy.PermBillingPreview) {
		in, err := f.previewInput()
		if err == nil {
			var p contract.Preview
			if p, err = h.cfg.Contracts.Preview(r.Context(), rq.membership.TenantID, in); err == nil {
				prev = &p
			}
		}
		if err != nil && statusOf(err) >= 500 {
			return err
		}
		perr = err
	}
	return h.renderContracts(w, r, rq, http.StatusOK, f, prev, perr)
}

func (h *Handler) renderContracts(w http.ResponseWriter, r *http.Request, rq *request, status int, f contractForm, prev *contract.Preview, ferr error) error {
	reqs, _, err := h.cfg.Contracts.Requests(r.Context(), rq.membership.TenantID, contract.Filter{Limit: 50})
	if err != nil {
		return err
	}
	if f.Effective == "" {
		f.Effective = string(contract.EffectiveNextPeriod)
	}
	d := contractsData{Requests: reqs, Form: f, Preview: prev, Plans: h.cfg.Catalog.Plans, Modules: catalogModules(h.cfg.Catalog),
		Current: rq.tenant.PlanID}
	return h.renderForm(w, r, rq, status, "contracts", "Contract", d, ferr)
}

func optional(s string) *string {
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	return &s
}

func (f contractForm) seats() (*int, error) {
	if strings.TrimSpace(f.Seats) == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(f.Seats))
	if err != nil {
		return nil, fieldError("seats", "must be a whole number")
	}
	return &n, nil
}

func (f contractForm) submitInput() (contract.SubmitInput, error) {
	in := contract.SubmitInput{Type: f.Type, Effective: f.Effective, Note: f.Note}
	switch contract.ChangeType(f.Type) {
	case contract.ChangePlan:
		in.PlanID = optional(f.PlanID)
	case contract.AddModule, contract.RemoveModule:
		in.ModuleID = optional(f.ModuleID)
	case contract.ChangeSeats:
		n, err := f.seats()
		if err != nil {
			return in, err
		}
		in.Seats = n
	}
	return in, nil
}

// previewInput prices the change the form describes.
func (f contractForm) previewInput() (contract.PreviewInput, error) {
	in := contract.PreviewInput{Effective: optional(f.Effective)}
	switch contract.ChangeType(f.Type) {
	case contract.ChangePlan:
		in.PlanID = optional(f.PlanID)
	case contract.ChangeSeats:
		n, err := f.seats()
		if err != nil {
			return in, err
		}
		in.Seats = n
	}
	return in, nil
}

func (h *Handler) submitContract(w http.ResponseWriter, r *http.Request, rq *request) error {
	p := r.PostForm
	f := contractForm{Type: p.Get("type"), PlanID: p.Get("plan_id"), ModuleID: p.Get("module_id"),
		Seats: p.Get("seats"), Effective: p.Get("effective"), Note: p.Get("note")}
	in, err := f.submitInput()
	if err == nil {
		if _, err = h.cfg.Contracts.Submit(r.Context(), rq.membership.TenantID, rq.principal.User.ID, in); err == nil {
			http.Redirect(w, r, h.cfg.BasePath+"/contracts?done=submitted", http.StatusSeeOther)
			return nil
		}
	}
	if statusOf(err) >= 500 {
		return err
	}
	return h.renderContracts(w, r, rq, statusOf(err), f, nil, err)
}

func (h *Handler) cancelContract(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PathValue("id")
	if !strings.HasPrefix(id, "ccr_") || len(id) > 64 {
		return contract.ErrRequestNotFound
	}
	_, err := h.cfg.Contracts.Cancel(r.Context(), rq.membership, id)
	if err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/contracts?done=cancelled", http.StatusSeeOther)
		return nil
	}
	if s := statusOf(err); s >= 500 || s == http.StatusNotFound {
		return err
	}
	return h.renderContracts(w, r, rq, statusOf(err), contractForm{}, nil, err)
}

// catalogModules lists every module of the catalog, app by app.
func catalogModules(cat *catalog.Catalog) []catalog.Module {
	var out []catalog.Module
	for _, a := range cat.Apps {
		out = append(out, a.Modules...)
	}
	return out
}

// fieldError is an *field.InvalidError on one field of a form.
func fieldError(path, msg string) error { return field.NewInvalidError(path, field.Invalid, msg) }
