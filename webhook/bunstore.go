package webhook

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

// BunStore is the inbox on Postgres or SQLite through Bun. Every query runs
// on the transaction carried by the context when there is one.
//
// Unlike the tenant-owned tables of the other domains, webhook_events is
// keyed by the provider's event id alone (see Store), so its queries have
// no tenant filter.
type BunStore struct {
	db bun.IDB
}

var _ Store = (*BunStore)(nil)

// NewBunStore returns a Store on db. Apply Migrations first.
func NewBunStore(db bun.IDB) *BunStore { return &BunStore{db: db} }

func (s *BunStore) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

type eventRow struct {
	bun.BaseModel `bun:"table:webhook_events"`
	ID            string     `bun:"id,pk"`
	Type          string     `bun:"type"`
	Payload       string     `bun:"payload"`
	Outcome       string     `bun:"outcome"`
	Reason        string     `bun:"reason"`
	TenantID      *string    `bun:"tenant_id"`
	InvoiceID     *string    `bun:"invoice_id"`
	ReceivedAt    time.Time  `bun:"received_at"`
	ProcessedAt   *time.Time `bun:"processed_at"`
}

func toRow(r Record) eventRow {
	return eventRow{
		ID: r.ID, Type: r.Type, Payload: string(r.Payload), Outcome: string(r.Outcome), Reason: r.Reason,
		TenantID: nullable(r.TenantID), InvoiceID: nullable(r.InvoiceID),
		ReceivedAt: r.ReceivedAt.UTC(), ProcessedAt: utc(r.ProcessedAt),
	}
}

func (row eventRow) record() Record {
	r := Record{
		ID: row.ID, Type: row.Type, Payload: []byte(row.Payload), Outcome: Outcome(row.Outcome), Reason: row.Reason,
		ReceivedAt: row.ReceivedAt.UTC(), ProcessedAt: utc(row.ProcessedAt),
	}
	if row.TenantID != nil {
		r.TenantID = *row.TenantID
	}
	if row.InvoiceID != nil {
		r.InvoiceID = *row.InvoiceID
	}
	return r
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Insert implements Store. ON CONFLICT DO NOTHING rather than catching the
// unique violation keeps the caller's Postgres transaction usable, and
// makes a concurrent insert of the same id wait for the first
// transaction's end (Postgres blocks on the primary key; SQLite lets one
// writer in at a time).
func (s *BunStore) Insert(ctx context.Context, r Record) (bool, error) {
	row := toRow(r)
	a := database.NewArgs(s.db)
	res, err := database.Exec(ctx, s.db, database.BindRow(s.conn(ctx).NewInsert().Model(&row), a, &row).On("CONFLICT (id) DO NOTHING"), a)
	if err != nil {
		return false, database.Wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, database.Wrap(err)
	}
	return n == 1, nil
}

// Event implements Store.
func (s *BunStore) Event(ctx context.Context, id string) (Record, error) {
	var row eventRow
	err := s.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Record{}, ErrNotFound
	case err != nil:
		return Record{}, database.Wrap(err)
	}
	return row.record(), nil
}
