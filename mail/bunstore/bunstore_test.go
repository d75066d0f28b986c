package bunstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	billingstore "github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/mail/bunstore"
	"github.com/tenantkit/tenantkit/mail/mailtest"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
)

func TestBunStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		f := mailtest.Fixtures{TenantA: id.New(id.Tenant), TenantB: id.New(id.Tenant), InvoiceA: id.New(id.Invoice), InvoiceB: id.New(id.Invoice)}
		tenants, invoices := tenancystore.New(db), billingstore.New(db)
		for i, tn := range []string{f.TenantA, f.TenantB} {
			now := time.Now().UTC()
			if err := tenants.CreateTenant(ctx, tenancy.Tenant{ID: tn, Slug: "t" + tn[len(tn)-8:], Name: "T", PlanID: catalog.PlanFree, Seats: 1, CreatedAt: now}); err != nil {
				t.Fatal(err)
			}
			inv := billing.Invoice{ID: []string{f.InvoiceA, f.InvoiceB}[i], TenantID: tn, Status: billing.StatusOpen, Number: "INV-1",
				Customer: billing.Customer{Name: "Ada", Email: "ada@example.com", Locale: "en"}, Currency: "USD",
				LineItems: []billing.LineItem{}, Metadata: map[string]string{}, CreatedAt: now}
			if err := invoices.CreateInvoice(ctx, inv); err != nil {
				t.Fatal(err)
			}
		}
		mailtest.Run(t, func(t *testing.T) (mail.Store, mailtest.Fixtures) {
			if _, err := database.AcrossTenants(db.NewDelete()).TableExpr("mail_messages").Where("TRUE").Exec(ctx); err != nil {
				t.Fatal(err)
			}
			return bunstore.New(db), f
		})
	}, tenancystore.Migrations(), billingstore.Migrations(), bunstore.Migrations())
}
