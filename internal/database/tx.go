package database

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
)

// txKey is the context key under which the current transaction travels.
type txKey struct{}

// txConn is what the context carries: the transaction, and on Postgres
// the connection it runs on, for the queries that go to pgx directly
// (direct.go).
type txConn struct {
	tx bun.Tx
	// db is the *bun.DB tx runs on, which reads its rows; nil where
	// RunInTx was given no *bun.DB (see bunDB).
	db  *bun.DB
	raw *sql.Conn // nil: reach the transaction through database/sql only
	// later keeps ExecLater's statements (later.go); nil where raw is.
	later *later
}

// withTx returns ctx carrying t, so that stores called with it join its
// transaction.
func withTx(ctx context.Context, t txConn) context.Context {
	return context.WithValue(ctx, txKey{}, &t)
}

// txOf returns the transaction ctx carries, nil when there is none. A
// request's context is some ten values deep by the time it reaches a
// store, and each look-up walks them: Scan, Exec and Stmt look it up once
// per statement and pass it on (a look-up of their own in bound, direct
// and pending was 1.4 % of GET invoice's server CPU for pending alone,
// bench --profile).
func txOf(ctx context.Context) *txConn {
	t, _ := ctx.Value(txKey{}).(*txConn)
	return t
}

// conn is the transaction t, or db outside one (t nil).
func (t *txConn) conn(db bun.IDB) bun.IDB {
	if t != nil {
		return t.tx
	}
	return db
}

// Conn returns the transaction carried by ctx, or db when there is none.
// Every Bun store runs its queries on Conn(ctx, s.db), which is what lets a
// caller compose several stores into one atomic operation.
func Conn(ctx context.Context, db bun.IDB) bun.IDB {
	return txOf(ctx).conn(db)
}

// InTx reports whether ctx already carries a transaction.
func InTx(ctx context.Context) bool {
	return txOf(ctx) != nil
}

// RunInTx runs fn in a transaction carried by the context fn receives.
// When ctx already carries one, fn runs inside a savepoint of it instead:
// an error from fn undoes only fn's work, and the outer transaction decides
// whether everything commits. fn's error is returned unwrapped so callers
// can still match domain errors with errors.Is; failing to begin or to
// commit (the connection lost, the server restarting) is ErrUnavailable.
func RunInTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context) error) error {
	var (
		t   txConn
		err error
	)
	if outer := txOf(ctx); outer != nil {
		t = *outer
		t.tx, err = outer.tx.BeginTx(ctx, nil) // a savepoint
	} else if bdb, ok := db.(*bun.DB); ok && IsPostgres(bdb) {
		// On a connection of its own, which direct.go can reach, through a
		// handle whose hook sends ExecLater's statements before any other.
		t.later = &later{}
		t.db = bdb.WithQueryHook(laterHook{t.later})
		var c bun.Conn
		if c, err = t.db.Conn(ctx); err == nil {
			t.raw, t.later.raw = c.Conn, c.Conn
			defer func() { _ = c.Conn.Close() }()
			t.tx, err = c.BeginTx(ctx, nil)
		}
	} else {
		t.db, _ = db.(*bun.DB)
		t.tx, err = db.BeginTx(ctx, nil)
	}
	tx := t.tx
	if err != nil {
		return fmt.Errorf("database: begin: %w", Wrap(err))
	}
	done := false
	defer func() {
		if !done {
			if t.later != nil {
				t.later.stmts = nil // kept since this (save)point: undone anyway
			}
			_ = tx.Rollback()
		}
	}()
	if err := fn(withTx(ctx, t)); err != nil {
		return err
	}
	if t.later != nil {
		if err := t.later.flush(ctx); err != nil {
			return err
		}
	}
	done = true
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("database: commit: %w", Wrap(err))
	}
	return nil
}

// JoinTx runs fn on the transaction carried by ctx when there is one, and
// otherwise in a new transaction as RunInTx does. Unlike RunInTx it sets no
// savepoint in a transaction it joins: a savepoint costs two round trips,
// and it is only worth them where the caller goes on after fn fails. Use
// JoinTx where fn's failure fails the caller too, or where fn writes
// nothing before it can fail; after a failed statement on Postgres the
// joined transaction can only roll back.
func JoinTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context) error) error {
	if InTx(ctx) {
		return fn(ctx)
	}
	return RunInTx(ctx, db, fn)
}
