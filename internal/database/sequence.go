package database

import (
	"context"

	"github.com/uptrace/bun"
)

// NextNumber advances the tenant's counter in table, a table of
// (tenant_id PRIMARY KEY, last_number) rows, and returns the new value: 1
// the first time, then 2, 3, … It is one upsert on the transaction ctx
// carries, whose row lock (Postgres) or write lock (SQLite) makes
// concurrent callers for one tenant queue until that transaction ends,
// each seeing the number the previous one committed: numbers never repeat,
// and a rolled-back transaction gives its number back. Other tenants are
// not held up. The error is the driver's; translate it.
func NextNumber(ctx context.Context, db bun.IDB, table, tenantID string) (int64, error) {
	var n int64
	a := NewArgs(db)
	q := Conn(ctx, db).NewRaw(
		`INSERT INTO ? (tenant_id, last_number) VALUES (?, 1)
		 ON CONFLICT (tenant_id) DO UPDATE SET last_number = ?.last_number + 1
		 RETURNING last_number`, bun.Ident(table), a.Add(tenantID), bun.Ident(table))
	err := Scan(ctx, db, q, a, &n)
	return n, err
}
