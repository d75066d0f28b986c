package billing_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
)

// dbEnv is billing wired as the server wires it: the Bun store, the real
// tenancy service for entitlements, and the database's Transactor.
type dbEnv struct {
	db      *bun.DB
	store   billing.Store
	svc     bills
	tenancy *tenancy.Services
	tenants *tenancystore.Store
}

// eachDB runs fn on SQLite and Postgres, each with a fresh migrated
// database and the services wired on it.
func eachDB(t *testing.T, fn func(t *testing.T, e dbEnv)) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		fn(t, dbEnv{db: db, store: bunstore.New(db), svc: bills{app.Billing, app.Payments}, tenancy: app.Tenancy, tenants: tenancystore.New(db)})
	})
}

// withStore returns e with a billing service on store instead (its
// ledger still on the database's).
func (e dbEnv) withStore(store billing.Store) dbEnv {
	e.store = store
	e.svc = newBills(billing.NewService(store, e.tenancy.Entitlements, tenantkit.NewTransactor(e.db)), bunstore.New(e.db))
	return e
}

// mustTenant creates a tenant on the free plan with the given monthly
// invoice limit (nil: unlimited).
func (e dbEnv) mustTenant(tb testing.TB, slug string, limit *int64) string {
	tb.Helper()
	ctx := context.Background()
	tn, err := e.tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: slug, Name: slug, PlanID: catalog.PlanFree})
	if err != nil {
		tb.Fatalf("create tenant: %v", err)
	}
	if err := e.tenants.SetLimitOverride(ctx, tn.ID, catalog.FeatureInvoices, limit); err != nil {
		tb.Fatalf("set limit: %v", err)
	}
	return tn.ID
}

// mustUsage returns the tenant's invoice usage this month.
func (e dbEnv) mustUsage(tb testing.TB, tenantID string) int64 {
	tb.Helper()
	ent, err := e.tenancy.Entitlements.Get(context.Background(), tenantID, catalog.FeatureInvoices)
	if err != nil {
		tb.Fatalf("entitlement: %v", err)
	}
	return ent.Usage
}

func ptr[T any](v T) *T { return &v }
