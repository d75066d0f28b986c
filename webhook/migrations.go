package webhook

import (
	"embed"
	"io/fs"
)

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the inbox schema for both dialects (folders
// "postgres" and "sqlite"), for database.Migrate. It references no other
// domain's tables, but the Service needs billing's and tenancy's.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationsFS, "migrations")
	if err != nil {
		panic(err) // the folder is embedded above; unreachable
	}
	return sub
}
