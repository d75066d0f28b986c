package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/idempotency"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
)

// Schema lists the embedded migrations of everything the API stores, in
// the order they apply: idempotency keys, tenancy (contracts included),
// billing, support, webhook events.
func Schema() []fs.FS {
	return []fs.FS{idempotency.Migrations(), bunstore.Migrations(), billing.Migrations(),
		support.Migrations(), webhook.Migrations()}
}

// Migrate applies every pending migration of Schema to db and returns how
// many it applied. Replicas may call it at the same time: they queue on a
// lock and the schema is applied once.
func Migrate(ctx context.Context, db *bun.DB) (int, error) {
	return database.Migrate(ctx, db, Schema()...)
}

// NewConfig wires every domain service on Bun stores over db, with plans
// from cat, and returns a Config ready for New: services, the idempotency
// store and a readiness check (the database answers and its schema is
// current). The host adds what is its own: an Authenticator or JWT
// settings, a WebhookVerifier for the payment webhook, a logger, limits.
// Apply Migrate first.
func NewConfig(db *bun.DB, cat *catalog.Catalog) Config {
	tx := func(ctx context.Context, fn func(ctx context.Context) error) error {
		return database.RunInTx(ctx, db, fn)
	}
	store, transactor := bunstore.New(db), database.NewTransactor(db)
	ten := tenancy.New(store.Stores(), transactor, cat)
	bil := billing.NewService(billing.NewBunStore(db), ten.Entitlements, tx)
	return Config{
		Directory:     ten.Directory,
		Keys:          ten.Keys,
		Entitlements:  ten.Entitlements,
		Modules:       ten.Modules,
		Notifications: ten.Notifications,
		Contracts:     contract.NewService(store, ten.Entitlements, ten.Notifications, transactor, cat),
		Catalog:       cat,
		Billing:       bil,
		Support:       support.NewService(support.NewBunStore(db), ten.Entitlements, tx),
		Webhooks:      webhook.NewService(webhook.NewBunStore(db), bil, ten.Notifications, tx),
		Idempotency:   idempotency.New(db),
		Ready:         readiness(db),
	}
}

// readiness is the check behind GET /api/health/ready. Its messages are
// safe to show to anyone.
func readiness(db *bun.DB) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := db.PingContext(ctx); err != nil {
			return errors.New("database unreachable")
		}
		n, err := database.Pending(ctx, db, Schema()...)
		if err != nil {
			return errors.New("migration status unknown")
		}
		if n > 0 {
			return fmt.Errorf("%d migrations pending", n)
		}
		return nil
	}
}
