package database

import (
	"context"

	"github.com/uptrace/bun"
)

// Transactor runs functions in transactions of one database. Every domain
// service takes one (each domain declares the one-method interface it
// consumes), and every Bun store finds the transaction in the context with
// Conn: that is the whole mechanism by which one request's work across
// domains commits or rolls back as one.
type Transactor struct {
	// DB is the database the transactions run on.
	DB bun.IDB
}

// NewTransactor returns the Transactor of db.
func NewTransactor(db bun.IDB) Transactor { return Transactor{DB: db} }

// InTx runs fn in a transaction carried by the context fn receives; inside
// a transaction the context already carries, fn runs in a savepoint of it
// (see RunInTx).
func (t Transactor) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return RunInTx(ctx, t.DB, fn)
}

// JoinTx runs fn on the transaction ctx carries, without a savepoint, or
// in a new transaction when there is none (see JoinTx).
func (t Transactor) JoinTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return JoinTx(ctx, t.DB, fn)
}
