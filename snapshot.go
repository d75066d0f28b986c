package tenantkit

import _ "embed" // the SQLite schema snapshot

// sqliteSnapshot is the schema Migrate builds on SQLite, Schema's and
// River's, with every migration recorded as applied, as
// database.DumpSQLite writes it: Migrate creates a new SQLite database
// from it in one transaction instead of migration by migration.
// TestSQLiteSnapshot checks it against the migrations and rewrites it with
// TENANTKIT_UPDATE_SNAPSHOT=1.
//
//go:embed sqlite_snapshot.sql
var sqliteSnapshot string
