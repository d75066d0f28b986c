// Package bunstore is support's Store on Postgres or SQLite through Bun,
// with the schema it needs (Migrations). Every query runs on the
// transaction the context carries when there is one, so that a
// support.Service operation commits or rolls back as one.
package bunstore

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/support"
)

// Store is the support.Store on Postgres or SQLite through Bun. Every
// query runs on the transaction carried by the context when there is one,
// and every query of one tenant's tickets or comments goes through
// database.ForTenant; the few that span tenants say so
// (database.AcrossTenants).
type Store struct {
	db       bun.IDB
	sequence *database.Sequence // ticket numbers
}

var _ support.Store = (*Store)(nil)

// New returns a Store on db. Apply tenancy's migrations and Migrations
// first.
func New(db bun.IDB) *Store {
	return &Store{db: db, sequence: database.NewSequence(db, "ticket_sequences")}
}

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// NextNumber implements support.Store with a database.Sequence: one upsert of
// the tenant's row in ticket_sequences, on the caller's transaction.
func (s *Store) NextNumber(ctx context.Context, tenantID string) (int64, error) {
	n, err := s.sequence.Next(ctx, tenantID)
	return n, translate(err)
}

// translate turns driver errors into the domain's sentinels.
func translate(err error) error {
	return database.Translate(err, support.ErrNotFound, support.ErrConflict)
}
