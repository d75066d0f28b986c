package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
)

// A write whose result nobody reads — the row a request creates, its
// ledger entry — need not cost a round trip of its own. ExecLater keeps
// such a statement in the transaction and sends it with the next
// statement that does need an answer (database.Scan or Exec), both in one
// pipeline: one network round trip, Postgres running them in order as
// before. Every mutation writes its event (a Scan: it asks whether the
// tenant has a webhook endpoint) right after its own insert, so creating
// an invoice or a ticket, commenting, recording a payment and ingesting a
// payment webhook each save one of their eight round trips (`cd bench &&
// go run . --check` counts them: 8 → 7).
//
// On the event log's cost (`go run . --event-cost`: the baseline with and
// without its event insert, which rides with the row's insert there as
// here) it bought webhook ingest 14.7 % → 6.6–9.6 % in three runs, and
// create invoice 11.2 % → 9.1–12.5 %, within that measurement's spread;
// what is left is Postgres executing the insert itself.
//
// Nothing else changes for the transaction. Whatever else runs on it
// first sends what is kept, in order: any Bun query (a hook of the
// transaction's own), River's insert (Flush), the commit. A rollback
// drops it. A kept statement that fails makes the statement it was sent
// with fail with the kept statement's own error, translated as its store
// asked, so the caller sees the error it would have seen had the
// statement run at once, one call later.

// later is what a transaction keeps of ExecLater's statements, shared by
// the savepoints within it.
type later struct {
	raw   *sql.Conn // the transaction's connection
	stmts []laterStmt
	// err is a kept statement's failure met where it could not be
	// returned (in the query hook); the commit returns it.
	err error
}

// laterStmt is one kept statement.
type laterStmt struct {
	query     string
	args      []any
	translate func(error) error
}

// laterError is the failure of a kept statement, already translated by
// its store: Wrap and Translate pass it on as it is, so that the store
// whose statement carried it does not translate it a second time.
type laterError struct{ err error }

func (e laterError) Error() string { return e.err.Error() }
func (e laterError) Unwrap() error { return e.err }

// ExecLater runs q, built on Conn(ctx, db) with a's arguments, as Exec
// does but possibly later: in a transaction begun by RunInTx on Postgres
// it is kept and sent with the transaction's next statement, at the
// latest with its commit; anywhere else it runs at once. Use it for a
// write whose result is not needed (an INSERT of a new row), and pass the
// store's translate: a failure is reported translated by it, by whichever
// call of the transaction sends the statement.
func ExecLater(ctx context.Context, db bun.IDB, q execQuery, a *Args, translate func(error) error) error {
	t := txOf(ctx)
	if !a.bind || t == nil || t.later == nil {
		_, err := Exec(ctx, db, q, a)
		return translate(err)
	}
	query, err := queryText(q, t.db)
	if err != nil {
		return err
	}
	t.later.stmts = append(t.later.stmts, laterStmt{query: query, args: a.vals, translate: translate})
	return nil
}

// Flush sends the statements ExecLater keeps in the transaction ctx
// carries, if any, and returns the first one's failure. Code that runs
// statements on the transaction's *sql.Tx itself (River's insert) calls
// it first; Bun's queries and the commit need not.
func Flush(ctx context.Context) error {
	t := txOf(ctx)
	if t == nil || t.later == nil {
		return nil
	}
	return t.later.flush(ctx)
}

// flush sends the kept statements on their own.
func (l *later) flush(ctx context.Context) error {
	if len(l.stmts) == 0 {
		return l.err
	}
	stmts := l.take()
	return onPgx(l.raw, false, func(pc *pgx.Conn) error {
		return pipeline(ctx, pc, stmts, nil, nil)
	})
}

// take returns the kept statements and forgets them.
func (l *later) take() []laterStmt {
	stmts := l.stmts
	l.stmts = nil
	return stmts
}

// pending returns the kept statements of the transaction t (nil: none)
// and forgets them: the caller sends them.
func (t *txConn) pending() []laterStmt {
	if t == nil || t.later == nil || len(t.later.stmts) == 0 {
		return nil
	}
	return t.later.take()
}

// laterHook sends a transaction's kept statements before any Bun query
// runs on it. RunInTx gives each transaction on Postgres a Bun handle
// with its own hook, so that whatever runs on the transaction through Bun
// meets the kept statements' effects, wherever its context came from.
type laterHook struct{ l *later }

// BeforeQuery implements bun.QueryHook. A failure cannot be returned from
// here; the statement about to run fails anyway (Postgres refuses every
// statement of a transaction after a failed one), and the commit returns
// the kept statement's own error.
func (h laterHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	if len(h.l.stmts) > 0 {
		if err := h.l.flush(ctx); err != nil && h.l.err == nil {
			h.l.err = err
		}
	}
	return ctx
}

// AfterQuery implements bun.QueryHook.
func (laterHook) AfterQuery(context.Context, *bun.QueryEvent) {}

// pipeline runs the kept statements stmts and then last (when not nil)
// on pc in one round trip, and hands last's result to onLast. The first
// failure is returned: a kept statement's as a laterError, translated.
// Each statement is prepared once per connection under a name of its
// text's hash, as pgx's statement cache would; pgx's cache itself cannot
// be reached from a pipeline.
func pipeline(ctx context.Context, pc *pgx.Conn, stmts []laterStmt, last *laterStmt, onLast func(*pgconn.ResultReader) error) error {
	all := stmts
	if last != nil {
		all = append(stmts[:len(stmts):len(stmts)], *last)
	}
	sds := make([]*pgconn.StatementDescription, len(all))
	for i, s := range all {
		sd, err := pc.Prepare(ctx, statementName(s.query), s.query)
		if err != nil {
			return failedAt(stmts, i, err)
		}
		sds[i] = sd
	}
	p := pc.PgConn().StartPipeline(ctx)
	var eqb pgx.ExtendedQueryBuilder
	for i, s := range all {
		if err := eqb.Build(pc.TypeMap(), sds[i], s.args); err != nil {
			_ = p.Close()
			return failedAt(stmts, i, err)
		}
		p.SendQueryStatement(sds[i], eqb.ParamValues, eqb.ParamFormats, eqb.ResultFormats)
	}
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return err
	}
	var first error
	for i := range all {
		res, err := p.GetResults()
		rr, ok := res.(*pgconn.ResultReader)
		if err == nil && !ok {
			err = fmt.Errorf("database: pipeline: unexpected result %T", res)
		}
		if err == nil {
			if i < len(stmts) {
				_, err = rr.Close()
			} else {
				err = onLast(rr)
			}
		}
		if err != nil {
			first = failedAt(stmts, i, err)
			break // Postgres skips the rest up to the Sync; Close reads past them
		}
	}
	if err := p.Close(); err != nil && first == nil {
		first = err
	}
	return first
}

// failedAt is err as the failure of statement i of a pipeline whose first
// statements are the kept stmts.
func failedAt(stmts []laterStmt, i int, err error) error {
	if i < len(stmts) {
		return laterError{stmts[i].translate(err)}
	}
	return err
}

// isLater reports whether err is a kept statement's translated failure.
func isLater(err error) bool {
	var l laterError
	return errors.As(err, &l)
}
