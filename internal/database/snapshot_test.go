package database_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// snapshot is schema's SQLite snapshot, plus a table that tells whether a
// database was created from it.
func snapshot(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db := dbtest.SQLite(t) // not dbtest's migrations: they add River's
	if _, err := database.Migrate(ctx, db, schema()); err != nil {
		t.Fatal(err)
	}
	dump, err := database.DumpSQLite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dump, "CREATE TABLE things") || !strings.Contains(dump, `INSERT INTO "tenantkit_migrations"`) {
		t.Fatalf("dump lacks the schema or the migration record:\n%s", dump)
	}
	return dump + "CREATE TABLE from_snapshot (x INTEGER);\n"
}

// newerMigration is a migration that schema's snapshot lacks.
func newerMigration() database.Source {
	sql := "CREATE TABLE newer (id TEXT PRIMARY KEY)"
	return fstest.MapFS{
		"postgres/20000101000002_newer.tx.up.sql": {Data: []byte(sql)},
		"sqlite/20000101000002_newer.tx.up.sql":   {Data: []byte(sql)},
	}
}

// TestMigrateSnapshot: only an empty SQLite database is created from the
// snapshot; any database ends up migrated, each migration applied once,
// those the snapshot lacks after it.
func TestMigrateSnapshot(t *testing.T) {
	snap := snapshot(t)
	tests := []struct {
		name     string
		setup    string // run on the fresh database first
		snapshot string
		sources  []database.Source
		// What SQLite does; Postgres always ignores the snapshot.
		wantSnapshot bool
		wantErr      bool
	}{
		{"Empty", "", snap, []database.Source{schema()}, true, false},
		{"StaleSnapshot", "", snap, []database.Source{schema(), newerMigration()}, true, false},
		{"NotEmpty", "CREATE TABLE hosts_own (x INTEGER)", snap, []database.Source{schema()}, false, false},
		{"NoSnapshot", "", "", []database.Source{schema()}, false, false},
		{"ErrBrokenSnapshot", "", "CREATE TABLE things (id TEXT PRIMARY KEY);\nCREATE TABLE broken (", []database.Source{schema()}, false, true},
	}
	dialects := []struct {
		name string
		open func(testing.TB, ...database.Source) *bun.DB // an empty database
	}{{"sqlite", dbtest.SQLite}, {"postgres", dbtest.Postgres}}
	for _, d := range dialects {
		for _, tt := range tests {
			t.Run(d.name+"/"+tt.name, func(t *testing.T) {
				ctx := context.Background()
				db := d.open(t)
				if tt.setup != "" {
					if _, err := db.ExecContext(ctx, tt.setup); err != nil {
						t.Fatal(err)
					}
				}
				sqlite := !database.IsPostgres(db)
				n, err := database.MigrateWith(ctx, db, tt.snapshot, tt.sources)
				if wantErr := tt.wantErr && sqlite; (err != nil) != wantErr {
					t.Fatalf("MigrateWith = %d, %v; want error %v", n, err, wantErr)
				}
				if err != nil {
					if !isEmpty(t, db) {
						t.Fatal("a failed snapshot left a schema behind")
					}
					return
				}
				if n != len(tt.sources) {
					t.Fatalf("MigrateWith = %d, want %d", n, len(tt.sources))
				}
				if got, want := hasTable(t, db, "from_snapshot"), tt.wantSnapshot && sqlite; got != want {
					t.Fatalf("created from the snapshot: %v, want %v", got, want)
				}
				if n, err := database.Pending(ctx, db, tt.sources...); err != nil || n != 0 {
					t.Fatalf("Pending = %d, %v; want 0, nil", n, err)
				}
				if n, err := database.MigrateWith(ctx, db, tt.snapshot, tt.sources); err != nil || n != 0 {
					t.Fatalf("second MigrateWith = %d, %v; want 0, nil", n, err)
				}
			})
		}
	}
}

// TestMigrateSnapshotReplicas: replicas creating one new SQLite file from
// the snapshot at once all succeed, and one of them creates it, also when
// their transactions are deferred and so fail on each other.
func TestMigrateSnapshotReplicas(t *testing.T) {
	snap := snapshot(t)
	for _, txlock := range []string{"immediate", "deferred"} {
		t.Run(txlock, func(t *testing.T) {
			ctx := context.Background()
			url := dbtest.SQLiteURL(t) + "?_txlock=" + txlock
			dbs := make([]*bun.DB, 4)
			for i := range dbs {
				db, err := database.Open(ctx, url, database.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = db.Close() })
				dbs[i] = db
			}
			applied := make([]int, len(dbs))
			errs := make([]error, len(dbs))
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i, db := range dbs {
				wg.Go(func() {
					<-start
					applied[i], errs[i] = database.MigrateWith(ctx, db, snap, []database.Source{schema()})
				})
			}
			close(start)
			wg.Wait()
			total := 0
			for i := range dbs {
				if errs[i] != nil {
					t.Fatalf("replica %d: %v", i, errs[i])
				}
				total += applied[i]
			}
			if total != 1 {
				t.Fatalf("replicas applied %v, %d in all; want 1", applied, total)
			}
			if !hasTable(t, dbs[0], "from_snapshot") {
				t.Fatal("no replica created the database from the snapshot")
			}
		})
	}
}

func hasTable(t *testing.T, db *bun.DB, name string) bool {
	t.Helper()
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if database.IsPostgres(db) {
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?"
	}
	var n int
	if err := db.NewRaw(q, name).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func isEmpty(t *testing.T, db *bun.DB) bool {
	t.Helper()
	var n int
	if err := db.NewRaw("SELECT count(*) FROM sqlite_master").Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n == 0
}
