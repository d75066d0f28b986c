package bunstore

import (
	"embed"
	"io/fs"

	"github.com/tenantkit/tenantkit/internal/database"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the inbox schema for both dialects (folders
// "postgres" and "sqlite"). It references no other domain's tables, but
// the Service needs billing's and tenancy's; tenantkit.Migrate applies
// every domain's in order.
func Migrations() fs.FS { return database.Embedded(migrations) }
