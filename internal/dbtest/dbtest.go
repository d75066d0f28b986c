// Package dbtest gives each test a fresh, migrated database: SQLite always,
// and Postgres from TENANTKIT_TEST_DATABASE_URL, else a dockertest container
// when a Docker engine answers, else a skip that says how to enable it —
// unless TENANTKIT_REQUIRE_POSTGRES=1, which turns the skip into a failure.
// With TENANTKIT_TEST_POOLER_URL the tests reach their databases through a
// connection pooler (PgBouncer in transaction mode) in front of that server.
// A database migrated with some schema also gets River's tables, as
// tenantkit.Migrate applies them: services that enqueue webhook deliveries
// work on it, and App.Ready finds nothing pending.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/dockertest/v3"
	"github.com/ory/dockertest/v3/docker"
	"github.com/uptrace/bun"
	_ "modernc.org/sqlite" // the tests' SQLite: the library itself does not link it

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// Environment variables that steer the Postgres tests.
const (
	EnvDatabaseURL     = "TENANTKIT_TEST_DATABASE_URL"
	EnvRequirePostgres = "TENANTKIT_REQUIRE_POSTGRES"
	// EnvPostgresDriver picks the driver of the Postgres tests: "pgx"
	// (pgx through database/sql, the default) or "pgdriver" (Bun's own).
	EnvPostgresDriver = "TENANTKIT_TEST_PG_DRIVER"
	// EnvPoolerURL names a connection pooler in front of the server of
	// EnvDatabaseURL, e.g. postgres://postgres@127.0.0.1:6432/postgres?sslmode=disable
	// for PgBouncer (its [databases] a wildcard to that server). A test's
	// database is still created and dropped on the server directly, as an
	// administrator would, not through the pooler that holds connections
	// to it; the test's own connections go through the pooler: this URL,
	// its path replaced by the database's name, its query kept.
	EnvPoolerURL = "TENANTKIT_TEST_POOLER_URL"
	// EnvRequirePooler=1 fails every Postgres test when EnvPoolerURL is
	// not set: a run meant to go through the pooler cannot go around it.
	EnvRequirePooler = "TENANTKIT_REQUIRE_POOLER"
)

// Each runs fn as two subtests, "sqlite" and "postgres", each on a fresh
// database migrated with sources. The postgres subtest skips (or fails, see
// the package doc) when no Postgres is available.
func Each(t *testing.T, fn func(t *testing.T, db *bun.DB), sources ...database.Source) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t, sources...)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t, sources...)) })
}

// SQLite opens a migrated SQLite database in a temporary file.
func SQLite(tb testing.TB, sources ...database.Source) *bun.DB {
	tb.Helper()
	return open(tb, SQLiteURL(tb), sources)
}

// SQLiteURL returns the URL of a new, empty SQLite database file.
func SQLiteURL(tb testing.TB) string {
	tb.Helper()
	return "sqlite:" + filepath.Join(tb.TempDir(), "tenantkit.db")
}

// Postgres opens a migrated, freshly created Postgres database: a copy of
// the template of sources (template.go), or an empty one without sources.
func Postgres(tb testing.TB, sources ...database.Source) *bun.DB {
	tb.Helper()
	if len(sources) == 0 {
		return open(tb, PostgresURL(tb), nil)
	}
	db := connect(tb, fromTemplate(tb, sources))
	Guard(tb, db)
	return db
}

// PostgresURL creates an empty Postgres database for this test, drops it
// when the test ends, and returns its URL.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	base, err := serverURL()
	if err != nil {
		if os.Getenv(EnvRequirePostgres) == "1" {
			tb.Fatalf("dbtest: Postgres required (%s=1) but unavailable: %v", EnvRequirePostgres, err)
		}
		tb.Skipf("dbtest: skipping Postgres: %v. Set %s=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable or start a Docker engine to run it.", err, EnvDatabaseURL)
	}
	name := "tk_test_" + randomHex(6)
	ctx := context.Background()
	if err := adminExec(ctx, base, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("dbtest: create database: %v", err)
	}
	tb.Cleanup(func() {
		if err := adminExec(context.Background(), base, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Logf("dbtest: drop database %s: %v", name, err)
		}
	})
	return clientURL(tb, base, name)
}

// clientURL is the URL by which a test reaches database name on the
// server of base: through the pooler of EnvPoolerURL when it is set.
func clientURL(tb testing.TB, base, name string) string {
	tb.Helper()
	env := EnvDatabaseURL
	if pooler := os.Getenv(EnvPoolerURL); pooler != "" {
		base, env = pooler, EnvPoolerURL
	} else if os.Getenv(EnvRequirePooler) == "1" {
		tb.Fatalf("dbtest: a pooler is required (%s=1) but %s is not set", EnvRequirePooler, EnvPoolerURL)
	}
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("dbtest: parse %s: %v", env, err)
	}
	u.Path = "/" + name
	return u.String()
}

// connect opens the database of rawURL until the test ends.
func connect(tb testing.TB, rawURL string) *bun.DB {
	tb.Helper()
	db, err := database.Open(context.Background(), rawURL, Options())
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

func open(tb testing.TB, rawURL string, sources []database.Source) *bun.DB {
	tb.Helper()
	ctx := context.Background()
	db := connect(tb, rawURL)
	if len(sources) > 0 {
		// Migration by migration, not from tenantkit.Migrate's snapshot:
		// sources are often one domain's, and the regular path is tested.
		if _, err := database.MigrateWith(ctx, db, "", sources, riverqueue.Migrate); err != nil {
			tb.Fatalf("dbtest: %v", err)
		}
		Guard(tb, db)
	}
	return db
}

// Options are the database.Options of the test databases: the Postgres
// driver EnvPostgresDriver names.
func Options() database.Options {
	return database.Options{PostgresDriver: os.Getenv(EnvPostgresDriver)}
}

// RiverDB is the pool to pass as riverqueue.Options.DB for db: nil, except
// on Bun's pgdriver, where River needs a pgx pool on the same database
// (riverqueue.Options.DB says why), reached as db is (through the pooler
// of EnvPoolerURL when it is set). It is closed with tb.
func RiverDB(tb testing.TB, db *bun.DB) *sql.DB {
	tb.Helper()
	if os.Getenv(EnvPostgresDriver) != "pgdriver" || !database.IsPostgres(db) {
		return nil
	}
	var name string
	if err := db.NewRaw("SELECT current_database()").Scan(context.Background(), &name); err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	base, err := serverURL()
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	pool, err := database.Open(context.Background(), clientURL(tb, base, name), database.Options{MaxConns: 4})
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	tb.Cleanup(func() { _ = pool.Close() })
	return pool.DB
}

// Guard adds a database.TenantGuard to db, a migrated database, and fails
// tb at its end for every statement on a tenant table that escaped the
// tenant filter.
func Guard(tb testing.TB, db *bun.DB) {
	tb.Helper()
	g, err := database.NewTenantGuard(context.Background(), db)
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	db.AddQueryHook(g)
	tb.Cleanup(func() {
		for _, v := range g.Violations() {
			tb.Errorf("dbtest: a statement escaped the tenant filter (database.ForTenant, or database.AcrossTenants where meant): %s", v)
		}
	})
}

// adminExec runs one statement on the server's maintenance connection.
func adminExec(ctx context.Context, rawURL, stmt string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, rawURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

// adminQueryRow scans the one row of query into dest, on the server's
// maintenance connection.
func adminQueryRow(ctx context.Context, rawURL, query string, args []any, dest ...any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, rawURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, query, args...).Scan(dest...)
}

// serverURL finds a Postgres server once per test binary: the env URL, else
// a container started with dockertest (removed after an hour at the latest).
var serverURL = sync.OnceValues(func() (string, error) {
	if u := os.Getenv(EnvDatabaseURL); u != "" {
		return u, nil
	}
	pool, err := dockertest.NewPool("")
	if err != nil {
		return "", fmt.Errorf("%s is not set and Docker is unavailable (%v)", EnvDatabaseURL, err)
	}
	if err := pool.Client.Ping(); err != nil {
		return "", fmt.Errorf("%s is not set and no Docker engine answers (%v)", EnvDatabaseURL, err)
	}
	res, err := pool.RunWithOptions(&dockertest.RunOptions{
		Repository: "postgres",
		Tag:        "16-alpine",
		Env:        []string{"POSTGRES_HOST_AUTH_METHOD=trust"},
	}, func(hc *docker.HostConfig) {
		hc.AutoRemove = true
		hc.RestartPolicy = docker.RestartPolicy{Name: "no"}
	})
	if err != nil {
		return "", fmt.Errorf("start Postgres container: %w", err)
	}
	_ = res.Expire(3600)
	u := fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", res.GetHostPort("5432/tcp"))
	pool.MaxWait = 60 * time.Second
	if err := pool.Retry(func() error { return adminExec(context.Background(), u, "SELECT 1") }); err != nil {
		return "", fmt.Errorf("Postgres container did not become ready: %w", err)
	}
	return u, nil
})

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
