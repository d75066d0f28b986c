// Package bunstore is billing's Store on Postgres or SQLite through Bun,
// with the schema it needs (Migrations). Every query runs on the
// transaction the context carries when there is one, so that a
// billing.Service operation commits or rolls back as one.
package bunstore

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

// Store is the billing.Store on Postgres or SQLite through Bun. Every
// query runs on the transaction carried by the context when there is one,
// and every query of one tenant's invoices goes through database.ForTenant;
// the few that span tenants say so (database.AcrossTenants).
type Store struct {
	db       bun.IDB
	sequence *database.Sequence // invoice numbers
}

var _ billing.Store = (*Store)(nil)

// New returns a Store on db. Apply tenancy's migrations and Migrations
// first.
func New(db bun.IDB) *Store {
	return &Store{db: db, sequence: database.NewSequence(db, "invoice_sequences")}
}

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// NextNumber implements billing.Store with a database.Sequence: one upsert of
// the tenant's row in invoice_sequences, on the caller's transaction.
func (s *Store) NextNumber(ctx context.Context, tenantID string) (int64, error) {
	n, err := s.sequence.Next(ctx, tenantID)
	return n, translate(err)
}

// translate turns driver errors into the domain's sentinels.
func translate(err error) error {
	return database.Translate(err, billing.ErrNotFound, billing.ErrConflict)
}

// affected translates the outcome of a statement that must change one row:
// ErrNotFound when it changed none.
func affected(res sql.Result, err error) error {
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return database.Wrap(err)
	} else if n == 0 {
		return billing.ErrNotFound
	}
	return nil
}
