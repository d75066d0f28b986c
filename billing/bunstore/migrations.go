package bunstore

import (
	"embed"
	"io/fs"

	"github.com/tenantkit/tenantkit/internal/database"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the billing schema for both dialects (folders
// "postgres" and "sqlite"). Apply it after tenancy's, whose tenants table
// it references; tenantkit.Migrate applies every domain's in order.
func Migrations() fs.FS { return database.Embedded(migrations) }
