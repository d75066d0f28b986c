package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/billing/billingtest"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestBunStoreContracts runs the ContractStore conformance suite on SQLite
// and Postgres, one database per dialect, emptied before each case.
func TestBunStoreContracts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		tenants := tenancy.NewBunStore(db)
		for _, tn := range []tenancy.Tenant{
			{ID: billingtest.TenantA, Slug: "tenant-a", Name: "Tenant A"},
			{ID: billingtest.TenantB, Slug: "tenant-b", Name: "Tenant B"},
		} {
			tn.PlanID, tn.Seats, tn.CreatedAt = catalog.PlanFree, 2, time.Now().UTC()
			if err := tenants.CreateTenant(ctx, tn); err != nil {
				t.Fatalf("create tenant: %v", err)
			}
		}
		billingtest.RunContracts(t, func(t *testing.T) billing.ContractStore {
			if _, err := db.NewDelete().TableExpr("contract_requests").Where("TRUE").Exec(ctx); err != nil {
				t.Fatalf("empty contract_requests: %v", err)
			}
			return billing.NewBunStore(db)
		})
	}, tenancy.Migrations(), billing.Migrations())
}
