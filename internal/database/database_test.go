package database_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

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
			if w := database.Wrap(err); errors.Is(w, database.ErrUnavailable) {
				t.Fatalf("Wrap = %v: a refused statement is not an outage", w)
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

func TestJoinTx(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		boom := errors.New("boom")
		ids := func(t *testing.T) string {
			t.Helper()
			var ids []string
			if err := db.NewSelect().Table("things").Column("id").Order("id").Scan(ctx, &ids); err != nil {
				t.Fatal(err)
			}
			return strings.Join(ids, ",")
		}

		t.Run("AloneCommits", func(t *testing.T) {
			err := database.JoinTx(ctx, db, func(ctx context.Context) error {
				if !database.InTx(ctx) {
					t.Error("fn runs without a transaction")
				}
				return insert(ctx, db, "a")
			})
			if err != nil || ids(t) != "a" {
				t.Fatalf("err %v, ids %q; want a", err, ids(t))
			}
		})
		t.Run("AloneRollsBack", func(t *testing.T) {
			err := database.JoinTx(ctx, db, func(ctx context.Context) error {
				if err := insert(ctx, db, "b"); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || ids(t) != "a" {
				t.Fatalf("err %v, ids %q; want boom, a", err, ids(t))
			}
		})
		t.Run("JoinsTheOuterTransaction", func(t *testing.T) {
			// The joined work commits and rolls back with the outer
			// transaction: no savepoint of its own.
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := database.JoinTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "c") }); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || ids(t) != "a" {
				t.Fatalf("err %v, ids %q; want boom, a", err, ids(t))
			}
			err = database.RunInTx(ctx, db, func(ctx context.Context) error {
				return database.JoinTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "d") })
			})
			if err != nil || ids(t) != "a,d" {
				t.Fatalf("err %v, ids %q; want a,d", err, ids(t))
			}
		})
	}, schema())
}

// thing is a row of the test schema.
type thing struct {
	bun.BaseModel `bun:"table:things"`
	ID            string `bun:"id,pk"`
	N             int64  `bun:"n"`
}

// TestScanAfterServerClosedConnections: the connections a pool keeps are
// closed by the server (a restart, an administrator, a proxy's idle
// timeout); the next queries and a
// transaction, get fresh ones rather than fail.
func TestScanAfterServerClosedConnections(t *testing.T) {
	ctx := context.Background()
	rawURL := dbtest.PostgresURL(t)
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	opts := dbtest.Options()
	opts.MaxConns = 2
	db, err := database.Open(ctx, rawURL+sep+"application_name=closed_by_server", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := database.Migrate(ctx, db, schema()); err != nil {
		t.Fatal(err)
	}
	get := func() error {
		var got thing
		return db.NewSelect().Model(&got).Where("id = ?", "none").Scan(ctx)
	}
	// Two connections in the pool.
	err = database.RunInTx(ctx, db, func(ctx context.Context) error {
		return errors.Join(get(), insert(ctx, db, "x"))
	})
	if !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("warm-up: %v", err)
	}
	admin := dbtest.Postgres(t)
	var closed int
	if err := admin.NewRaw("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'closed_by_server'").Scan(ctx, &closed); err != nil || closed == 0 {
		t.Fatalf("terminated %d connections: %v", closed, err)
	}
	time.Sleep(1100 * time.Millisecond) // the pool checks a connection idle for more than a second
	err = get()
	for i := 0; i < opts.MaxConns && opts.PostgresDriver == "pgdriver" && database.Unavailable(err); i++ {
		// pgdriver does not check a pooled connection before reuse: a
		// query meets each closed one once, a 503 that a retry gets past.
		err = get()
	}
	if !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("query after the server closed the pool's connections: %v", err)
	}
	if err := database.RunInTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "y") }); err != nil {
		t.Fatalf("transaction after the server closed the pool's connections: %v", err)
	}
}

// TestConnectionLostInTransaction: the server closes a transaction's
// connection between two of its statements; the next statement fails and
// the transaction ends with an error — promptly, not waiting on itself —
// and the pool goes on with a fresh connection.
func TestConnectionLostInTransaction(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db := dbtest.Postgres(t, schema())
	admin := dbtest.Postgres(t)
	get := func(ctx context.Context) error {
		var got thing
		return database.Conn(ctx, db).NewSelect().Model(&got).Where("id = ?", "none").Scan(ctx)
	}
	err := database.RunInTx(ctx, db, func(ctx context.Context) error {
		var pid int64
		if err := database.Conn(ctx, db).NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid); err != nil {
			return err
		}
		if _, err := admin.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		if err := get(ctx); err == nil || errors.Is(err, sql.ErrNoRows) {
			t.Errorf("query on the lost connection: %v, want an error", err)
		}
		return get(ctx)
	})
	if err == nil || ctx.Err() != nil {
		t.Fatalf("RunInTx = %v (context: %v), want the lost connection's error, in time", err, ctx.Err())
	}
	if err := get(ctx); !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("query after the lost transaction: %v", err)
	}
}

// TestReadSnapshot: the statements of one ReadSnapshot see the state of
// its first read, however many writes commit between them.
func TestReadSnapshot(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if err := insert(ctx, db, "a"); err != nil {
			t.Fatal(err)
		}
		var before, after int64
		err := database.ReadSnapshot(ctx, db, func(ctx context.Context) error {
			var err error
			if before, err = database.Conn(ctx, db).NewSelect().Table("things").Count(ctx); err != nil {
				return err
			}
			if err := insert(context.Background(), db, "b"); err != nil { // another connection commits
				return err
			}
			after, err = database.Conn(ctx, db).NewSelect().Table("things").Count(ctx)
			return err
		})
		if err != nil || before != 1 || after != 1 || count(t, db) != 2 {
			t.Fatalf("err %v; counted %d then %d in one snapshot, %d after it; want 1, 1, 2", err, before, after, count(t, db))
		}
	}, schema())
}
