package bunstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/tenancy/tenancytest"
)

// TestStore runs the conformance suite of every tenancy store interface on
// SQLite and Postgres. The suites key their data uniquely, so their
// subtests share one database per dialect instead of paying for a fresh
// Postgres database each.
func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		newBackend := func(*testing.T) tenancytest.Backend {
			s := bunstore.New(db)
			return tenancytest.Backend{DirectoryStore: s, MemberStore: s, IndexStore: s, KeyStore: s, EntitlementStore: s, ModuleStore: s,
				NotificationStore: s, SessionStore: s, SettingsStore: s, Contracts: s, OperatorKeys: s, Tx: database.NewTransactor(db)}
		}
		t.Run("Directory", func(t *testing.T) { tenancytest.RunDirectory(t, newBackend) })
		t.Run("Members", func(t *testing.T) { tenancytest.RunMembers(t, newBackend) })
		t.Run("Index", func(t *testing.T) { tenancytest.RunIndex(t, newBackend) })
		t.Run("OperatorKeys", func(t *testing.T) { tenancytest.RunOperatorKeys(t, newBackend) })
		t.Run("Keys", func(t *testing.T) { tenancytest.RunKeys(t, newBackend) })
		t.Run("Entitlements", func(t *testing.T) { tenancytest.RunEntitlements(t, newBackend) })
		t.Run("Modules", func(t *testing.T) { tenancytest.RunModules(t, newBackend) })
		t.Run("Notifications", func(t *testing.T) { tenancytest.RunNotifications(t, newBackend) })
		t.Run("Sessions", func(t *testing.T) { tenancytest.RunSessions(t, newBackend) })
		t.Run("Settings", func(t *testing.T) { tenancytest.RunSettings(t, newBackend) })
	}, bunstore.Migrations())
}

// TestContractStore runs the contract.Store conformance suite on SQLite
// and Postgres, one database per dialect, with the contract requests
// emptied before each case (the scheduler's query spans tenants).
func TestContractStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := bunstore.New(db)
		for _, tn := range []tenancy.Tenant{
			{ID: tenancytest.TenantA, Slug: "tenant-a", Name: "Tenant A"},
			{ID: tenancytest.TenantB, Slug: "tenant-b", Name: "Tenant B"},
		} {
			tn.PlanID, tn.Seats, tn.CreatedAt = catalog.PlanFree, 2, time.Now().UTC()
			if err := s.CreateTenant(ctx, tn); err != nil {
				t.Fatalf("create tenant: %v", err)
			}
		}
		tenancytest.RunContracts(t, func(t *testing.T) tenancytest.Backend {
			if _, err := database.AcrossTenants(db.NewDelete()).TableExpr("contract_requests").Where("TRUE").Exec(ctx); err != nil {
				t.Fatalf("empty contract_requests: %v", err)
			}
			return tenancytest.Backend{DirectoryStore: s, ModuleStore: s, Contracts: s, Tx: database.NewTransactor(db)}
		})
	}, bunstore.Migrations())
}

// TestBillingStore runs the contract.PeriodStore and contract.InvoiceStore
// conformance suite on SQLite and Postgres, one database per dialect,
// with the platform invoices and their numbering emptied and
// tenancytest.TenantUnbilled's mark unset before each case (the numbers,
// the operators' list and the overdue run span tenants).
func TestBillingStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := bunstore.New(db)
		unbilled := tenancy.Tenant{ID: tenancytest.TenantUnbilled, Slug: "tenant-unbilled", Name: "Tenant from before billing",
			PlanID: catalog.PlanFree, Seats: 2, CreatedAt: time.Now().UTC()}
		if err := s.CreateTenant(ctx, unbilled); err != nil {
			t.Fatalf("create tenant: %v", err)
		}
		tenancytest.RunBilling(t, func(t *testing.T) tenancytest.Backend {
			for _, table := range []string{"platform_invoices", "platform_invoice_numbers"} {
				if _, err := database.AcrossTenants(db.NewDelete()).TableExpr(table).Where("TRUE").Exec(ctx); err != nil {
					t.Fatalf("empty %s: %v", table, err)
				}
			}
			if _, err := db.NewUpdate().Table("tenants").Set("billed_through = NULL").Where("id = ?", tenancytest.TenantUnbilled).Exec(ctx); err != nil {
				t.Fatalf("unset the billed-through mark: %v", err)
			}
			return tenancytest.Backend{DirectoryStore: s, Periods: s, Invoices: s, Tx: database.NewTransactor(db)}
		})
	}, bunstore.Migrations())
}
