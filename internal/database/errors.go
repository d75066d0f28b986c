package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/tenantkit/tenantkit/internal/fault"
)

// IsUniqueViolation reports whether err is a unique or primary-key
// constraint violation, on either dialect.
func IsUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || lite.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// IsForeignKeyViolation reports whether err is a foreign-key violation.
func IsForeignKeyViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23503"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
	}
	return false
}

// ErrUnavailable marks a database failure that is not the caller's fault
// (connection lost, server restarting, lock timeout). Callers may retry.
// It is fault.ErrUnavailable, which the HTTP edge answers with 503.
var ErrUnavailable = fault.ErrUnavailable

// Wrap hides a driver error behind ErrUnavailable so that no driver type
// leaves a store; the message is kept for the logs. Context cancellation
// stays matchable with errors.Is.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

// Translate turns a driver error into a store's domain sentinels: no rows
// and a foreign key to nothing become notFound, a unique violation becomes
// conflict, anything else is hidden behind ErrUnavailable (Wrap).
func Translate(err, notFound, conflict error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows), IsForeignKeyViolation(err):
		return notFound
	case IsUniqueViolation(err):
		return conflict
	default:
		return Wrap(err)
	}
}
