package billing_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
)

// dbEnv is billing wired as the server wires it: BunStore, the real
// tenancy service for entitlements, and database.RunInTx.
type dbEnv struct {
	db      *bun.DB
	store   billing.Store
	svc     *billing.Service
	tenancy *tenancy.Services
	tenants *bunstore.Store
}

// eachDB runs fn on SQLite and Postgres, each with a fresh migrated
// database and the service wired on it.
func eachDB(t *testing.T, fn func(t *testing.T, e dbEnv)) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		fn(t, newDBEnv(db, billing.NewBunStore(db)))
	}, bunstore.Migrations(), billing.Migrations())
}

func newDBEnv(db *bun.DB, store billing.Store) dbEnv {
	tenants := bunstore.New(db)
	ten := tenancy.New(tenants.Stores(), database.NewTransactor(db), catalog.Default())
	tx := func(ctx context.Context, fn func(context.Context) error) error { return database.RunInTx(ctx, db, fn) }
	return dbEnv{db: db, store: store, svc: billing.NewService(store, ten.Entitlements, tx), tenancy: ten, tenants: tenants}
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
