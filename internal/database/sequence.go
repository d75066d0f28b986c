package database

import (
	"context"

	"github.com/uptrace/bun"
)

// Sequence is a per-tenant counter kept in a table of (tenant_id PRIMARY
// KEY, last_number) rows: invoice and ticket numbers.
type Sequence struct {
	db    bun.IDB
	table string
}

// NewSequence returns the counters kept in table on db (a store's
// database; transactions in the context are joined).
func NewSequence(db bun.IDB, table string) *Sequence {
	return &Sequence{db: db, table: table}
}

// Next advances the tenant's counter and returns the new value: 1 the
// first time, then 2, 3, … It is one upsert on the transaction ctx
// carries, whose row lock (Postgres) or write lock (SQLite) makes
// concurrent callers for one tenant queue until that transaction ends,
// each seeing the number the previous one committed: numbers never repeat,
// and a rolled-back transaction gives its number back. Other tenants are
// not held up. The error is the driver's; translate it.
func (s *Sequence) Next(ctx context.Context, tenantID string) (int64, error) {
	row := sequenceRow{TenantID: tenantID, LastNumber: 1}
	_, err := Conn(ctx, s.db).NewInsert().Model(&row).
		ModelTableExpr("?", bun.Ident(s.table)).
		On("CONFLICT (tenant_id) DO UPDATE").
		Set("last_number = ?.last_number + 1", bun.Ident(s.table)).
		Returning("last_number").
		Exec(ctx)
	return row.LastNumber, err
}

// sequenceRow is a counter's row; its table is the Sequence's.
type sequenceRow struct {
	TenantID   string `bun:"tenant_id,pk"`
	LastNumber int64  `bun:"last_number"`
}
