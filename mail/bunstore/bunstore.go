// Package bunstore is mail's outbox (mail.Store) on Postgres or SQLite
// through Bun, with its schema (Migrations). Every query runs on the
// transaction the context carries, so that a message is queued exactly
// when its cause commits.
package bunstore

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/mail"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the outbox's schema for both dialects (folders
// "postgres" and "sqlite"). Apply it after billing's, whose invoices it
// references; tenantkit.Migrate applies every domain's in order.
func Migrations() fs.FS { return database.Embedded(migrations) }

// Store is the mail.Store on Bun.
type Store struct {
	db bun.IDB
}

var _ mail.Store = (*Store)(nil)

// New returns the Store on db, migrated with Migrations.
func New(db bun.IDB) *Store { return &Store{db: db} }

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// messageRow is a row of mail_messages.
type messageRow struct {
	bun.BaseModel `bun:"table:mail_messages"`
	TenantID      string     `bun:"tenant_id,pk"`
	ID            string     `bun:"id,pk"`
	Cause         string     `bun:"cause"`
	Kind          string     `bun:"kind"`
	InvoiceID     string     `bun:"invoice_id"`
	Recipient     string     `bun:"recipient"`
	MessageID     string     `bun:"message_id"`
	Status        string     `bun:"status"`
	Attempts      int        `bun:"attempts"`
	Error         string     `bun:"error"`
	CreatedAt     time.Time  `bun:"created_at"`
	SentAt        *time.Time `bun:"sent_at"`
}

func toRow(m mail.Message) messageRow {
	return messageRow{TenantID: m.TenantID, ID: m.ID, Cause: m.Cause, Kind: string(m.Kind), InvoiceID: m.InvoiceID,
		Recipient: m.To, MessageID: m.MessageID, Status: string(m.Status), Attempts: m.Attempts, Error: m.Error,
		CreatedAt: m.CreatedAt, SentAt: m.SentAt}
}

func (r messageRow) message() mail.Message {
	m := mail.Message{ID: r.ID, TenantID: r.TenantID, Kind: mail.Kind(r.Kind), InvoiceID: r.InvoiceID, To: r.Recipient,
		Cause: r.Cause, MessageID: r.MessageID, Status: mail.Status(r.Status), Attempts: r.Attempts, Error: r.Error,
		CreatedAt: r.CreatedAt.UTC()}
	if r.SentAt != nil {
		at := r.SentAt.UTC()
		m.SentAt = &at
	}
	return m
}

// QueueMessage implements mail.Store: INSERT … ON CONFLICT (tenant_id,
// cause) DO NOTHING, one statement on both dialects.
func (s *Store) QueueMessage(ctx context.Context, m mail.Message) (bool, error) {
	r := toRow(m)
	res, err := s.conn(ctx).NewInsert().Model(&r).On("CONFLICT (tenant_id, cause) DO NOTHING").Returning("NULL").Exec(ctx)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Message implements mail.Store.
func (s *Store) Message(ctx context.Context, tenantID, id string) (mail.Message, error) {
	var r messageRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&r), tenantID).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return mail.Message{}, translate(err)
	}
	return r.message(), nil
}

// UpdateMessage implements mail.Store.
func (s *Store) UpdateMessage(ctx context.Context, m mail.Message) error {
	r := toRow(m)
	q := s.conn(ctx).NewUpdate().Model(&r).Column("status", "attempts", "error", "sent_at").WherePK()
	res, err := q.Exec(ctx)
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.Join(err, mail.ErrNotFound)
	}
	return nil
}

// Messages implements mail.Store.
func (s *Store) Messages(ctx context.Context, tenantID, invoiceID string) ([]mail.Message, error) {
	var rows []messageRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).
		Where("invoice_id = ?", invoiceID).Order("id").Scan(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]mail.Message, len(rows))
	for i, r := range rows {
		out[i] = r.message()
	}
	return out, nil
}

// translate turns driver errors into mail's sentinels.
func translate(err error) error {
	return database.Translate(err, mail.ErrNotFound, billing.ErrConflict)
}
