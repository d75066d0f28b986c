package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
)

// mustPlatformInvoice creates a test tenant and moves its clock past the
// end of the current month, which generates the platform's open invoice
// for the month; it returns the invoice.
func (e *dbEnv) mustPlatformInvoice(tb testing.TB) contract.Invoice {
	tb.Helper()
	ctx := context.Background()
	tn, err := e.tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{
		Slug: "acme-test", Name: "Acme (test)", PlanID: catalog.PlanGrowth, Test: true})
	if err != nil {
		tb.Fatal(err)
	}
	_, _, end := tenancy.Period(time.Now())
	if _, err := e.contracts.AdvanceClock(ctx, tn.ID, contract.ClockInput{AdvanceTo: end.Add(time.Hour)}); err != nil {
		tb.Fatalf("AdvanceClock: %v", err)
	}
	invs, _, err := e.contracts.AllInvoices(ctx, contract.InvoiceFilter{TenantID: tn.ID})
	if err != nil || len(invs) != 1 || invs[0].Status != contract.InvoiceOpen || invs[0].Total < 2 {
		tb.Fatalf("invoices after the month end: %+v, %v; want one open invoice of 2 or more", invs, err)
	}
	return invs[0]
}

// TestPlatformInvoicePayments: a provider's payment naming a platform
// invoice ("pin_…") is booked on it once, on the webhook's transaction;
// what it cannot take is unmatched with the reason.
func TestPlatformInvoicePayments(t *testing.T) {
	eachDB(t, func(t *testing.T, e *dbEnv) {
		ctx := context.Background()
		inv := e.mustPlatformInvoice(t)
		cur := inv.Currency
		steps := []struct {
			name     string
			body     []byte
			outcome  webhook.Outcome
			reason   string // a part of the unmatched reason
			dup      bool
			paid     int64
			status   contract.InvoiceStatus
			notified bool
		}{
			{name: "RefundRefused", body: event("evt_p_ref", "payment.refunded", inv.ID, 100, cur),
				outcome: webhook.OutcomeUnmatched, reason: "payments only", status: contract.InvoiceOpen},
			{name: "FailureRefused", body: event("evt_p_fail", "payment.failed", inv.ID, 100, cur),
				outcome: webhook.OutcomeUnmatched, reason: "payments only", status: contract.InvoiceOpen},
			{name: "UnknownInvoice", body: event("evt_p_unk", "payment.succeeded", "pin_01jd0000000000000000000000", 100, cur),
				outcome: webhook.OutcomeUnmatched, reason: "not found", status: contract.InvoiceOpen},
			{name: "OtherCurrency", body: event("evt_p_cur", "payment.succeeded", inv.ID, 100, "JPY"),
				outcome: webhook.OutcomeUnmatched, reason: "currency", status: contract.InvoiceOpen},
			{name: "ZeroAmount", body: event("evt_p_zero", "payment.succeeded", inv.ID, 0, cur),
				outcome: webhook.OutcomeUnmatched, reason: "amount", status: contract.InvoiceOpen},
			{name: "PartPayment", body: event("evt_p_part", "payment.succeeded", inv.ID, inv.Total-1, strings.ToLower(cur)),
				outcome: webhook.OutcomeApplied, paid: inv.Total - 1, status: contract.InvoiceOpen, notified: true},
			{name: "RedeliveryCountsOnce", body: event("evt_p_part", "payment.succeeded", inv.ID, inv.Total-1, cur),
				outcome: webhook.OutcomeApplied, dup: true, paid: inv.Total - 1, status: contract.InvoiceOpen},
			{name: "RestPays", body: event("evt_p_rest", "payment.succeeded", inv.ID, 1, cur),
				outcome: webhook.OutcomeApplied, paid: inv.Total, status: contract.InvoicePaid, notified: true},
			{name: "PaidTakesNoMore", body: event("evt_p_more", "payment.succeeded", inv.ID, 1, cur),
				outcome: webhook.OutcomeUnmatched, reason: "is paid", paid: inv.Total, status: contract.InvoicePaid},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				before := e.platformNotifications(t, inv.TenantID)
				res, err := e.svc.Handle(ctx, st.body)
				if err != nil {
					t.Fatalf("Handle: %v", err)
				}
				if res.Outcome != st.outcome || res.Duplicate != st.dup || !strings.Contains(res.Reason, st.reason) {
					t.Fatalf("Handle = %+v; want outcome %s, duplicate %v, reason containing %q", res, st.outcome, st.dup, st.reason)
				}
				if st.outcome == webhook.OutcomeApplied && res.TenantID != inv.TenantID {
					t.Errorf("tenant = %q, want %q", res.TenantID, inv.TenantID)
				}
				got, err := e.contracts.Invoice(ctx, inv.TenantID, inv.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.AmountPaid != st.paid || got.Status != st.status || got.AmountDue != map[bool]int64{true: inv.Total - st.paid}[st.status == contract.InvoiceOpen] {
					t.Errorf("invoice: paid %d, due %d, status %s; want paid %d, status %s", got.AmountPaid, got.AmountDue, got.Status, st.paid, st.status)
				}
				if st.status == contract.InvoicePaid && (got.PaidAt == nil || got.Reference != "pay_evt_p_rest") {
					t.Errorf("paid invoice: paid_at %v, reference %q; want a time and the provider's payment id", got.PaidAt, got.Reference)
				}
				after := e.platformNotifications(t, inv.TenantID)
				if (after > before) != st.notified {
					t.Errorf("notifications %d → %d; want a new one: %v", before, after, st.notified)
				}
			})
		}
	})
}

// platformNotifications counts the tenant's payment notifications.
func (e *dbEnv) platformNotifications(tb testing.TB, tenantID string) int {
	tb.Helper()
	ns, _, err := e.tenancy.Notifications.List(context.Background(), tenantID, tenancy.NotificationFilter{Limit: 100})
	if err != nil {
		tb.Fatalf("notifications: %v", err)
	}
	n := 0
	for _, x := range ns {
		if x.Type == webhook.TypePaymentSucceeded {
			n++
		}
	}
	return n
}
