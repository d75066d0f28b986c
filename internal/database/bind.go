package database

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// Bun writes every argument into the SQL text, so Postgres receives each
// query as a new statement that it parses and plans again — on every
// request. For the few queries every request runs (authentication, the
// tenant's entitlements, counters, the rows a request creates) that is
// most of their cost on both sides. Args lets a store build such a query
// with Bun as usual but bind its values instead: on Postgres the text
// carries placeholders ($1, $2, …), and the values go to the driver beside
// it, which prepares the statement once per connection and then only
// binds (pgx's statement cache), so that Postgres plans it once. On
// SQLite, where statements are cheap to prepare, nothing changes: Bun
// writes the values into the text as always.
//
// What it buys, measured with bench (POST /api/v1/collections/invoices,
// --quick, two cores, CPU per request, several runs each): with every
// query of the request bound, Postgres spends 0.56–0.64 ms on a create
// and the server 0.57–0.62 ms; with none bound, 1.04–1.13 ms and
// 0.66–0.75 ms. Billing's own two statements (the number, the insert) are
// 0.13 ms of Postgres's share, the insert alone about 0.05 ms; creating a
// ticket and ingesting a webhook gain alike, listing invoices 0.2 ms.
// That is why the stores of billing, support and webhook bind every
// query, in one style: Bun builds the query on Conn(ctx, db), each value
// goes through Add (an insert lists its columns and binds them with
// AddAll), and Scan or Exec runs it.

// Args collects the bound arguments of one query. Make one per query
// with NewArgs, use Add for each value, and run the query with Scan or
// Exec.
type Args struct {
	bind bool
	vals []any
}

// NewArgs returns the arguments of a query to run on db. They are bound
// on Postgres through a *bun.DB, bun.Tx or bun.Conn; on anything else Bun
// writes them into the text.
func NewArgs(db bun.IDB) *Args {
	_, _, known := driverConn(db)
	return &Args{bind: known && IsPostgres(db)}
}

// Add returns an argument standing for v, to use where Bun takes a value
// (Where("id = ?", a.Add(id))). The same Arg may appear several times.
func (a *Args) Add(v any) Arg {
	if !a.bind {
		return Arg{v: v}
	}
	a.vals = append(a.vals, v)
	return Arg{n: len(a.vals), v: v}
}

// AddAll returns an argument for each of vs, in order: the arguments of
// a NewRaw query that lists its columns (NewRaw(q, a.AddAll(x, y)...)).
func (a *Args) AddAll(vs ...any) []any {
	args := make([]any, len(vs))
	for i, v := range vs {
		args[i] = a.Add(v)
	}
	return args
}

// Arg is an argument made by Args.Add.
type Arg struct {
	n int // placeholder number; 0: written into the text
	v any
}

// AppendQuery implements schema.QueryAppender: the placeholder of a bound
// argument, else the value written as Bun writes it.
func (p Arg) AppendQuery(gen schema.QueryGen, b []byte) ([]byte, error) {
	if p.n == 0 {
		return gen.AppendQuery(b, "?", p.v), nil
	}
	return strconv.AppendInt(append(b, '$'), int64(p.n), 10), nil
}

// scanQuery and execQuery are the Bun queries Scan and Exec run.
type (
	scanQuery interface {
		schema.QueryAppender
		Scan(ctx context.Context, dest ...any) error
	}
	execQuery interface {
		schema.QueryAppender
		Exec(ctx context.Context, dest ...any) (sql.Result, error)
	}
)

// queryBufSize is the room Scan and Exec give Bun to write a query's
// text in: the longest of the queries every request runs (an invoice's
// select, 23 columns) fits, so Bun writes it without growing the buffer
// again and again (from nil: 6% of GET invoice's allocated bytes, in
// bun.appendColumns and bytes.growSlice, bench --profile).
const queryBufSize = 1024

// queryBufs keeps the buffers query texts are written in: the text is
// copied into its string anyway, and a fresh buffer per query was 11% of
// the bytes a created invoice allocated (bench --profile, heap).
var queryBufs = sync.Pool{New: func() any { b := make([]byte, 0, queryBufSize); return &b }}

// queryText is q's text as Bun writes it for bdb.
func queryText(q schema.QueryAppender, bdb *bun.DB) (string, error) {
	bp := queryBufs.Get().(*[]byte)
	b, err := q.AppendQuery(bdb.QueryGen(), (*bp)[:0])
	text := intern(b)
	if cap(b) <= 8*queryBufSize { // an outsized one goes to the collector
		*bp = b
		queryBufs.Put(bp)
	}
	return text, err
}

// Scan runs q, built on Conn(ctx, db) with a's arguments, and scans its
// rows into dest as q.Scan(ctx, dest...) does: sql.ErrNoRows when dest
// is a single row (not a slice) and there is none. Bun's query hooks do
// not see it.
func Scan(ctx context.Context, db bun.IDB, q scanQuery, a *Args, dest ...any) error {
	if !a.bind {
		return q.Scan(ctx, dest...)
	}
	t := txOf(ctx)
	bdb, err := bunDB(t, db)
	if err != nil {
		return err
	}
	query, err := queryText(q, bdb)
	if err != nil {
		return err
	}
	return scanBound(ctx, t, db, bdb, query, a.driverArgs(), dest)
}

// Exec runs q, built on Conn(ctx, db) with a's arguments, as q.Exec(ctx)
// does. Bun's query hooks do not see it.
func Exec(ctx context.Context, db bun.IDB, q execQuery, a *Args) (sql.Result, error) {
	if !a.bind {
		return q.Exec(ctx)
	}
	t := txOf(ctx)
	bdb, err := bunDB(t, db)
	if err != nil {
		return nil, err
	}
	query, err := queryText(q, bdb)
	if err != nil {
		return nil, err
	}
	return execBound(ctx, t, db, query, a.driverArgs())
}

// scanBound runs query with args (driverArgs: the mode first) in the
// transaction t, or on db outside one (t nil), and scans its rows into
// dest with bdb, as Scan describes.
func scanBound(ctx context.Context, t *txConn, db bun.IDB, bdb *bun.DB, query string, args, dest []any) error {
	if ok, err := direct(ctx, t, db, func(pc *pgx.Conn) error {
		if kept := t.pending(); kept != nil {
			return pipeline(ctx, pc, kept, &laterStmt{query: query, args: args[1:]}, func(rr *pgconn.ResultReader) error {
				return scanRows(pgx.RowsFromResultReader(pc.TypeMap(), rr), bdb, dest)
			})
		}
		return queryDirect(ctx, pc, bdb, query, args, dest)
	}); ok {
		return err
	}
	conn, _, err := sqlConnOf(t, db)
	if err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if len(dest) == 1 && isSlice(dest[0]) {
		return bdb.ScanRows(ctx, rows, dest...)
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := bdb.ScanRow(ctx, rows, dest...); err != nil {
		return err
	}
	for rows.Next() { // as Bun does: read to the end, where an error may wait
	}
	return rows.Err()
}

// execBound runs query with args (driverArgs: the mode first) in the
// transaction t, or on db outside one (t nil), as Exec describes.
func execBound(ctx context.Context, t *txConn, db bun.IDB, query string, args []any) (sql.Result, error) {
	var res sql.Result
	if ok, err := direct(ctx, t, db, func(pc *pgx.Conn) (err error) {
		if kept := t.pending(); kept != nil {
			return pipeline(ctx, pc, kept, &laterStmt{query: query, args: args[1:]}, func(rr *pgconn.ResultReader) error {
				tag, err := rr.Close()
				res = result(tag.RowsAffected())
				return err
			})
		}
		res, err = execDirect(ctx, pc, query, args)
		return err
	}); ok {
		return res, err
	}
	conn, _, err := sqlConnOf(t, db)
	if err != nil {
		return nil, err
	}
	return conn.ExecContext(ctx, query, args...)
}

// driverArgs are the values to hand to pgx or database/sql. The first
// asks pgx to prepare the statement and keep it in the connection's
// cache, whatever mode the connection uses by default (simple protocol:
// see Open).
func (a *Args) driverArgs() []any {
	return withMode(a.vals)
}

// withMode is vals after pgx.QueryExecModeCacheStatement, as driverArgs
// describes, in a new slice.
func withMode(vals []any) []any {
	args := make([]any, 1+len(vals))
	args[0] = pgx.QueryExecModeCacheStatement
	copy(args[1:], vals)
	return args
}

// bunDB is the *bun.DB whose Bun tables read the rows of a statement in
// the transaction t, or on db outside one (t nil).
func bunDB(t *txConn, db bun.IDB) (*bun.DB, error) {
	if t != nil && t.db != nil {
		return t.db, nil
	}
	_, bdb, err := sqlConnOf(t, db)
	return bdb, err
}

// sqlConnOf returns the database/sql connection and the *bun.DB of the
// transaction t, or of db outside one (t nil).
func sqlConnOf(t *txConn, db bun.IDB) (sqlConn, *bun.DB, error) {
	idb := t.conn(db)
	conn, bdb, ok := driverConn(idb)
	if !ok {
		return nil, nil, fmt.Errorf("database: cannot bind arguments on %T", idb)
	}
	return conn, bdb, nil
}

// sqlConn is a *sql.DB or *sql.Tx.
type sqlConn interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// driverConn returns the database/sql connection under db and its
// *bun.DB; ok is false for an IDB it does not know.
func driverConn(db bun.IDB) (conn sqlConn, bdb *bun.DB, ok bool) {
	switch c := db.(type) {
	case *bun.DB:
		return c.DB, c, true
	case bun.Tx:
		return c.Tx, c.NewSelect().DB(), true
	case bun.Conn:
		return c.Conn, c.NewSelect().DB(), true
	}
	return nil, nil, false
}

// isSlice reports whether dest points to a slice other than []byte.
func isSlice(dest any) bool {
	t := reflect.TypeOf(dest)
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	t = t.Elem()
	return t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8
}

// BindRow makes q, an insert of the single row model row (a pointer to a
// Bun row struct), bind the value of each of the row's columns with a
// instead of writing it into the text. Where a does not bind (SQLite) it
// returns q as it is. The outbound store uses it; the other stores
// list an insert's columns and bind them with AddAll, which keeps the SQL
// in the store and needs no reflection.
func BindRow(q *bun.InsertQuery, a *Args, row any) *bun.InsertQuery {
	if !a.bind {
		return q
	}
	v := reflect.Indirect(reflect.ValueOf(row))
	for _, f := range q.DB().Table(v.Type()).Fields {
		q = q.Value(f.Name, "?", a.Add(f.Value(v).Interface()))
	}
	return q
}
