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
	tx  bun.Tx
	raw *sql.Conn // nil: reach the transaction through database/sql only
}

// withTx returns ctx carrying tx (begun on raw, or nil), so that stores
// called with it join tx.
func withTx(ctx context.Context, tx bun.Tx, raw *sql.Conn) context.Context {
	return context.WithValue(ctx, txKey{}, txConn{tx: tx, raw: raw})
}

// Conn returns the transaction carried by ctx, or db when there is none.
// Every Bun store runs its queries on Conn(ctx, s.db), which is what lets a
// caller compose several stores into one atomic operation.
func Conn(ctx context.Context, db bun.IDB) bun.IDB {
	if t, ok := ctx.Value(txKey{}).(txConn); ok {
		return t.tx
	}
	return db
}

// InTx reports whether ctx already carries a transaction.
func InTx(ctx context.Context) bool {
	_, ok := ctx.Value(txKey{}).(txConn)
	return ok
}

// RunInTx runs fn in a transaction carried by the context fn receives.
// When ctx already carries one, fn runs inside a savepoint of it instead:
// an error from fn undoes only fn's work, and the outer transaction decides
// whether everything commits. fn's error is returned unwrapped so callers
// can still match domain errors with errors.Is; failing to begin or to
// commit (the connection lost, the server restarting) is ErrUnavailable.
func RunInTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context) error) error {
	var (
		tx  bun.Tx
		raw *sql.Conn
		err error
	)
	if outer, ok := ctx.Value(txKey{}).(txConn); ok {
		tx, err = outer.tx.BeginTx(ctx, nil) // a savepoint
		raw = outer.raw
	} else if bdb, ok := db.(*bun.DB); ok && IsPostgres(bdb) {
		// On a connection of its own, which direct.go can reach.
		var c bun.Conn
		if c, err = bdb.Conn(ctx); err == nil {
			raw = c.Conn
			defer func() { _ = raw.Close() }()
			tx, err = c.BeginTx(ctx, nil)
		}
	} else {
		tx, err = db.BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("database: begin: %w", Wrap(err))
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if err := fn(withTx(ctx, tx, raw)); err != nil {
		return err
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
