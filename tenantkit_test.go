package tenantkit_test

import (
	"context"
	"io/fs"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

func TestNew(t *testing.T) {
	db := dbtest.SQLite(t)
	tests := []struct {
		name    string
		db      *bun.DB
		cat     *catalog.Catalog
		wantErr bool
	}{
		{"OK", db, catalog.Default(), false},
		{"ErrNoDatabase", nil, catalog.Default(), true},
		{"ErrNoCatalog", db, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, err := tenantkit.New(tt.db, tt.cat)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New: %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			cfg := app.HTTPConfig()
			svc := cfg.Services
			if svc.Directory == nil || svc.Keys == nil || svc.Entitlements == nil || svc.Modules == nil ||
				svc.Notifications == nil || svc.Catalog == nil || svc.Billing == nil || svc.Payments == nil || svc.Contracts == nil ||
				svc.Support == nil || svc.Webhooks == nil || svc.Idempotency == nil || svc.Ready == nil || len(cfg.Endpoints) == 0 {
				t.Errorf("HTTPConfig leaves a service out: %+v", cfg)
			}
		})
	}
}

// TestReady: not ready until every migration is applied, ready after.
func TestReady(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		app, err := tenantkit.New(db, catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Ready(ctx); err == nil {
			t.Fatal("Ready before Migrate = nil, want an error")
		}
		n, err := tenantkit.Migrate(ctx, db)
		if err != nil || n == 0 {
			t.Fatalf("Migrate = %d, %v", n, err)
		}
		if err := app.Ready(ctx); err != nil {
			t.Fatalf("Ready after Migrate = %v", err)
		}
		if n, err := tenantkit.Migrate(ctx, db); err != nil || n != 0 {
			t.Fatalf("second Migrate = %d, %v; want 0, nil", n, err)
		}
	})
}

// TestMigrateReplicas: replicas migrating a fresh database at once all
// succeed and apply each migration once, River's included (River's
// migrator takes no lock; Migrate runs it under its own).
func TestMigrateReplicas(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		app, err := tenantkit.New(db, catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		ours := 0
		for _, src := range tenantkit.Schema() {
			files, err := fs.Glob(src, database.DialectName(db)+"/*.up.sql")
			if err != nil {
				t.Fatal(err)
			}
			ours += len(files)
		}
		river, err := riverqueue.Pending(ctx, db)
		if err != nil || river == 0 {
			t.Fatalf("River's pending migrations = %d, %v", river, err)
		}
		var wg sync.WaitGroup
		applied := make([]int, 4)
		errs := make([]error, 4)
		for i := range applied {
			wg.Go(func() { applied[i], errs[i] = tenantkit.Migrate(ctx, db) })
		}
		wg.Wait()
		total := 0
		for i, n := range applied {
			if errs[i] != nil {
				t.Fatalf("replica %d: %v", i, errs[i])
			}
			total += n
		}
		if total != ours+river {
			t.Fatalf("%d migrations applied in all, want %d (%d ours, %d River's)", total, ours+river, ours, river)
		}
		if err := app.Ready(ctx); err != nil {
			t.Fatalf("Ready = %v", err)
		}
	})
}

// TestPurgeIdempotencyKeys: a fresh database has nothing to purge, and
// purging works on both dialects.
func TestPurgeIdempotencyKeys(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		app, err := tenantkit.New(db, catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		if n, err := app.PurgeIdempotencyKeys(context.Background()); err != nil || n != 0 {
			t.Fatalf("PurgeIdempotencyKeys = %d, %v; want 0, nil", n, err)
		}
	}, tenantkit.Schema()...)
}
