package dbtest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// EachApp runs fn as Each does, on databases migrated as the server
// migrates them (tenantkit.Migrate: tenantkit.Schema and River's tables),
// with every service wired on the database as the server wires it
// (tenantkit.New, default catalog).
func EachApp(t *testing.T, fn func(t *testing.T, db *bun.DB, app *tenantkit.App)) {
	t.Helper()
	Each(t, func(t *testing.T, db *bun.DB) {
		if _, err := tenantkit.Migrate(context.Background(), db); err != nil {
			t.Fatalf("dbtest: %v", err)
		}
		Guard(t, db)
		app, err := tenantkit.New(db, catalog.Default())
		if err != nil {
			t.Fatalf("dbtest: %v", err)
		}
		fn(t, db, app)
	})
}

// Serve serves app's API as the reference server wires it (App.HTTPConfig,
// httpapi.New) on a real port until the test ends, and returns its URL.
func Serve(t testing.TB, app *tenantkit.App) string {
	t.Helper()
	cfg := app.HTTPConfig()
	cfg.Logger = zerolog.Nop()
	api, err := httpapi.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// OwnerKey creates tenant and user, makes the user the tenant's owner and
// returns an API key of the user's holding every scope.
func OwnerKey(t testing.TB, app *tenantkit.App, tenant tenancy.CreateTenantInput, user tenancy.CreateUserInput) string {
	t.Helper()
	ctx := context.Background()
	svc := app.Tenancy
	if _, err := svc.Directory.CreateTenant(ctx, tenant); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	if _, err := svc.Directory.CreateUser(ctx, user); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	if _, err := svc.Members.Add(ctx, tenant.Slug, user.Email, tenancy.RoleOwner); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	_, key, err := svc.Keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: tenancy.Scopes()})
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return key
}
