package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// DumpSQLite writes the schema of a migrated SQLite database as a script
// that recreates it on an empty one: what MigrateWith takes as its
// snapshot. The script holds every CREATE statement of sqlite_master
// (tables, then indexes, views and triggers, each kind by name; SQLite's
// own objects left out), then one INSERT per table that has rows: the
// migration records. Columns that default to the current time (when a
// migration ran) are left to their default. The same schema always dumps
// to the same text, however it was built.
func DumpSQLite(ctx context.Context, db bun.IDB) (string, error) {
	if IsPostgres(db) {
		return "", errors.New("database: DumpSQLite needs a SQLite database")
	}
	stmts, err := firstColumn(ctx, db, `SELECT sql FROM sqlite_master
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, name`)
	if err != nil {
		return "", fmt.Errorf("database: dump schema: %w", err)
	}
	tables, err := firstColumn(ctx, db, `SELECT name FROM sqlite_master
		WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return "", fmt.Errorf("database: dump schema: %w", err)
	}
	for _, t := range tables {
		insert, err := dumpRows(ctx, db, t)
		if err != nil {
			return "", fmt.Errorf("database: dump rows of %s: %w", t, err)
		}
		if insert != "" {
			stmts = append(stmts, insert)
		}
	}
	if len(stmts) == 0 {
		return "", nil
	}
	return strings.Join(stmts, ";\n\n") + ";\n", nil
}

// dumpRows returns the rows of table t as one INSERT, or "" when it has
// none.
func dumpRows(ctx context.Context, db bun.IDB, t string) (string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name, dflt_value FROM pragma_table_info(?)", t)
	if err != nil {
		return "", err
	}
	var cols []string
	for rows.Next() {
		var name string
		var dflt sql.NullString
		if err := rows.Scan(&name, &dflt); err != nil {
			_ = rows.Close()
			return "", err
		}
		if !defaultsToNow(dflt.String) {
			cols = append(cols, quoteIdent(name))
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return "", err
	}
	if len(cols) == 0 {
		return "", errors.New("every column defaults to the current time")
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = "quote(" + c + ")"
	}
	values, err := firstColumn(ctx, db, "SELECT '(' || "+strings.Join(quoted, " || ', ' || ")+" || ')' FROM "+
		quoteIdent(t)+" ORDER BY "+strings.Join(cols, ", "))
	if err != nil || len(values) == 0 {
		return "", err
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES\n%s", quoteIdent(t), strings.Join(cols, ", "), strings.Join(values, ",\n")), nil
}

// defaultsToNow reports whether a column's default is the time of the
// insert, which a snapshot must not freeze at the time it was dumped.
func defaultsToNow(dflt string) bool {
	d := strings.ToLower(dflt)
	return strings.Contains(d, "current_time") || strings.Contains(d, "current_date") || strings.Contains(d, "'now'")
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// firstColumn returns the first column of every row of query.
func firstColumn(ctx context.Context, db bun.IDB, query string) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// createFromSnapshot creates the schema of an empty SQLite database from
// snapshot (DumpSQLite's script) in one transaction and returns how many
// rows it inserted: the migrations it records as applied. A database with
// any schema, a Postgres one, or an empty snapshot is left alone (0, nil).
//
// It halves the server's cold start on a new file, where migrating one by
// one has SQLite parse the schema again at every step (docs/performance.md).
//
// Replicas starting together on the same new file race here, past the
// check that it is empty. Their transactions queue on SQLite's write lock,
// and each one after the first fails on a table that now exists and rolls
// back; so does one racing a process that migrates one by one. A failure
// that leaves the database no longer empty is then another process's
// success: the caller goes on to the migrations, which wait on the
// migration lock and find nothing (or only what that process has not yet
// applied) pending.
func createFromSnapshot(ctx context.Context, db *bun.DB, snapshot string) (int, error) {
	if snapshot == "" || IsPostgres(db) {
		return 0, nil
	}
	if empty, err := emptySchema(ctx, db.DB); err != nil || !empty {
		return 0, err
	}
	n, err := execSnapshot(ctx, db.DB, snapshot)
	if err == nil {
		return n, nil
	}
	if empty, eerr := emptySchema(ctx, db.DB); eerr == nil && !empty {
		return 0, nil
	}
	return 0, fmt.Errorf("database: create schema from snapshot: %w", err)
}

// execSnapshot runs snapshot in one transaction and returns how many rows
// it inserted. Its first statement is a write, so that a deferred
// transaction takes the write lock, waiting for it, before it reads.
func execSnapshot(ctx context.Context, sqldb *sql.DB, snapshot string) (n int, err error) {
	tx, err := sqldb.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var before int
	if err := tx.QueryRowContext(ctx, "SELECT total_changes()").Scan(&before); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, snapshot); err != nil {
		return 0, err
	}
	var after int
	if err := tx.QueryRowContext(ctx, "SELECT total_changes()").Scan(&after); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return after - before, nil
}

// emptySchema reports whether a SQLite database has no schema at all.
func emptySchema(ctx context.Context, sqldb *sql.DB) (bool, error) {
	var empty bool
	if err := sqldb.QueryRowContext(ctx, "SELECT NOT EXISTS (SELECT 1 FROM sqlite_master)").Scan(&empty); err != nil {
		return false, fmt.Errorf("database: read schema: %w", err)
	}
	return empty, nil
}
