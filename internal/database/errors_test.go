package database_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// provocation makes the database fail one way and returns the driver's
// error as is.
type provocation struct {
	name        string
	provoke     func(t *testing.T, db *bun.DB) error
	unavailable bool
}

// TestWrapClassifiesDriverErrors provokes real failures on each dialect
// and checks which ones Wrap marks ErrUnavailable (503: the database
// cannot serve now) and which are plain errors (500: the statement was
// refused, which input validation must prevent), and that no driver type
// leaves Wrap.
func TestWrapClassifiesDriverErrors(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		cases := sqliteProvocations
		if db.Dialect().Name().String() == "pg" {
			cases = postgresProvocations
		}
		for _, tt := range append(cases, commonProvocations...) {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.provoke(t, db)
				if err == nil {
					t.Fatal("the provocation did not fail")
				}
				t.Logf("%T: %v", err, err)
				if got := database.Unavailable(err); got != tt.unavailable {
					t.Errorf("Unavailable(%v (%T)) = %v, want %v", err, err, got, tt.unavailable)
				}
				wrapped := database.Wrap(err)
				if got := errors.Is(wrapped, database.ErrUnavailable); got != tt.unavailable {
					t.Errorf("Wrap(%v) is ErrUnavailable = %v, want %v", err, got, tt.unavailable)
				}
				if !strings.Contains(wrapped.Error(), err.Error()) {
					t.Errorf("Wrap(%v) = %q: the driver's message is lost for the logs", err, wrapped)
				}
				var pg *pgconn.PgError
				var pgd pgdriver.Error
				var lite *sqlite.Error
				if errors.As(wrapped, &pg) || errors.As(wrapped, &pgd) || errors.As(wrapped, &lite) {
					t.Errorf("Wrap(%v) lets the driver's error type out", err)
				}
			})
		}
	}, schema())
}

// commonProvocations fail the same way on both dialects.
var commonProvocations = []provocation{
	{"DeadlineExceeded", func(t *testing.T, db *bun.DB) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		<-ctx.Done()
		_, err := db.ExecContext(ctx, "SELECT 1")
		return err
	}, true},
	{"Canceled", func(t *testing.T, db *bun.DB) error {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := db.ExecContext(ctx, "SELECT 1")
		return err
	}, true},
	{"Closed", func(t *testing.T, db *bun.DB) error {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.Close()
		_, err = conn.ExecContext(context.Background(), "SELECT 1")
		return err
	}, true},
	{"SyntaxError", func(t *testing.T, db *bun.DB) error {
		_, err := db.ExecContext(context.Background(), "SELEC 1")
		return err
	}, false},
	{"NulByteFormatted", func(t *testing.T, db *bun.DB) error {
		// Bun refuses to write a NUL into SQL and writes a marker that the
		// database cannot parse.
		_, err := db.NewRaw("SELECT id FROM things WHERE id = ?", "ten_\x00").Exec(context.Background())
		return err
	}, false},
	{"UniqueViolation", func(t *testing.T, db *bun.DB) error {
		ctx := context.Background()
		if err := insert(ctx, db, "dup"); err != nil {
			t.Fatal(err)
		}
		return insert(ctx, db, "dup")
	}, false},
	{"NotNullViolation", func(t *testing.T, db *bun.DB) error {
		_, err := db.ExecContext(context.Background(), "INSERT INTO things (id, n) VALUES ('x', NULL)")
		return err
	}, false},
}

// postgresProvocations are Postgres's own failures. Those that need a
// crash or an exhausted server to happen for real are raised by the
// server with their SQLSTATE (RAISE … USING ERRCODE), which reaches the
// driver exactly as the real failure would.
var postgresProvocations = []provocation{
	{"ConnectionRefused", func(t *testing.T, db *bun.DB) error {
		ctx := context.Background()
		_, err := database.Open(ctx, "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", database.Options{})
		return err
	}, true},
	{"TerminatedBackend", func(t *testing.T, db *bun.DB) error {
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var pid int
		if err := conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		_, err = conn.ExecContext(ctx, "SELECT 1")
		return err
	}, true},
	{"ConnectionLost", func(t *testing.T, db *bun.DB) error {
		// A connection through a proxy that drops it in the middle of a
		// query and takes no new ones, as a network failure would.
		ctx := context.Background()
		p := newCutProxy(t, db)
		viaProxy, err := database.Open(ctx, p.url, database.Options{MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer viaProxy.Close()
		// One connection, so that database/sql cannot retry on another.
		conn, err := viaProxy.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		time.AfterFunc(100*time.Millisecond, p.cut)
		_, err = conn.ExecContext(ctx, "SELECT pg_sleep(2)")
		return err
	}, true},
	{"StatementTimeout", func(t *testing.T, db *bun.DB) error {
		return onConn(t, db, "SET statement_timeout = '20ms'", "SELECT pg_sleep(1)")
	}, true},
	{"LockTimeout", func(t *testing.T, db *bun.DB) error {
		ctx := context.Background()
		holder, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback()
		if _, err := holder.ExecContext(ctx, "LOCK TABLE things IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
		return onConn(t, db, "SET lock_timeout = '20ms'", "SELECT count(*) FROM things")
	}, true},
	{"ReadOnlyTransaction", func(t *testing.T, db *bun.DB) error {
		ctx := context.Background()
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		_, err = tx.ExecContext(ctx, "INSERT INTO things (id, n) VALUES ('ro', 1)")
		return err
	}, true},
	{"AdminShutdown", raise("57P01"), true},
	{"CannotConnectNow", raise("57P03"), true},
	{"TooManyConnections", raise("53300"), true},
	{"DiskFull", raise("53100"), true},
	{"ConnectionFailure", raise("08006"), true},
	{"SerializationFailure", raise("40001"), true},
	{"DeadlockDetected", raise("40P01"), true},
	{"InternalError", raise("XX000"), false},
	{"StringTooLong", func(t *testing.T, db *bun.DB) error {
		return onConn(t, db, "CREATE TEMP TABLE short (s varchar(2))", "INSERT INTO short (s) VALUES ('abc')")
	}, false},
	{"UntranslatableCharacter", func(t *testing.T, db *bun.DB) error {
		_, err := db.ExecContext(context.Background(), "SELECT convert_to(?, 'LATIN1')", "€")
		return err
	}, false},
}

// sqliteProvocations are SQLite's own failures.
var sqliteProvocations = []provocation{
	{"Busy", func(t *testing.T, db *bun.DB) error {
		ctx := context.Background()
		holder, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: takes the write lock
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback()
		return onConn(t, db, "PRAGMA busy_timeout = 0", "INSERT INTO things (id, n) VALUES ('busy', 1)")
	}, true},
	{"CannotOpen", func(t *testing.T, db *bun.DB) error {
		_, err := database.Open(context.Background(), "sqlite:"+t.TempDir()+"/missing/dir/x.db", database.Options{})
		return err
	}, true},
}

// cutProxy forwards TCP connections to a Postgres server until cut.
type cutProxy struct {
	url   string
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

// newCutProxy listens on a free port and forwards to the server of db;
// url names db's database through the proxy.
func newCutProxy(t *testing.T, db *bun.DB) *cutProxy {
	t.Helper()
	var name string
	if err := db.QueryRowContext(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(os.Getenv(dbtest.EnvDatabaseURL))
	if err != nil || u.Host == "" {
		t.Skipf("needs %s to reach the server through a proxy", dbtest.EnvDatabaseURL)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	target := u.Host
	u.Host, u.Path = ln.Addr().String(), "/"+name
	p := &cutProxy{url: u.String(), ln: ln}
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, client, server)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(server, client); _ = server.Close() }()
			go func() { _, _ = io.Copy(client, server); _ = client.Close() }()
		}
	}()
	return p
}

// cut closes the proxy and every connection made through it.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.ln.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

// raise makes Postgres fail a statement with the given SQLSTATE.
func raise(code string) func(t *testing.T, db *bun.DB) error {
	return func(t *testing.T, db *bun.DB) error {
		_, err := db.ExecContext(context.Background(),
			"DO $$ BEGIN RAISE EXCEPTION 'provoked' USING ERRCODE = '"+code+"'; END $$")
		return err
	}
}

// onConn runs setup and then stmt on one connection of db, returning
// stmt's error.
func onConn(t *testing.T, db *bun.DB, setup, stmt string) error {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, setup); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, stmt)
	return err
}
