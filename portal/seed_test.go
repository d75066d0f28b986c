package portal_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// seeded is what seedCollections made.
type seeded struct {
	customer billing.CustomerRecord
	// invoice is open and overdue, part paid by a transfer (WIRE-42).
	invoice billing.Invoice
	// platformInvoice is the platform's invoice to the tenant for the
	// current period.
	platformInvoice contract.Invoice
}

// seedCollections gives tenantID a few months of business, as the
// screenshots and the accessibility checks want it: two customers on
// record, invoices paid in each of the last months (the collected chart),
// overdue ones of several ages (the aging chart), and one part paid.
func seedCollections(t *testing.T, app *tenantkit.App, tenantID string) seeded {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	var s seeded
	var err error
	s.customer, err = app.Billing.CreateCustomer(ctx, tenantID, billing.CreateCustomerInput{Name: "Ada Lovelace", Email: "ada@example.com",
		Address: &billing.Address{Line1: "12 Analytical Row", City: "London", PostalCode: "NW1 2DB", Country: "GB"}, TaxID: "GB123456789"})
	if err != nil {
		t.Fatal(err)
	}
	grace, err := app.Billing.CreateCustomer(ctx, tenantID, billing.CreateCustomerInput{Name: "Grace Hopper", Email: "grace@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	create := func(cus string, amount int64, due time.Time) billing.Invoice {
		t.Helper()
		inv, err := app.Billing.Create(ctx, tenantID, billing.CreateInvoiceInput{CustomerID: cus, Currency: "USD",
			DueDate: due.Format(time.DateOnly), LineItems: []billing.LineItemInput{
				{Description: "Consulting, " + due.Format("January"), Quantity: 4, UnitAmount: amount / 4, TaxRateBps: 1000}}})
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}
	pay := func(inv billing.Invoice, amount int64, at time.Time, method, ref string) {
		t.Helper()
		if _, _, err := app.Payments.Record(ctx, tenantID, inv.ID, billing.RecordPaymentInput{
			Amount: amount, Method: method, Reference: ref, ReceivedAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	for m := 9; m >= 0; m-- {
		// Mid-month (or today, if earlier), so that each month has one.
		at := time.Date(now.Year(), now.Month()-time.Month(m), min(15, now.Day()), 10, 0, 0, 0, time.UTC)
		inv := create(grace.ID, int64(80000+m*7000), at)
		pay(inv, inv.Total, at.Add(-time.Hour), billing.MethodCard, "")
	}
	for _, days := range []int{12, 45, 75, 130} {
		create(grace.ID, int64(20000+days*100), now.AddDate(0, 0, -days))
	}
	s.invoice = create(s.customer.ID, 120000, now.AddDate(0, 0, -20))
	pay(s.invoice, 50000, now.Add(-2*time.Hour), billing.MethodBankTransfer, "WIRE-42")
	create(s.customer.ID, 64000, now.AddDate(0, 0, 14))
	s.platformInvoice = mustPlatformInvoice(t, app, tenantID)
	return s
}

// mustPlatformInvoice runs the platform's billing at the end of the
// tenant's current period, which generates its invoice for the period.
func mustPlatformInvoice(t *testing.T, app *tenantkit.App, tenantID string) contract.Invoice {
	t.Helper()
	ctx := context.Background()
	terms, err := app.Contracts.Current(ctx, tenantID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Contracts.RunBilling(ctx, terms.PeriodEnd.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	invs, _, err := app.Contracts.Invoices(ctx, tenantID, contract.InvoiceFilter{TenantID: tenantID})
	if err != nil || len(invs) == 0 {
		t.Fatalf("no platform invoice after the billing run: %v", err)
	}
	return invs[0]
}
