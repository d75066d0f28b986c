package support_test

import (
	"context"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/support/bunstore"
	"github.com/tenantkit/tenantkit/tenancy"
)

// *tenancy.Entitlements is what the server passes as Entitlements.
var _ support.Entitlements = (*tenancy.Entitlements)(nil)

// world is support wired as the server wires it, on one database.
type world struct {
	db      *bun.DB
	tenancy *tenancy.Services
	store   *bunstore.Store
	svc     *support.Service
	tx      tenantkit.Transactor
}

// eachDB runs fn on a fresh SQLite and a fresh Postgres database, with the
// services wired on it.
func eachDB(t *testing.T, fn func(t *testing.T, w *world)) {
	t.Helper()
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		fn(t, &world{db: db, tenancy: app.Tenancy, store: bunstore.New(db), svc: app.Support, tx: tenantkit.NewTransactor(db)})
	})
}

// mustTenant creates a tenant on plan and returns its id.
func mustTenant(tb testing.TB, ten *tenancy.Services, plan string) string {
	tb.Helper()
	slug := strings.ReplaceAll(id.New("t"), "_", "-")
	t, err := ten.Directory.CreateTenant(context.Background(), tenancy.CreateTenantInput{Slug: slug, Name: "Tenant " + slug, PlanID: plan})
	if err != nil {
		tb.Fatalf("CreateTenant(%s): %v", plan, err)
	}
	return t.ID
}

// mustUsage returns how many tickets the tenant has used this month.
func mustUsage(tb testing.TB, ten *tenancy.Services, tenantID string) int64 {
	tb.Helper()
	e, err := ten.Entitlements.Get(context.Background(), tenantID, catalog.FeatureTickets)
	if err != nil {
		tb.Fatalf("Entitlement(%s): %v", tenantID, err)
	}
	return e.Usage
}
