package tenantkit

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

// Transactor runs functions in transactions of one database, carried by
// the context: every tenantkit service runs its multi-step operations
// through one (billing.NewService, support.NewService and
// webhook.NewService take it), and every Bun store runs its queries on
// Conn(ctx, db). That is the whole mechanism by which one request's work
// across domains commits or rolls back as one, and it is open to code
// outside tenantkit: a store of your own that runs its queries on Conn
// joins the same transaction (see examples/txstore).
type Transactor struct {
	tx database.Transactor
}

// NewTransactor returns the Transactor of db: a *bun.DB, or a bun.Tx or
// bun.Conn to run everything inside.
func NewTransactor(db bun.IDB) Transactor {
	return Transactor{tx: database.NewTransactor(db)}
}

// InTx runs fn in a transaction carried by the context fn receives, and
// commits it when fn returns nil. When ctx already carries a transaction,
// fn runs in a savepoint of it instead: an error from fn undoes only fn's
// work, and the outer transaction decides whether everything commits.
// fn's error comes back unwrapped, so errors.Is still matches it; failing
// to begin or to commit is an error of its own.
func (t Transactor) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return t.tx.InTx(ctx, fn)
}

// JoinTx runs fn on the transaction ctx carries, without a savepoint, or
// in a new transaction when ctx carries none. It is for work whose
// failure fails the caller's transaction anyway: billing's webhook path
// uses it to save the savepoint's two round trips.
func (t Transactor) JoinTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return t.tx.JoinTx(ctx, fn)
}

// Conn returns the transaction ctx carries, or db when it carries none.
// Run every query of a store on Conn(ctx, db) and the store joins the
// transaction of whoever called it: a tenantkit service, a Transactor of
// yours, or nothing (each query then stands alone).
func Conn(ctx context.Context, db bun.IDB) bun.IDB {
	return database.Conn(ctx, db)
}
