// Package database is the shared storage plumbing of tenantkit: it opens a
// Bun database from one URL (Postgres, or SQLite where a program links the
// pure-Go driver modernc.org/sqlite, as the reference server does), runs the embedded
// migrations of every domain, and carries a transaction in the context so
// that one operation spanning several domains commits or rolls back as one.
package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Options tunes the connection pool. The zero value picks sensible sizes.
type Options struct {
	// MaxConns caps open connections. Idle connections are kept at the same
	// number so that a busy pool never churns through reconnects.
	MaxConns int
	// PostgresDriver names the database/sql driver for a Postgres URL:
	// "pgx" (pgx through database/sql, the default) or "pgdriver" (Bun's
	// own). tenantkit runs every statement through Bun, so either works;
	// the test suites run on both.
	PostgresDriver string
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
		cfg, err := pgxConfig(rawURL)
		if err != nil {
			return nil, err
		}
		size := opts.MaxConns
		if size <= 0 {
			size = DefaultMaxConns()
		}
		switch opts.PostgresDriver {
		case "", "pgx":
			db = bun.NewDB(openPostgres(cfg, size), pgdialect.New())
		case "pgdriver":
			db = bun.NewDB(openPgdriver(rawURL, size), pgdialect.New())
		default:
			return nil, fmt.Errorf("database: unknown Postgres driver %q (pgx or pgdriver)", opts.PostgresDriver)
		}
	case strings.HasPrefix(rawURL, "sqlite:"), strings.HasPrefix(rawURL, "file:"):
		dsn, err := sqliteDSN(rawURL)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(sql.Drivers(), "sqlite") {
			return nil, errors.New("database: SQLite is not linked into this program (import _ \"modernc.org/sqlite\")")
		}
		sqldb, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("database: open sqlite: %w", err)
		}
		size := opts.MaxConns
		if size <= 0 {
			size = max(4, runtime.GOMAXPROCS(0)) // SQLite writes one at a time: few connections do
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

// pgxConfig parses a Postgres URL. Bun writes every value into the SQL
// text, so pgx sends each statement with the simple protocol, in one
// round trip, rather than preparing a text it will not see again. A URL
// that sets default_query_exec_mode keeps its choice.
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

// DefaultMaxConns is the size of a Postgres pool when Options.MaxConns is
// not set: four connections per CPU, at least eight.
func DefaultMaxConns() int {
	return max(8, 4*runtime.GOMAXPROCS(0))
}

// openPostgres is database/sql's own pool of size pgx connections, all
// kept open once made (an idle one is closed after five minutes); the
// server's in-flight door keeps its waiters few (docs/performance.md).
func openPostgres(cfg *pgx.ConnConfig, size int) *sql.DB {
	sqldb := stdlib.OpenDB(*cfg)
	sqldb.SetMaxOpenConns(size)
	sqldb.SetMaxIdleConns(size)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return sqldb
}

// openPgdriver is a pool of size connections of Bun's own Postgres
// driver. pgdriver does not know pgx's default_query_exec_mode; it is
// dropped from the URL.
func openPgdriver(rawURL string, size int) *sql.DB {
	if u, err := url.Parse(rawURL); err == nil {
		q := u.Query()
		q.Del("default_query_exec_mode")
		u.RawQuery = q.Encode()
		rawURL = u.String()
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(rawURL)))
	sqldb.SetMaxOpenConns(size)
	sqldb.SetMaxIdleConns(size)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return sqldb
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
