package contract

import (
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/tenancy"
)

// updatedNotification is the contract_request.updated notification that
// tells a tenant where its request now stands.
func updatedNotification(cat *catalog.Catalog, req Request) tenancy.NewNotification {
	what := describe(cat, req)
	data := map[string]any{
		"contract_request_id": req.ID,
		"type":                string(req.Type),
		"status":              string(req.Status),
		"effective":           string(req.Effective),
	}
	if req.EffectiveAt != nil {
		data["effective_at"] = req.EffectiveAt.Format(time.RFC3339)
	}
	if req.Reason != "" {
		data["reason"] = req.Reason
	}
	n := tenancy.NewNotification{Type: tenancy.NotificationContractRequestUpdated, Data: data}
	switch req.Status {
	case RequestApplied:
		n.Title = "Contract change applied"
		n.Body = fmt.Sprintf("Your request to %s (%s) has been applied.", what, req.ID)
	case RequestApproved:
		n.Title = "Contract change approved"
		n.Body = fmt.Sprintf("Your request to %s (%s) was approved and takes effect on %s.",
			what, req.ID, req.EffectiveAt.Format("2 January 2006"))
	case RequestRejected:
		n.Title = "Contract change rejected"
		n.Body = fmt.Sprintf("Your request to %s (%s) was rejected.", what, req.ID)
	case RequestCancelled:
		n.Title = "Contract change cancelled"
		n.Body = fmt.Sprintf("The request to %s (%s) was cancelled.", what, req.ID)
	default:
		n.Title = "Contract change " + string(req.Status)
		n.Body = fmt.Sprintf("Your request to %s (%s) is %s.", what, req.ID, req.Status)
	}
	if req.Reason != "" {
		n.Body += " Reason: " + field.Truncate(req.Reason, MaxReasonLen)
	}
	return n
}

// invoiceNotification tells the tenant its platform invoice was generated
// ("created") or is past its due date ("overdue").
func invoiceNotification(inv Invoice, what string) tenancy.NewNotification {
	total := billing.FormatMoney(inv.Total, inv.Currency)
	due := billing.FormatMoney(inv.AmountDue, inv.Currency)
	period := inv.PeriodStart.Format("January 2006")
	n := tenancy.NewNotification{
		Data: map[string]any{"platform_invoice_id": inv.ID, "number": inv.Number, "total": inv.Total,
			"amount_due": inv.AmountDue, "currency": inv.Currency, "due_date": inv.DueDate.Format(time.RFC3339)},
		Key: "platform_invoice." + what + ":" + inv.ID,
	}
	if what == "overdue" {
		n.Type, n.Title = tenancy.NotificationPlatformInvoiceOverdue, fmt.Sprintf("Invoice %d is overdue", inv.Number)
		n.Body = fmt.Sprintf("Your invoice for %s (%s) was due on %s; %s is still due.",
			period, inv.ID, inv.DueDate.Format("2 January 2006"), due)
		return n
	}
	n.Type, n.Title = tenancy.NotificationPlatformInvoiceCreated, fmt.Sprintf("Invoice %d for %s", inv.Number, period)
	n.Body = fmt.Sprintf("Your invoice for %s (%s) totals %s, due on %s.", period, inv.ID, total, inv.DueDate.Format("2 January 2006"))
	if inv.Status == InvoicePaid {
		n.Body = fmt.Sprintf("Your invoice for %s (%s) totals %s: nothing is due.", period, inv.ID, total)
	}
	return n
}
