package webhook_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
	"github.com/tenantkit/tenantkit/webhook/bunstore"
)

// dbEnv is the webhook service wired as the server wires it, on a real
// database: Bun stores, the billing and tenancy services, one Transactor.
type dbEnv struct {
	db       *bun.DB
	tx       tenantkit.Transactor
	tenancy  *tenancy.Services
	billing  *billing.Service
	payments *billing.Ledger
	// contracts keeps the platform's invoices to its tenants ("pin_…").
	contracts *contract.Service
	store     webhook.Store
	svc       *webhook.Service
	tenantID  string
}

// eachDB runs fn on SQLite and Postgres, each with a fresh migrated
// database holding one tenant.
func eachDB(t *testing.T, fn func(t *testing.T, e *dbEnv)) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := &dbEnv{db: db, tx: tenantkit.NewTransactor(db), tenancy: app.Tenancy, billing: app.Billing,
			payments: app.Payments, contracts: app.Contracts, store: bunstore.New(db), svc: app.Webhooks}
		tn, err := e.tenancy.Directory.CreateTenant(context.Background(), tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatal(err)
		}
		e.tenantID = tn.ID
		fn(t, e)
	})
}

// newService builds a webhook service on e's database with the given
// store and notifier (tests swap in failing ones).
func (e *dbEnv) newService(store webhook.Store, notifier webhook.Notifier) *webhook.Service {
	return webhook.NewService(store, e.payments, notifier, e.tx)
}

// mustInvoice creates an open USD invoice of the tenant totalling total.
func (e *dbEnv) mustInvoice(tb testing.TB, total int64) billing.Invoice {
	tb.Helper()
	inv, err := e.billing.Create(context.Background(), e.tenantID, billing.CreateInvoiceInput{
		Customer:  billing.CustomerInput{Name: "Ada", Email: "ada@example.com"},
		Currency:  "USD",
		LineItems: []billing.LineItemInput{{Description: "Plan", Quantity: 1, UnitAmount: total}},
	})
	if err != nil {
		tb.Fatalf("create invoice: %v", err)
	}
	return inv
}

func (e *dbEnv) mustGet(tb testing.TB, invoiceID string) billing.Invoice {
	tb.Helper()
	inv, err := e.billing.Get(context.Background(), e.tenantID, invoiceID)
	if err != nil {
		tb.Fatalf("get invoice: %v", err)
	}
	return inv
}

// ledger returns the ledger of the tenant's invoice, newest first.
func (e *dbEnv) ledger(tb testing.TB, invoiceID string) []billing.Payment {
	tb.Helper()
	page, _, err := e.payments.Payments(context.Background(), e.tenantID, invoiceID, billing.PaymentFilter{Limit: billing.MaxListLimit})
	if err != nil {
		tb.Fatalf("ledger: %v", err)
	}
	return page
}

// notifications returns the tenant's notifications, newest first.
func (e *dbEnv) notifications(tb testing.TB) []tenancy.Notification {
	tb.Helper()
	ns, _, err := e.tenancy.Notifications.List(context.Background(), e.tenantID, tenancy.NotificationFilter{Limit: 100})
	if err != nil {
		tb.Fatalf("notifications: %v", err)
	}
	return ns
}

// eventCount is how many events the inbox holds.
func (e *dbEnv) eventCount(tb testing.TB) int64 {
	tb.Helper()
	// Scan, not Count: Bun's Count drops the query's comment, and with it
	// AcrossTenants' mark.
	var n int64
	err := database.AcrossTenants(e.db.NewSelect()).TableExpr("webhook_events").ColumnExpr("count(*)").
		Scan(context.Background(), &n)
	if err != nil {
		tb.Fatalf("count events: %v", err)
	}
	return n
}

// event returns a payment event's JSON body.
func event(id, typ, invoiceID string, amount int64, currency string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"type":%q,"created_at":"2026-11-21T10:00:00Z","data":{"payment_id":"pay_%s","invoice_id":%q,"amount":%d,"currency":%q,"failure_reason":null}}`,
		id, typ, id, invoiceID, amount, currency)
}
