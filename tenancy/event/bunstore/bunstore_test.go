package bunstore_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy/event/bunstore"
	"github.com/tenantkit/tenantkit/tenancy/event/eventtest"
)

// TestStore runs the event.Store conformance suite on SQLite and
// Postgres, the events emptied before each case.
func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		eventtest.Run(t, func(t *testing.T) eventtest.Backend {
			if _, err := db.NewDelete().TableExpr("events").Where("TRUE").Exec(context.Background()); err != nil {
				t.Fatalf("empty events: %v", err)
			}
			return eventtest.Backend{Store: bunstore.New(db), InTx: database.NewTransactor(db).InTx}
		})
	}, bunstore.Migrations())
}
