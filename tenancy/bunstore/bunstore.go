// Package bunstore is tenancy's persistence on Postgres or SQLite through
// Bun: one Store implementing every store interface of package tenancy,
// contract.Store and operator.KeyStore, on the tables its migrations
// create. Every query runs on the transaction the context carries
// (database.Conn), which is how a service's Transactor and the other
// domains' stores share it.
package bunstore

import (
	"context"
	"database/sql"
	"embed"
	"io/fs"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// Store is tenancy's store on Postgres or SQLite.
type Store struct {
	db bun.IDB
}

var (
	_ tenancy.DirectoryStore    = (*Store)(nil)
	_ tenancy.MemberStore       = (*Store)(nil)
	_ tenancy.IndexStore        = (*Store)(nil)
	_ tenancy.KeyStore          = (*Store)(nil)
	_ tenancy.EntitlementStore  = (*Store)(nil)
	_ tenancy.ModuleStore       = (*Store)(nil)
	_ tenancy.NotificationStore = (*Store)(nil)
	_ contract.Store            = (*Store)(nil)
	_ contract.PeriodStore      = (*Store)(nil)
	_ contract.InvoiceStore     = (*Store)(nil)
	_ operator.KeyStore         = (*Store)(nil)
)

// New returns the Store on db. Apply Migrations first.
func New(db bun.IDB) *Store { return &Store{db: db} }

// Stores returns s as every store tenancy.New needs.
func (s *Store) Stores() tenancy.Stores {
	return tenancy.Stores{Directory: s, Members: s, Index: s, Keys: s, Entitlements: s, Modules: s, Notifications: s, Sessions: s, Settings: s}
}

// ContractStores returns s as every store contract.NewService takes.
func (s *Store) ContractStores() contract.Stores {
	return contract.Stores{Contracts: s, Periods: s, Invoices: s}
}

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the tenancy schema, contracts included, for both
// dialects (folders "postgres" and "sqlite"), for database.Migrate. It
// must be applied before any other domain's migrations, which reference
// its tables.
func Migrations() fs.FS { return database.Embedded(migrationsFS) }

// translate turns driver errors into the domain's sentinels.
func translate(err error) error {
	return database.Translate(err, tenancy.ErrNotFound, tenancy.ErrConflict)
}

// affected translates the outcome of a write that must touch a row: none
// when it touched nothing.
func affected(res sql.Result, err error, none error) error {
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return database.Wrap(err)
	} else if n == 0 {
		return none
	}
	return nil
}
