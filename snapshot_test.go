package tenantkit_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// The snapshot Migrate creates a new SQLite database from (snapshot.go),
// and how to rewrite it.
const (
	snapshotFile     = "sqlite_snapshot.sql"
	envSnapshot      = "TENANTKIT_UPDATE_SNAPSHOT"
	regenerateAdvice = envSnapshot + "=1 go test ./ -run TestSQLiteSnapshot"
	snapshotHeader   = "-- The schema tenantkit.Migrate builds on SQLite (tenantkit.Schema's migrations\n" +
		"-- and River's), every migration recorded as applied: a new SQLite database is\n" +
		"-- created from it in one transaction. Generated; do not edit. After adding a\n" +
		"-- migration or upgrading River, rewrite it with\n" +
		"-- `" + regenerateAdvice + "`.\n\n"
)

// TestSQLiteSnapshot: the committed snapshot is the schema the migrations
// build, one by one; a database created from it is the same schema with
// the same migrations recorded, ready, with nothing left to apply; and
// replicas creating it at once all succeed. TENANTKIT_UPDATE_SNAPSHOT=1
// rewrites the snapshot instead of checking it.
func TestSQLiteSnapshot(t *testing.T) {
	ctx := context.Background()
	regular := dbtest.SQLite(t)
	applied, err := database.MigrateWith(ctx, regular, "", tenantkit.Schema(), riverqueue.Migrate)
	if err != nil || applied == 0 {
		t.Fatalf("migrations one by one: %d, %v", applied, err)
	}
	want := mustDump(t, regular)
	if os.Getenv(envSnapshot) == "1" {
		if err := os.WriteFile(snapshotFile, []byte(snapshotHeader+want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d migrations); run the test again to check it", snapshotFile, applied)
		return
	}
	committed, err := os.ReadFile(snapshotFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := firstDiff(string(committed), snapshotHeader+want); diff != "" {
		t.Fatalf("%s is not the schema the migrations build (%s). After adding or changing a migration, or upgrading River, rewrite it: %s",
			snapshotFile, diff, regenerateAdvice)
	}
	if slices.Equal(creationOrder(t, regular), dumpOrder(t, regular)) {
		t.Fatal("a database migrated one by one has its schema in the dump's order: the check that Migrate used the snapshot cannot tell")
	}

	t.Run("Migrate", func(t *testing.T) {
		db := dbtest.SQLite(t)
		n, err := tenantkit.Migrate(ctx, db)
		if err != nil || n != applied {
			t.Fatalf("Migrate = %d, %v; want %d (every migration, recorded by the snapshot)", n, err, applied)
		}
		if got, want := creationOrder(t, db), dumpOrder(t, db); !slices.Equal(got, want) {
			t.Fatalf("schema created in the order %v…, want the snapshot's %v…: Migrate did not use the snapshot", got[:3], want[:3])
		}
		if diff := firstDiff(mustDump(t, db), want); diff != "" {
			t.Fatalf("a database created from the snapshot dumps differently from one migrated one by one: %s", diff)
		}
		if n, err := tenantkit.Migrate(ctx, db); err != nil || n != 0 {
			t.Fatalf("second Migrate = %d, %v; want 0, nil", n, err)
		}
		if n, err := database.Pending(ctx, db, tenantkit.Schema()...); err != nil || n != 0 {
			t.Fatalf("database.Pending = %d, %v; want 0, nil", n, err)
		}
		if n, err := riverqueue.Pending(ctx, db); err != nil || n != 0 {
			t.Fatalf("riverqueue.Pending = %d, %v; want 0, nil", n, err)
		}
		mustReady(t, db)
	})

	// Replicas starting together on one new file, each with its own pool;
	// one of them may be an older version, which migrates one by one.
	snapshot := func(ctx context.Context, db *bun.DB) (int, error) { return tenantkit.Migrate(ctx, db) }
	oneByOne := func(ctx context.Context, db *bun.DB) (int, error) {
		return database.MigrateWith(ctx, db, "", tenantkit.Schema(), riverqueue.Migrate)
	}
	tests := []struct {
		name     string
		replicas []func(context.Context, *bun.DB) (int, error)
	}{
		{"Snapshot", []func(context.Context, *bun.DB) (int, error){snapshot, snapshot}},
		{"SnapshotAndOneByOne", []func(context.Context, *bun.DB) (int, error){snapshot, oneByOne}},
	}
	for _, tt := range tests {
		t.Run("Replicas/"+tt.name, func(t *testing.T) {
			url := dbtest.SQLiteURL(t)
			dbs := make([]*bun.DB, len(tt.replicas))
			for i := range dbs {
				dbs[i] = mustOpen(t, url)
			}
			ns := make([]int, len(dbs))
			errs := make([]error, len(dbs))
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i, migrate := range tt.replicas {
				wg.Go(func() {
					<-start
					ns[i], errs[i] = migrate(ctx, dbs[i])
				})
			}
			close(start)
			wg.Wait()
			total := 0
			for i := range dbs {
				if errs[i] != nil {
					t.Fatalf("replica %d: %v", i, errs[i])
				}
				total += ns[i]
			}
			if total != applied {
				t.Fatalf("replicas applied %v migrations, %d in all; want %d", ns, total, applied)
			}
			if diff := firstDiff(mustDump(t, dbs[0]), want); diff != "" {
				t.Fatalf("replicas built a schema that dumps differently: %s", diff)
			}
			mustReady(t, dbs[1])
		})
	}
}

func mustDump(tb testing.TB, db *bun.DB) string {
	tb.Helper()
	s, err := database.DumpSQLite(context.Background(), db)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func mustOpen(tb testing.TB, url string) *bun.DB {
	tb.Helper()
	db, err := database.Open(context.Background(), url, database.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

func mustReady(tb testing.TB, db *bun.DB) {
	tb.Helper()
	app, err := tenantkit.New(db, catalog.Default())
	if err != nil {
		tb.Fatal(err)
	}
	if err := app.Ready(context.Background()); err != nil {
		tb.Fatalf("Ready = %v", err)
	}
}

// creationOrder names db's tables and indexes in the order they were
// created; dumpOrder in DumpSQLite's, which is the order a database
// created from the snapshot was created in.
func creationOrder(tb testing.TB, db *bun.DB) []string {
	tb.Helper()
	return names(tb, db, "rowid")
}

func dumpOrder(tb testing.TB, db *bun.DB) []string {
	tb.Helper()
	return names(tb, db, "CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, name")
}

func names(tb testing.TB, db *bun.DB, order string) []string {
	tb.Helper()
	var ns []string
	err := db.NewRaw("SELECT name FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY "+order).
		Scan(context.Background(), &ns)
	if err != nil {
		tb.Fatal(err)
	}
	if len(ns) < 3 {
		tb.Fatalf("schema has %d objects, want a migrated one", len(ns))
	}
	return ns
}

// firstDiff describes the first line where got and want differ, or
// returns "" when they are equal.
func firstDiff(got, want string) string {
	if got == want {
		return ""
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return "they differ"
}
