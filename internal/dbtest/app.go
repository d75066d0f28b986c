package dbtest

import (
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
)

// EachApp runs fn as Each does, on databases migrated with
// tenantkit.Schema, with every service wired on the database as the server
// wires it (tenantkit.New, default catalog).
func EachApp(t *testing.T, fn func(t *testing.T, db *bun.DB, app *tenantkit.App)) {
	t.Helper()
	Each(t, func(t *testing.T, db *bun.DB) {
		app, err := tenantkit.New(db, catalog.Default())
		if err != nil {
			t.Fatalf("dbtest: %v", err)
		}
		fn(t, db, app)
	}, tenantkit.Schema()...)
}
