// Package bunstore keeps the portal's sign-in links and the server's
// generated secrets on Postgres or SQLite through Bun.
package bunstore

import (
	"context"
	"embed"
	"io/fs"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/portal"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the portal's schema for both dialects.
func Migrations() fs.FS { return database.Embedded(migrations) }

// Store is the portal's store.
type Store struct{ db bun.IDB }

var _ portal.LinkStore = (*Store)(nil)

// New returns the Store on db. Apply Migrations first.
func New(db bun.IDB) *Store { return &Store{db: db} }

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }
