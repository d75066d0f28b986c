// Package database is the shared storage plumbing of tenantkit: it opens a
// Bun database from one URL (Postgres or pure-Go SQLite), runs the embedded
// migrations of every domain, and carries a transaction in the context so
// that one operation spanning several domains commits or rolls back as one.
package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// Options tunes the connection pool. The zero value picks sensible sizes.
type Options struct {
	// MaxConns caps open connections. Idle connections are kept at the same
	// number so that a busy pool never churns through reconnects.
	MaxConns int
}

// Open connects to the database named by rawURL and checks that it answers:
//
//	postgres://user@host:5432/db?sslmode=disable   (also postgresql://)
//	sqlite:./tenantkit.db                          (also sqlite:///abs/path, file:…)
//
// SQLite runs in WAL mode with foreign keys on, a busy timeout, and
// "BEGIN IMMEDIATE" transactions so that concurrent writers queue instead of
// failing: counters stay exact under load on both dialects.
func Open(ctx context.Context, rawURL string, opts Options) (*bun.DB, error) {
	var db *bun.DB
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		size := opts.MaxConns
		if size <= 0 {
			size = max(8, 4*runtime.GOMAXPROCS(0))
		}
		cfg, err := poolConfig(rawURL, size)
		if err != nil {
			return nil, err
		}
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("database: connect to %s: %w", redact(rawURL), err)
		}
		db = bun.NewDB(openPool(pool), pgdialect.New())
	case strings.HasPrefix(rawURL, "sqlite:"), strings.HasPrefix(rawURL, "file:"):
		dsn, err := sqliteDSN(rawURL)
		if err != nil {
			return nil, err
		}
		sqldb, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("database: open sqlite: %w", err)
		}
		size := opts.MaxConns
		if size <= 0 {
			size = max(4, runtime.GOMAXPROCS(0))
		}
		sqldb.SetMaxOpenConns(size)
		sqldb.SetMaxIdleConns(size)
		db = bun.NewDB(sqldb, sqlitedialect.New())
	default:
		return nil, fmt.Errorf("database: unsupported URL %q: want postgres://… or sqlite:…", redact(rawURL))
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("database: connect to %s: %w", redact(rawURL), err)
	}
	return db, nil
}

// IsPostgres reports whether db speaks the Postgres dialect. Stores use it
// only where the two dialects need different SQL (locking clauses).
func IsPostgres(db bun.IDB) bool {
	return db.Dialect().Name() == dialect.PG
}

// DialectName is the folder name of a dialect's migrations: "postgres" or "sqlite".
func DialectName(db bun.IDB) string {
	if IsPostgres(db) {
		return "postgres"
	}
	return "sqlite"
}

// pgxConfig parses a Postgres URL. Bun writes every argument into the SQL
// text, so each query is new to pgx: its default mode would prepare it
// (extra round trips) and then evict it from the statement cache. The
// simple protocol sends the text once, in one round trip. A URL that sets
// default_query_exec_mode keeps its choice. The few queries built with
// Args (bind.go) carry their values apart from the text and ask pgx for
// its statement cache whatever the default.
func pgxConfig(rawURL string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("database: parse %s: %w", redact(rawURL), err)
	}
	if !strings.Contains(rawURL, "default_query_exec_mode=") {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	return cfg, nil
}

// poolConfig is the pgx pool of size connections that rawURL names, its
// connections configured as pgxConfig says.
func poolConfig(rawURL string, size int) (*pgxpool.Config, error) {
	cfg, err := pgxConfig(rawURL)
	if err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("database: parse %s: %w", redact(rawURL), err)
	}
	pc.ConnConfig.DefaultQueryExecMode = cfg.DefaultQueryExecMode
	pc.MaxConns = int32(size)
	pc.MaxConnIdleTime = 5 * time.Minute
	return pc, nil
}

// openPool serves database/sql from a pgx pool, which enforces the
// connection limit and hands a freed connection to the longest waiter;
// database/sql keeps no connection of its own (OpenDBFromPool sets its idle
// limit to 0) and sets no limit. database/sql's own limit hands a freed
// connection to a random waiter: with it, tenantkit's p99 at 64 requests
// in flight was 2.2–5.6× the FIFO baseline's (list 5.56×, webhook 4.22×,
// create ticket 2.62×, entitlements 2.22×); with the pool's, 0.3–1.2×
// (1.23×, 0.29×, 1.13×, 0.88×) — one run each of
// `cd bench && go run . --quick`, "p99 at 64 in flight". Closing the
// sql.DB closes the pool.
func openPool(pool *pgxpool.Pool) *sql.DB {
	sqldb := sql.OpenDB(poolConnector{Connector: stdlib.GetPoolConnector(pool), pool: pool})
	sqldb.SetMaxIdleConns(0)
	return sqldb
}

// poolConnector is database/sql's connector on a pgx pool that closes the
// pool with the sql.DB (sql.DB.Close closes a connector that is an
// io.Closer).
type poolConnector struct {
	driver.Connector
	pool *pgxpool.Pool
}

// Close closes the pool.
func (c poolConnector) Close() error {
	c.pool.Close()
	return nil
}

// sqliteDSN turns "sqlite:path" into the modernc DSN with the pragmas
// tenantkit relies on. An existing query string is kept and extended.
func sqliteDSN(rawURL string) (string, error) {
	path := rawURL
	path = strings.TrimPrefix(path, "sqlite://")
	path = strings.TrimPrefix(path, "sqlite:")
	path = strings.TrimPrefix(path, "file:")
	query := ""
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	if path == "" {
		return "", fmt.Errorf("database: sqlite URL %q has no path", rawURL)
	}
	if path == ":memory:" {
		return "", fmt.Errorf("database: in-memory sqlite is not supported (each connection would see its own database); use a file")
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("database: sqlite URL %q: %w", rawURL, err)
	}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		values.Add("_pragma", p)
	}
	if values.Get("_txlock") == "" {
		values.Set("_txlock", "immediate")
	}
	return "file:" + path + "?" + values.Encode(), nil
}

// redact hides a password in a database URL so that it can be logged.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
