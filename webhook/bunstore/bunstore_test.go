package bunstore_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook"
	"github.com/tenantkit/tenantkit/webhook/bunstore"
	"github.com/tenantkit/tenantkit/webhook/webhooktest"
)

func TestBunStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		newStore := func(t *testing.T) webhook.Store {
			// One database per dialect; each case starts from an empty inbox.
			if _, err := database.AcrossTenants(db.NewDelete()).TableExpr("webhook_events").Where("TRUE").Exec(context.Background()); err != nil {
				t.Fatalf("empty webhook_events: %v", err)
			}
			return bunstore.New(db)
		}
		webhooktest.Run(t, newStore)
		t.Run("Inbox", func(t *testing.T) { webhooktest.RunInbox(t, newStore) })
	}, bunstore.Migrations())
}
