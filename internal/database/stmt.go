package database

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// The statements every request runs (the API key's look-up, the
// membership, the invoice) are written out in full in their stores
// rather than built by Bun. Built with NewRaw and Args on every run, Bun
// still formatted each text anew, numbering its placeholders, and the
// text was looked up among the known ones (intern): 1.5–3.6 % of the
// server's CPU on GET invoice (bench --profile). A Stmt formats its text
// once, when its store is made, and runs it as Scan and Exec run a query
// built with Args, looking the transaction up once (txOf) and wrapping no
// value in an Arg. BenchmarkScan/RowWrittenOut, the same query built with
// NewRaw and Args before (parallel 8, median of five runs interleaved
// with the old code's, on a shared two-core machine, so ±15 %): client
// CPU 71.6 → 59.2 µs per query (user 39.9 → 31.2 µs), 3,098 → 2,665 B
// and 35 → 27 allocations; a plain pgxpool QueryRow+Scan of it in the
// same runs took 55–68 µs (user 31–34 µs).

// Stmt is a statement written out in full for a store, its values
// standing as Bun's placeholders: ? for the next value, ?0, ?1, … for a
// value by its position. Make one per statement when the store is made,
// with NewStmt, and run it with Scan, Exec or ExecLater, which take its
// values in order: the same text, values and effects as
// db.NewRaw(text, a.AddAll(values...)...) run with Args, from the
// formatting kept.
//
// On Postgres the text is formatted once, its placeholders numbered as
// Args numbers its values ($1, $2, …), and run directly on pgx (direct.go);
// everywhere else (SQLite) Bun writes the values into it on every run, as
// with Args.
type Stmt struct {
	db   bun.IDB
	text string // as written, with Bun's placeholders
	// bound is text as Bun writes it with each value bound by Args, for
	// Postgres; "" where Args does not bind (values written into the text).
	bound string
	n     int     // the values bound takes
	bdb   *bun.DB // db's, which reads the rows outside a transaction
}

// NewStmt returns text as a statement on db (a store's database) and the
// transactions ctx carries for it. Args' rules hold: its values are bound
// on Postgres through a *bun.DB, bun.Tx or bun.Conn.
func NewStmt(db bun.IDB, text string) *Stmt {
	s := &Stmt{db: db, text: text}
	if !NewArgs(db).bind {
		return s
	}
	_, s.bdb, _ = driverConn(db)
	// Bun formats the text with as many values as it has placeholders,
	// each noting that the text takes it; a numbered one may stand
	// several times for the same value.
	probes := make([]any, strings.Count(text, "?"))
	for i := range probes {
		probes[i] = probe{n: i + 1, took: &s.n}
	}
	b, _ := s.bdb.NewRaw(text, probes...).AppendQuery(s.bdb.QueryGen(), nil)
	s.bound = intern(b) // and its name, should a pipeline carry it (texts.go)
	return s
}

// probe stands for value n-1 while NewStmt formats a text: it writes the
// placeholder Args would and notes in took that the text takes n values
// at least.
type probe struct {
	n    int
	took *int
}

// AppendQuery implements schema.QueryAppender.
func (p probe) AppendQuery(gen schema.QueryGen, b []byte) ([]byte, error) {
	*p.took = max(*p.took, p.n)
	return Arg{n: p.n}.AppendQuery(gen, b)
}

// Scan runs the statement with args on Conn(ctx, db) and scans its rows
// into dest as Scan does: sql.ErrNoRows when dest is a single row (not a
// slice) and there is none.
func (s *Stmt) Scan(ctx context.Context, dest any, args ...any) error {
	t := txOf(ctx)
	if s.bound == "" {
		a := NewArgs(s.db)
		return Scan(ctx, s.db, t.conn(s.db).NewRaw(s.text, a.AddAll(args...)...), a, dest)
	}
	if err := s.check(args); err != nil {
		return err
	}
	bdb, err := s.bunDB(t)
	if err != nil {
		return err
	}
	return scanBound(ctx, t, s.db, bdb, s.bound, withMode(args), []any{dest})
}

// Exec runs the statement with args on Conn(ctx, db), as Exec does.
func (s *Stmt) Exec(ctx context.Context, args ...any) (sql.Result, error) {
	t := txOf(ctx)
	if s.bound == "" {
		a := NewArgs(s.db)
		return Exec(ctx, s.db, t.conn(s.db).NewRaw(s.text, a.AddAll(args...)...), a)
	}
	if err := s.check(args); err != nil {
		return nil, err
	}
	return execBound(ctx, t, s.db, s.bound, withMode(args))
}

// ExecLater runs the statement with args on Conn(ctx, db) as ExecLater
// does: in a transaction begun by RunInTx on Postgres it is kept and sent
// with the transaction's next statement, and a failure is reported
// translated by translate.
func (s *Stmt) ExecLater(ctx context.Context, translate func(error) error, args ...any) error {
	t := txOf(ctx)
	if s.bound == "" || t == nil || t.later == nil {
		_, err := s.Exec(ctx, args...)
		return translate(err)
	}
	if err := s.check(args); err != nil {
		return err
	}
	t.later.stmts = append(t.later.stmts, laterStmt{query: s.bound, args: slices.Clone(args), translate: translate})
	return nil
}

// check reports a count of values other than the text's placeholders
// take, which Postgres would refuse.
func (s *Stmt) check(args []any) error {
	if len(args) != s.n {
		return fmt.Errorf("database: %d values for a statement of %d: %.60s…", len(args), s.n, s.text)
	}
	return nil
}

// bunDB is the *bun.DB that reads the statement's rows in the
// transaction t, or outside one (t nil).
func (s *Stmt) bunDB(t *txConn) (*bun.DB, error) {
	if t == nil && s.bdb != nil {
		return s.bdb, nil
	}
	return bunDB(t, s.db)
}

// String is the text the statement runs: on Postgres its placeholders
// numbered ($1, $2, …), elsewhere as written.
func (s *Stmt) String() string {
	if s.bound != "" {
		return s.bound
	}
	return s.text
}
