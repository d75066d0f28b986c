package database

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// Migration tables. One set for all domains, so that `server migrate`
// applies every domain's schema in one ordered run.
const (
	migrationsTable = "tenantkit_migrations"
	locksTable      = "tenantkit_migration_locks"
)

// Source is one domain's embedded migrations: a file system holding the
// folders "postgres" and "sqlite", each with files named
// "<14-digit number>_<comment>.tx.up.sql". Numbers are unique across all
// domains and order the whole schema (tenancy first, then its dependants).
type Source = fs.FS

// Embedded returns the folder "migrations" of fsys as a Source: what a
// store package embeds with
//
//	//go:embed migrations
//	var migrations embed.FS
//
// and hands out with Embedded(migrations).
func Embedded(fsys fs.FS) Source {
	sub, err := fs.Sub(fsys, "migrations")
	if err != nil {
		panic(err) // fs.Sub fails only on an invalid name; unreachable
	}
	return sub
}

// newMigrator collects the migrations for db's dialect from every source.
func newMigrator(db *bun.DB, sources []Source) (*migrate.Migrator, error) {
	ms := migrate.NewMigrations()
	dir := DialectName(db)
	for _, src := range sources {
		sub, err := fs.Sub(src, dir)
		if err != nil {
			return nil, fmt.Errorf("database: migrations for %s: %w", dir, err)
		}
		if err := ms.Discover(sub); err != nil {
			return nil, fmt.Errorf("database: discover migrations: %w", err)
		}
	}
	return migrate.NewMigrator(db, ms,
		migrate.WithTableName(migrationsTable),
		migrate.WithLocksTableName(locksTable),
		migrate.WithMarkAppliedOnSuccess(true),
	), nil
}

// Migrate applies every pending migration of sources, holding the
// migration lock so that replicas starting together migrate once.
func Migrate(ctx context.Context, db *bun.DB, sources ...Source) (applied int, err error) {
	return MigrateWith(ctx, db, "", sources)
}

// Step applies the pending migrations of a schema that another tool keeps
// (River's job tables) and returns how many it applied.
type Step func(ctx context.Context, db *bun.DB) (int, error)

// MigrateWith applies every pending migration of sources, then runs each
// of steps, all under the migration lock: a tool whose migrator takes no
// lock of its own is then safe to run from replicas starting together.
//
// sqliteSnapshot, unless empty, is the schema that sources and steps build
// on SQLite, as DumpSQLite writes it. A SQLite database with no schema at
// all is created from it in one transaction, which records every migration
// it holds as applied (and counts them in applied); the migrations then
// run as usual and apply only what the snapshot lacks. Postgres, and a
// SQLite database with any schema, ignore it.
func MigrateWith(ctx context.Context, db *bun.DB, sqliteSnapshot string, sources []Source, steps ...Step) (applied int, err error) {
	m, err := newMigrator(db, sources)
	if err != nil {
		return 0, err
	}
	if applied, err = createFromSnapshot(ctx, db, sqliteSnapshot); err != nil {
		return 0, err
	}
	if err := initTables(ctx, m); err != nil {
		return applied, err
	}
	if err := lock(ctx, m); err != nil {
		return applied, err
	}
	defer func() {
		if uerr := m.Unlock(context.WithoutCancel(ctx)); uerr != nil && err == nil {
			err = fmt.Errorf("database: unlock migrations: %w", uerr)
		}
	}()
	group, err := m.Migrate(ctx)
	if err != nil {
		return applied, fmt.Errorf("database: migrate: %w", err)
	}
	applied += len(group.Migrations)
	for _, step := range steps {
		n, err := step(ctx, db)
		applied += n
		if err != nil {
			return applied, err
		}
	}
	return applied, nil
}

// Pending returns how many migrations of sources are not yet applied. The
// readiness probe fails while it is non-zero.
func Pending(ctx context.Context, db *bun.DB, sources ...Source) (int, error) {
	m, err := newMigrator(db, sources)
	if err != nil {
		return 0, err
	}
	ms, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return 0, fmt.Errorf("database: migration status: %w", err)
	}
	return len(ms.Unapplied()), nil
}

// lock takes the migration lock, waiting while another process holds it:
// replicas that start together queue here and the later ones find nothing
// left to apply.
func lock(ctx context.Context, m *migrate.Migrator) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := m.Lock(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("database: lock migrations (held by another process for over a minute?): %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("database: lock migrations: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// initTables creates the migration tables. Replicas starting together race
// on Postgres's CREATE TABLE IF NOT EXISTS (one of them gets "already
// exists"), so a failure is retried once the winner has committed.
func initTables(ctx context.Context, m *migrate.Migrator) error {
	var err error
	for range 5 {
		if err = m.Init(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("database: init migrations: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("database: init migrations: %w", err)
}
