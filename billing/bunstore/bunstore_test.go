package bunstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/billing/billingtest"
	"github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
)

func TestBunStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		mustSuiteTenants(t, db)
		// One database per dialect; each case starts from empty tables.
		empty := func(t *testing.T) *bunstore.Store {
			for _, table := range []string{"invoice_payments", "invoices", "invoice_sequences"} {
				if _, err := database.AcrossTenants(db.NewDelete()).TableExpr(table).Where("TRUE").Exec(ctx); err != nil {
					t.Fatalf("empty %s: %v", table, err)
				}
			}
			return bunstore.New(db)
		}
		billingtest.Run(t, func(t *testing.T) billing.Store { return empty(t) })
		billingtest.RunPayments(t, func(t *testing.T) (billing.Store, billing.PaymentStore) {
			s := empty(t)
			return s, s
		})
		t.Run("Hosted", func(t *testing.T) {
			billingtest.RunHosted(t, func(t *testing.T) billingtest.HostedStores { return empty(t) })
		})
	}, tenancystore.Migrations(), bunstore.Migrations())
}

func TestBunStoreCustomers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		mustSuiteTenants(t, db)
		billingtest.RunCustomers(t, func(t *testing.T) billingtest.CustomerStores {
			for _, table := range []string{"invoice_payments", "invoices", "invoice_sequences", "customers"} {
				if _, err := database.AcrossTenants(db.NewDelete()).TableExpr(table).Where("TRUE").Exec(ctx); err != nil {
					t.Fatalf("empty %s: %v", table, err)
				}
			}
			return bunstore.New(db)
		})
	}, tenancystore.Migrations(), bunstore.Migrations())
}

func TestBunStoreDunning(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		mustSuiteTenants(t, db)
		billingtest.RunDunning(t, func(t *testing.T) billingtest.DunningStores {
			// Deleting the invoices deletes their steps (ON DELETE CASCADE).
			for _, table := range []string{"invoices", "invoice_sequences"} {
				if _, err := database.AcrossTenants(db.NewDelete()).TableExpr(table).Where("TRUE").Exec(ctx); err != nil {
					t.Fatalf("empty %s: %v", table, err)
				}
			}
			return bunstore.New(db)
		})
	}, tenancystore.Migrations(), bunstore.Migrations())
}

func TestBunStoreUnknownTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		s := bunstore.New(db)
		inv := billing.Invoice{ID: "inv_01jd0000000000000000000000", TenantID: "ten_nobody", Number: "INV-000001",
			Status: billing.StatusDraft, Currency: "USD", CreatedAt: time.Now().UTC()}
		if err := s.CreateInvoice(context.Background(), inv); !errors.Is(err, billing.ErrNotFound) {
			t.Fatalf("CreateInvoice for an unknown tenant: got %v, want ErrNotFound", err)
		}
	}, tenancystore.Migrations(), bunstore.Migrations())
}

// mustSuiteTenants stores the two tenants the conformance suites write for.
func mustSuiteTenants(t *testing.T, db *bun.DB) {
	t.Helper()
	tenants := tenancystore.New(db)
	for _, tn := range []tenancy.Tenant{
		{ID: billingtest.TenantA, Slug: "tenant-a", Name: "Tenant A"},
		{ID: billingtest.TenantB, Slug: "tenant-b", Name: "Tenant B"},
	} {
		tn.PlanID, tn.Seats, tn.CreatedAt = catalog.PlanFree, 2, time.Now().UTC()
		if err := tenants.CreateTenant(context.Background(), tn); err != nil {
			t.Fatalf("create tenant: %v", err)
		}
	}
}
