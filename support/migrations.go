package support

import (
	"embed"
	"io/fs"
)

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the support schema for both dialects (folders
// "postgres" and "sqlite"). Apply it after tenancy/bunstore.Migrations, whose
// tenants table it references.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationsFS, "migrations")
	if err != nil {
		panic(err) // the folder is embedded above; unreachable
	}
	return sub
}
