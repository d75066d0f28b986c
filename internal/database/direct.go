package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// On Postgres, Scan and Exec run a bound query on the pgx connection under
// database/sql (sql.Conn.Raw) and read its rows straight into the store's
// row types (scan.go), as Bun's own field scanners would. What
// database/sql adds around pgx for each query — its Rows, a goroutine
// watching the context, every value converted through driver.Value and
// convertAssign — is skipped.
// Server CPU per request, before → after, one `cd bench && go run .
// --quick` each: create invoice 1.17 → 0.93 ms, webhook ingest 1.09 →
// 0.85, finalize 0.95 → 0.84, get invoice 0.38 → 0.36, preview 0.38 →
// 0.35 (the baseline's: 0.67, 0.60–0.67, 0.60, 0.27, 0.25). The
// connection is the transaction's when ctx carries one (RunInTx keeps it
// beside the transaction), else one taken from the pool for the query.
// Every other query, and SQLite, goes through database/sql as before;
// TestArgs holds each kind of destination to what Bun's Scan gives.

// direct runs fn on the pgx connection for db in ctx: the connection of
// t, the transaction ctx carries (txOf), when RunInTx began it on
// Postgres, else outside a transaction (t nil) a connection of db's pool
// (a *bun.DB on Postgres). ok is false when there is no such connection
// to reach; fn has not run then. Outside a transaction, a query that
// fails before it reached the server (a pooled connection the server
// closed) is run again on another connection, as database/sql does.
func direct(ctx context.Context, t *txConn, db bun.IDB, fn func(*pgx.Conn) error) (ok bool, err error) {
	if t != nil {
		if t.raw == nil {
			return false, nil
		}
		return true, onPgx(t.raw, false, fn)
	}
	bdb, isDB := db.(*bun.DB)
	if !isDB || !IsPostgres(bdb) {
		return false, nil
	}
	for attempt := 0; ; attempt++ {
		c, err := bdb.DB.Conn(ctx)
		if err != nil {
			return true, err
		}
		err = onPgx(c, true, fn)
		_ = c.Close() // gives the connection back; it is already gone after a bad one
		if attempt < 2 && errors.Is(err, driver.ErrBadConn) {
			continue
		}
		return true, err
	}
}

// onPgx runs fn on the pgx connection under c. With mark, a failure that
// left the connection unusable is marked driver.ErrBadConn, so that
// database/sql drops the connection rather than pooling it again and
// direct retries on another. Not on a transaction's connection: there
// database/sql would close c from within Raw while the transaction holds
// it, and wait for the transaction forever; the transaction fails instead,
// and database/sql drops the connection when it ends (its check that a
// connection is still open before pooling it).
func onPgx(c *sql.Conn, mark bool, fn func(*pgx.Conn) error) error {
	return c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("database: a %T is not a pgx connection", dc)
		}
		pc := sc.Conn()
		if pc.IsClosed() {
			err := errors.New("database: connection closed")
			if mark {
				return badConn{err}
			}
			return err
		}
		err := fn(pc)
		if mark && err != nil && (pgconn.SafeToRetry(err) || pc.IsClosed()) {
			return badConn{err}
		}
		return err
	})
}

// badConn is an error after which its connection is not to be used again.
type badConn struct{ err error }

func (e badConn) Error() string { return e.err.Error() }
func (e badConn) Unwrap() error { return e.err }

// Is makes a badConn match driver.ErrBadConn.
func (e badConn) Is(target error) bool { return target == driver.ErrBadConn }

// queryDirect runs query with args on pc and scans its rows into dest as
// Bun's Scan would: one struct row, a slice of them, or one scalar per
// column of a single row (sql.ErrNoRows when there is none).
func queryDirect(ctx context.Context, pc *pgx.Conn, bdb *bun.DB, query string, args []any, dest []any) error {
	rows, err := pc.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	return scanRows(rows, bdb, dest)
}

// execDirect runs query with args on pc.
func execDirect(ctx context.Context, pc *pgx.Conn, query string, args []any) (sql.Result, error) {
	tag, err := pc.Exec(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return result(tag.RowsAffected()), nil
}

// result is the sql.Result of a statement run directly on pgx.
type result int64

// LastInsertId is not supported by Postgres.
func (result) LastInsertId() (int64, error) {
	return 0, errors.New("database: LastInsertId is not supported by Postgres")
}

// RowsAffected is the number of rows the statement touched.
func (r result) RowsAffected() (int64, error) { return int64(r), nil }
