package dbtest

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
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
