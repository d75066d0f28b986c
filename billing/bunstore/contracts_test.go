package bunstore_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/billing/billingtest"
	"github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestBunStoreContracts runs the ContractStore conformance suite on SQLite
// and Postgres, one database per dialect, emptied before each case.
func TestBunStoreContracts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		mustSuiteTenants(t, db)
		billingtest.RunContracts(t, func(t *testing.T) billing.ContractStore {
			if _, err := db.NewDelete().TableExpr("contract_requests").Where("TRUE").Exec(ctx); err != nil {
				t.Fatalf("empty contract_requests: %v", err)
			}
			return bunstore.New(db)
		})
	}, tenancy.Migrations(), bunstore.Migrations())
}
