package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tenantkit/tenantkit/internal/fault"
)

// sqlState is the SQLSTATE of a Postgres error from pgx or from Bun's
// pgdriver, "" for anything else.
func sqlState(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	var pgd pgdriver.Error
	if errors.As(err, &pgd) {
		return pgd.Field('C')
	}
	return ""
}

// sqliteCode is the result code of a SQLite error: the driver's error
// type (modernc.org/sqlite's *sqlite.Error) has a Code method. The
// driver is not imported here, so that a host on Postgres does not link
// SQLite; the codes below are SQLite's C API values, fixed by SQLite.
func sqliteCode(err error) (int, bool) {
	var coded interface {
		error
		Code() int
	}
	if errors.As(err, &coded) {
		return coded.Code(), true
	}
	return 0, false
}

// SQLite result codes (https://sqlite.org/rescode.html).
const (
	sqliteBusy                 = 5
	sqliteLocked               = 6
	sqliteNoMem                = 7
	sqliteInterrupt            = 9
	sqliteIOErr                = 10
	sqliteFull                 = 13
	sqliteCantOpen             = 14
	sqliteProtocol             = 15
	sqliteConstraintForeignKey = 787  // SQLITE_CONSTRAINT | 3<<8
	sqliteConstraintPrimaryKey = 1555 // SQLITE_CONSTRAINT | 6<<8
	sqliteConstraintUnique     = 2067 // SQLITE_CONSTRAINT | 8<<8
)

// IsUniqueViolation reports whether err is a unique or primary-key
// constraint violation, on either dialect and any Postgres driver.
func IsUniqueViolation(err error) bool {
	if code := sqlState(err); code != "" {
		return code == "23505"
	}
	if code, ok := sqliteCode(err); ok {
		return code == sqliteConstraintUnique || code == sqliteConstraintPrimaryKey
	}
	return false
}

// IsForeignKeyViolation reports whether err is a foreign-key violation.
func IsForeignKeyViolation(err error) bool {
	if code := sqlState(err); code != "" {
		return code == "23503"
	}
	if code, ok := sqliteCode(err); ok {
		return code == sqliteConstraintForeignKey
	}
	return false
}

// ErrUnavailable marks a database failure that is not the caller's fault
// and may pass: the connection is lost or refused, the server is shutting
// down, starting up or out of resources, a lock or a serialization
// conflict got in the way. Callers may retry; the HTTP edge answers 503.
// It is fault.ErrUnavailable, which the HTTP edge answers with 503.
var ErrUnavailable = fault.ErrUnavailable

// Wrap hides a driver error so that no driver type leaves a store; the
// message is kept for the logs. Failures of the database's availability
// (Unavailable) are marked with ErrUnavailable; any other error (a
// statement the database refused, such as invalid UTF-8, a NUL byte or a
// value too long for its column) is a plain error, which the HTTP edge
// answers with 500: input that reaches the database is the server's bug,
// not an outage. Context cancellation stays matchable with errors.Is.
func Wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	case Unavailable(err):
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	default:
		return fmt.Errorf("database: %v", err)
	}
}

// Translate turns a driver error into a store's domain sentinels: no rows
// and a foreign key to nothing become notFound, a unique violation becomes
// conflict, anything else is hidden by Wrap.
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

// Unavailable reports whether err says that the database cannot serve
// right now, rather than that it refused a statement: the context ended;
// the connection could not be made, broke or was closed (network errors,
// EOF, driver.ErrBadConn); Postgres reported a connection exception, a
// shutdown or a start-up in progress, a lack of resources, a lock or
// statement timeout, a serialization failure or deadlock, or a read-only
// transaction (a standby after a failover); SQLite was busy or locked,
// out of memory or disk, or failed to read or write its file.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	// A failed connection attempt is unavailable whatever the server said
	// (it may be a PgError such as 57P03 "the database system is starting up").
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return true
	}
	if code := sqlState(err); code != "" {
		return pgUnavailable(code)
	}
	if code, ok := sqliteCode(err); ok {
		return sqliteUnavailable(code)
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	// pgconn's own errors before anything was sent (a closed or busy
	// connection, a failed write of the request) and its timeouts.
	return pgconn.Timeout(err) || pgconn.SafeToRetry(err)
}

// pgUnavailable reports whether a Postgres SQLSTATE is a failure of
// availability (see Unavailable).
func pgUnavailable(code string) bool {
	switch code {
	case "08P01":
		// protocol_violation is what Postgres answers to a NUL byte in a
		// bound text parameter: an ERROR on a connection that stays usable,
		// caused by the input, not by the connection.
		return false
	case "57014", // query_canceled: statement_timeout, or cancelled by an operator
		"55P03", // lock_not_available: lock_timeout
		"40001", // serialization_failure
		"40P01", // deadlock_detected
		"25006", // read_only_sql_transaction: a standby, e.g. during a failover
		"58000", // system_error
		"58030": // io_error
		return true
	}
	switch {
	case strings.HasPrefix(code, "08"): // connection_exception
		return true
	case strings.HasPrefix(code, "53"): // insufficient_resources (disk, memory, connections)
		return true
	case strings.HasPrefix(code, "57P"): // admin/crash shutdown, cannot_connect_now, database_dropped, idle timeouts
		return true
	}
	return false
}

// sqliteUnavailable reports whether a SQLite result code (primary or
// extended) is a failure of availability (see Unavailable).
func sqliteUnavailable(code int) bool {
	switch code & 0xff {
	case sqliteBusy, sqliteLocked, sqliteNoMem, sqliteIOErr,
		sqliteFull, sqliteCantOpen, sqliteProtocol, sqliteInterrupt:
		return true
	}
	return false
}
