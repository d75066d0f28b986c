package database

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
)

// txKey is the context key under which the current transaction travels.
type txKey struct{}

// Conn returns the transaction carried by ctx, or db when there is none.
// Every Bun store runs its queries on Conn(ctx, s.db), which is what lets a
// caller compose several stores into one atomic operation.
func Conn(ctx context.Context, db bun.IDB) bun.IDB {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx
	}
	return db
}

// InTx reports whether ctx already carries a transaction.
func InTx(ctx context.Context) bool {
	_, ok := ctx.Value(txKey{}).(bun.Tx)
	return ok
}

// RunInTx runs fn in a transaction carried by the context fn receives.
// When ctx already carries one, fn runs inside a savepoint of it instead:
// an error from fn undoes only fn's work, and the outer transaction decides
// whether everything commits. fn's error is returned unwrapped so callers
// can still match domain errors with errors.Is; failing to begin or to
// commit (the connection lost, the server restarting) is ErrUnavailable.
func RunInTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context) error) error {
	tx, err := Conn(ctx, db).BeginTx(ctx, nil) // a savepoint inside a transaction
	if err != nil {
		return fmt.Errorf("database: begin: %w", Wrap(err))
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if err := fn(context.WithValue(ctx, txKey{}, tx)); err != nil {
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
// savepoint in a transaction it joins: use it where fn's failure fails the
// caller too, or where fn writes nothing before it can fail; after a
// failed statement on Postgres the joined transaction can only roll back.
func JoinTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context) error) error {
	if InTx(ctx) {
		return fn(ctx)
	}
	return RunInTx(ctx, db, fn)
}

// ReadSnapshot runs fn, a read made of several statements, so that every
// statement sees the same committed state: a delivery and its attempts,
// read while an attempt commits, agree. On Postgres that is a read-only
// REPEATABLE READ transaction (each statement of READ COMMITTED takes its
// own snapshot); SQLite's transactions already read one snapshot. Inside
// a caller's transaction fn joins it.
func ReadSnapshot(ctx context.Context, db bun.IDB, fn func(ctx context.Context) error) error {
	if InTx(ctx) {
		return fn(ctx)
	}
	// On SQLite ReadOnly begins a deferred transaction, which takes no
	// write lock (the DSN makes the others immediate).
	opts := &sql.TxOptions{ReadOnly: true}
	if IsPostgres(db) {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("database: begin: %w", Wrap(err))
	}
	defer func() { _ = tx.Rollback() }() // read only: nothing to commit
	return fn(context.WithValue(ctx, txKey{}, tx))
}
