package portal

import (
	"context"
	"net/http"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The dashboard: what the tenant is owed and collected, its tickets, its
// usage and its unread notifications, as far as the member's role allows.

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
	notificationID := r.PathValue("id")
	if !id.Valid(id.Notification, notificationID) {
		return tenancy.ErrNotFound
	}
	if _, err := h.cfg.Notifications.MarkRead(r.Context(), rq.membership.TenantID, notificationID); err != nil {
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
