package riverqueue

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river/rivermigrate"
	"github.com/uptrace/bun"
)

// Migrate applies River's pending migrations to db and returns how many it
// applied. It takes no lock: River's migrator does not, so replicas
// migrating at once would race. tenantkit.Migrate runs it under the lock
// of tenantkit's own migrations; call that, not this.
func Migrate(ctx context.Context, db *bun.DB) (int, error) {
	m, err := migrator(db)
	if err != nil {
		return 0, err
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return 0, fmt.Errorf("outbound/riverqueue: migrate: %w", err)
	}
	return len(res.Versions), nil
}

// Pending returns how many of River's migrations are not applied to db.
func Pending(ctx context.Context, db *bun.DB) (int, error) {
	m, err := migrator(db)
	if err != nil {
		return 0, err
	}
	applied, err := m.ExistingVersions(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbound/riverqueue: migration status: %w", err)
	}
	done := make(map[int]bool, len(applied))
	for _, v := range applied {
		done[v.Version] = true
	}
	n := 0
	for _, v := range m.AllVersions() {
		if !done[v.Version] {
			n++
		}
	}
	return n, nil
}

// migrator is River's migrator for db's dialect, its log discarded.
func migrator(db *bun.DB) (*rivermigrate.Migrator[*sql.Tx], error) {
	m, err := rivermigrate.New(driver(db, db.DB), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("outbound/riverqueue: migrator: %w", err)
	}
	return m, nil
}
