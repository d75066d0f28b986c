package tenancy

import (
	"embed"
	"io/fs"
)

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the tenancy schema for both dialects (folders
// "postgres" and "sqlite"). It must be applied before any other domain's
// migrations, which reference its tables.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationsFS, "migrations")
	if err != nil {
		panic(err) // the folder is embedded above; unreachable
	}
	return sub
}
