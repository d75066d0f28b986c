// Package bunstore is the webhook inbox's Store on Postgres or SQLite
// through Bun, with the schema it needs (Migrations). Every query runs on
// the transaction the context carries when there is one, so that
// recording an event and applying it commit or roll back as one.
package bunstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook"
)

// Store is the webhook.Store on Postgres or SQLite through Bun. Every
// query runs on the transaction carried by the context when there is one.
//
// Unlike the tenant-owned tables of the other domains, webhook_events is
// keyed by the provider's event id alone (see webhook.Store): its tenant_id
// says which tenant an event matched, if any, so its queries span tenants
// (database.AcrossTenants).
type Store struct {
	db bun.IDB
}

var _ webhook.Store = (*Store)(nil)

// New returns a Store on db. Apply Migrations first.
func New(db bun.IDB) *Store { return &Store{db: db} }

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// Insert implements webhook.Store. ON CONFLICT DO NOTHING rather than catching the
// unique violation keeps the caller's Postgres transaction usable, and
// makes a concurrent insert of the same id wait for the first
// transaction's end (Postgres blocks on the primary key; SQLite lets one
// writer in at a time).
func (s *Store) Insert(ctx context.Context, r webhook.Record) (bool, error) {
	row := toRow(r)
	res, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, database.Wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, database.Wrap(err)
	}
	return n == 1, nil
}

// Event implements webhook.Store.
func (s *Store) Event(ctx context.Context, id string) (webhook.Record, error) {
	var row eventRow
	err := database.AcrossTenants(s.conn(ctx).NewSelect()).Model(&row).Where("id = ?", id).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return webhook.Record{}, webhook.ErrNotFound
	case err != nil:
		return webhook.Record{}, database.Wrap(err)
	}
	return row.record(), nil
}
