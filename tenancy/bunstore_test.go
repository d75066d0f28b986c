package tenancy_test

import (
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/tenancytest"
)

// TestBunStore runs the conformance suite on SQLite and Postgres. The
// suite keys its data uniquely, so its subtests share one database per
// dialect instead of paying for a fresh Postgres database each.
func TestBunStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		tenancytest.Run(t, func(*testing.T) tenancy.Store { return tenancy.NewBunStore(db) })
	}, tenancy.Migrations())
}
