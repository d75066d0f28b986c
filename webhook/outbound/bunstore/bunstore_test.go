package bunstore_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/webhook/outbound/bunstore"
	"github.com/tenantkit/tenantkit/webhook/outbound/outboundtest"
)

// TestStore runs the outbound stores' conformance suite on SQLite and
// Postgres, the tables emptied before each case.
func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		outboundtest.Run(t, func(t *testing.T) outboundtest.Backend {
			for _, table := range []string{"webhook_attempts", "webhook_deliveries", "webhook_endpoints"} {
				if _, err := database.AcrossTenants(db.NewDelete()).TableExpr(table).Where("TRUE").Exec(context.Background()); err != nil {
					t.Fatalf("empty %s: %v", table, err)
				}
			}
			st := bunstore.New(db)
			return outboundtest.Backend{Endpoints: st, Deliveries: st, InTx: database.NewTransactor(db).InTx}
		})
	}, tenancystore.Migrations(), bunstore.Migrations())
}
