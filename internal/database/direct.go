package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// On Postgres, Scan and Exec run a bound query on the pgx connection under
// database/sql (sql.Conn.Raw) and read its rows straight into the store's
// row types with Bun's own field scanners. What database/sql adds around
// pgx for each query — its Rows, a goroutine watching the context, every
// value converted through driver.Value and convertAssign — is skipped.
// Server CPU per request, before → after, one `cd bench && go run .
// --quick` each: create invoice 1.17 → 0.93 ms, webhook ingest 1.09 →
// 0.85, finalize 0.95 → 0.84, get invoice 0.38 → 0.36, preview 0.38 →
// 0.35 (the baseline's: 0.67, 0.60–0.67, 0.60, 0.27, 0.25). The
// connection is the transaction's when ctx carries one (RunInTx keeps it
// beside the transaction), else one taken from the pool for the query.
// Every other query, and SQLite, goes through database/sql as before;
// TestArgs holds each kind of destination to what Bun's Scan gives.

// direct runs fn on the pgx connection for db in ctx: the transaction's
// connection when ctx carries a transaction begun by RunInTx on Postgres,
// else a connection of db's pool (a *bun.DB on Postgres). ok is false when
// there is no such connection to reach; fn has not run then. Outside a
// transaction, a query that fails before it reached the server (a pooled
// connection the server closed) is run again on another connection, as
// database/sql does.
func direct(ctx context.Context, db bun.IDB, fn func(*pgx.Conn) error) (ok bool, err error) {
	if t, in := ctx.Value(txKey{}).(txConn); in {
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

// scanRows reads rows to the end into dest, as queryDirect describes, and
// closes them.
func scanRows(rows pgx.Rows, bdb *bun.DB, dest []any) error {
	defer rows.Close()
	var err error
	many := len(dest) == 1 && isSlice(dest[0])
	if many {
		reflect.ValueOf(dest[0]).Elem().SetLen(0)
	}
	var s *rowScanner // made at the first row: a failed statement has no columns
	for rows.Next() {
		if s != nil && !many {
			continue // as Bun does: read to the end, where an error may wait
		}
		if s == nil {
			if s, err = newRowScanner(bdb, rows.FieldDescriptions(), dest); err != nil {
				return err
			}
		}
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		if err := s.scan(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if s == nil && !many {
		return sql.ErrNoRows
	}
	return nil
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

// rowScanner puts the values of each row where dest wants them.
type rowScanner struct {
	many  bool          // dest is a slice: one element per row
	slice reflect.Value // the slice dest points to
	ptr   bool          // the slice's elements are pointers to structs
	elem  reflect.Type  // the struct (or scalar) type of one row
	// fields are the row struct's fields by column, for a struct row;
	// scanners are one per column otherwise.
	fields   []*schema.Field
	scanners []schema.ScannerFunc
	dest     []reflect.Value // the scalar destinations of a single row
	strct    reflect.Value   // the single struct row
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	scannerType = reflect.TypeFor[sql.Scanner]()
)

// isRow reports whether t is a struct scanned column by column into its
// fields (a Bun row type) rather than as one value.
func isRow(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != timeType && !reflect.PointerTo(t).Implements(scannerType)
}

// newRowScanner reads dest, as Scan takes it, against the columns of the
// rows to come: a Bun row struct (or a slice of them) is filled by column
// name, anything else column by column in order.
func newRowScanner(bdb *bun.DB, cols []pgconn.FieldDescription, dest []any) (*rowScanner, error) {
	s := &rowScanner{}
	if len(dest) == 1 {
		v := reflect.ValueOf(dest[0])
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return nil, fmt.Errorf("database: scan into %T, not a pointer", dest[0])
		}
		v = v.Elem()
		if isSlice(dest[0]) {
			s.many, s.slice = true, v
			s.elem = v.Type().Elem()
			if s.elem.Kind() == reflect.Pointer {
				s.ptr, s.elem = true, s.elem.Elem()
			}
		}
		if isRow(s.elemOr(v.Type())) {
			t := bdb.Table(s.elemOr(v.Type()))
			s.fields = make([]*schema.Field, len(cols))
			for i, c := range cols {
				if s.fields[i] = t.LookupField(c.Name); s.fields[i] == nil {
					return nil, fmt.Errorf("database: %s has no column %q", t, c.Name)
				}
			}
			if !s.many {
				s.strct = v
			}
			return s, nil
		}
		if s.many {
			s.scanners = []schema.ScannerFunc{schema.Scanner(s.elem)}
			return s, nil
		}
	}
	if len(dest) != len(cols) {
		return nil, fmt.Errorf("database: %d destinations for %d columns", len(dest), len(cols))
	}
	for _, d := range dest {
		v := reflect.ValueOf(d)
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return nil, fmt.Errorf("database: scan into %T, not a pointer", d)
		}
		s.dest = append(s.dest, v.Elem())
		s.scanners = append(s.scanners, schema.Scanner(v.Elem().Type()))
	}
	return s, nil
}

// elemOr is the slice's element type when dest is a slice, else t.
func (s *rowScanner) elemOr(t reflect.Type) reflect.Type {
	if s.many {
		return s.elem
	}
	return t
}

// scan puts one row's values where they go.
func (s *rowScanner) scan(vals []any) error {
	for i, v := range vals {
		vals[i] = driverValue(v)
	}
	if !s.many {
		if s.fields != nil {
			return s.scanStruct(s.strct, vals)
		}
		for i, v := range vals {
			if err := s.scanners[i](s.dest[i], v); err != nil {
				return fmt.Errorf("database: column %d: %w", i, err)
			}
		}
		return nil
	}
	row := reflect.New(s.elem).Elem()
	if s.fields != nil {
		if err := s.scanStruct(row, vals); err != nil {
			return err
		}
	} else if err := s.scanners[0](row, vals[0]); err != nil {
		return fmt.Errorf("database: column 0: %w", err)
	}
	if s.ptr {
		row = row.Addr()
	}
	s.slice.Set(reflect.Append(s.slice, row))
	return nil
}

// scanStruct puts one row's values into the fields of strct.
func (s *rowScanner) scanStruct(strct reflect.Value, vals []any) error {
	for i, v := range vals {
		if err := s.fields[i].ScanValue(strct, v); err != nil {
			return fmt.Errorf("database: column %s: %w", s.fields[i].Name, err)
		}
	}
	return nil
}

// driverValue is v, as pgx decodes it, in the type database/sql would
// hand Bun's scanners (driver.Value): integers as int64, floats as
// float64. Text, bytea, booleans and timestamps already are.
func driverValue(v any) any {
	switch v := v.(type) {
	case int32:
		return int64(v)
	case int16:
		return int64(v)
	case float32:
		return float64(v)
	}
	return v
}
