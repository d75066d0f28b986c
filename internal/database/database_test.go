package database_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// schema is a one-table schema for both dialects.
func schema() database.Source {
	sql := "CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER NOT NULL)"
	return fstest.MapFS{
		"postgres/20000101000001_things.tx.up.sql": {Data: []byte(sql)},
		"sqlite/20000101000001_things.tx.up.sql":   {Data: []byte(sql)},
	}
}

func count(t *testing.T, db bun.IDB) int64 {
	t.Helper()
	n, err := db.NewSelect().Table("things").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func insert(ctx context.Context, db bun.IDB, id string) error {
	_, err := database.Conn(ctx, db).NewRaw("INSERT INTO things (id, n) VALUES (?, 1)", id).Exec(ctx)
	return err
}

func TestRunInTx(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		boom := errors.New("boom")

		t.Run("Commit", func(t *testing.T) {
			err := database.RunInTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "a") })
			if err != nil || count(t, db) != 1 {
				t.Fatalf("err %v, count %d", err, count(t, db))
			}
		})
		t.Run("RollbackKeepsError", func(t *testing.T) {
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := insert(ctx, db, "b"); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || count(t, db) != 1 {
				t.Fatalf("err %v, count %d", err, count(t, db))
			}
		})
		t.Run("NestedFailureUndoesOnlyItself", func(t *testing.T) {
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := insert(ctx, db, "c"); err != nil {
					return err
				}
				inner := database.RunInTx(ctx, db, func(ctx context.Context) error {
					if !database.InTx(ctx) {
						t.Error("nested call does not see the transaction")
					}
					if err := insert(ctx, db, "d"); err != nil {
						return err
					}
					return boom
				})
				if !errors.Is(inner, boom) {
					t.Errorf("inner = %v", inner)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			if err := db.NewSelect().Table("things").Column("id").Order("id").Scan(ctx, &ids); err != nil {
				t.Fatal(err)
			}
			if strings.Join(ids, ",") != "a,c" {
				t.Fatalf("ids = %v, want a,c (d rolled back to its savepoint)", ids)
			}
		})
		t.Run("UniqueViolation", func(t *testing.T) {
			err := insert(ctx, db, "a")
			if !database.IsUniqueViolation(err) {
				t.Fatalf("IsUniqueViolation(%v) = false", err)
			}
			if w := database.Wrap(err); !errors.Is(w, database.ErrUnavailable) {
				t.Fatalf("Wrap = %v", w)
			}
		})
	}, schema())
}

func TestMigrate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if n, err := database.Pending(ctx, db, schema()); err == nil && n == 0 {
			t.Fatal("a fresh database reports no pending migrations")
		}
		// Replicas starting together: every one succeeds, the schema is applied once.
		var wg sync.WaitGroup
		applied := make([]int, 4)
		errs := make([]error, 4)
		for i := range applied {
			wg.Add(1)
			go func() { defer wg.Done(); applied[i], errs[i] = database.Migrate(ctx, db, schema()) }()
		}
		wg.Wait()
		total := 0
		for i := range applied {
			if errs[i] != nil {
				t.Fatalf("migrate %d: %v", i, errs[i])
			}
			total += applied[i]
		}
		if total != 1 {
			t.Fatalf("migrations applied %d times in all, want 1", total)
		}
		if n, err := database.Pending(ctx, db, schema()); err != nil || n != 0 {
			t.Fatalf("Pending = %d, %v", n, err)
		}
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{"mysql://x", "sqlite::memory:", "sqlite:", ""} {
		if db, err := database.Open(ctx, url, database.Options{}); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", url)
		}
	}
	_, err := database.Open(ctx, "postgres://u:secret@127.0.0.1:1/x?connect_timeout=1", database.Options{})
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Open of an unreachable server = %v (must fail without showing the password)", err)
	}
}
