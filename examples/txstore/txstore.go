// Package txstore is an example of a store written outside tenantkit that
// joins tenantkit's transactions: a support.Store that keeps tickets where
// tenantkit's Bun store keeps them and also writes a row of the host's own
// table, ticket_subjects, which allows one ticket per subject and tenant.
// It uses only public packages: support/bunstore for the tickets, and
// tenantkit.Conn to find the transaction the context carries.
//
// Because its write runs on that transaction, a ticket, the unit of the
// tenant's monthly allowance it spends, its number and the host's row
// commit together or not at all: when the host's row cannot be written (a
// second ticket about the same subject), the ticket is not created and the
// allowance is not spent. The host wires it in place of the default store:
//
//	app, _ := tenantkit.New(db, catalog.Default())
//	app.Support = support.NewService(txstore.New(db), app.Tenancy.Entitlements, app.Tenancy.Notifications, tenantkit.NewTransactor(db))
//	api, _ := httpapi.New(ctx, app.HTTPConfig())
package txstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/support/bunstore"
)

// ErrDuplicateSubject is CreateTicket's error when the tenant already has a
// ticket with the same subject. It wraps support.ErrConflict, which the
// HTTP edge answers with 409.
var ErrDuplicateSubject = fmt.Errorf("a ticket with this subject exists: %w", support.ErrConflict)

// Store is a support.Store that also records each ticket's subject in the
// host's table ticket_subjects, in the transaction of the caller.
type Store struct {
	*bunstore.Store // tenantkit's store: tickets, numbers, lists, updates
	db              bun.IDB
}

var _ support.Store = (*Store)(nil)

// New returns a Store on db. Apply tenantkit.Migrate and Migrate first.
func New(db bun.IDB) *Store { return &Store{Store: bunstore.New(db), db: db} }

// subjectRow is a row of the host's table.
type subjectRow struct {
	bun.BaseModel `bun:"table:ticket_subjects"`
	TenantID      string    `bun:"tenant_id,pk"`
	Subject       string    `bun:"subject,pk"` // lower-case: one ticket per subject, whatever its case
	TicketID      string    `bun:"ticket_id,notnull"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
}

// Migrate creates the host's table when it does not exist yet.
func Migrate(ctx context.Context, db bun.IDB) error {
	_, err := db.NewCreateTable().Model((*subjectRow)(nil)).IfNotExists().Exec(ctx)
	return err
}

// CreateTicket implements support.Store: tenantkit's insert, then the
// host's, both on the transaction ctx carries (support.Service.Create runs
// it in one with the allowance and the number). ErrDuplicateSubject when
// the tenant has a ticket with the subject already.
func (s *Store) CreateTicket(ctx context.Context, tenantID string, t support.Ticket) error {
	if err := s.Store.CreateTicket(ctx, tenantID, t); err != nil {
		return err
	}
	row := subjectRow{TenantID: tenantID, Subject: strings.ToLower(t.Subject), TicketID: t.ID, CreatedAt: t.CreatedAt}
	// ON CONFLICT DO NOTHING rather than a caught unique violation, which
	// would leave a Postgres transaction unusable for the caller.
	res, err := tenantkit.Conn(ctx, s.db).NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("txstore: record subject of %s: %w", t.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("txstore: record subject of %s: %w", t.ID, err)
	} else if n == 0 {
		return ErrDuplicateSubject
	}
	return nil
}

// TicketWithSubject returns the id of the tenant's ticket about subject,
// from the host's table; support.ErrNotFound when there is none.
func (s *Store) TicketWithSubject(ctx context.Context, tenantID, subject string) (string, error) {
	var row subjectRow
	err := tenantkit.Conn(ctx, s.db).NewSelect().Model(&row).
		Where("tenant_id = ?", tenantID).Where("subject = ?", strings.ToLower(subject)).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", support.ErrNotFound
	case err != nil:
		return "", fmt.Errorf("txstore: ticket with subject: %w", err)
	}
	return row.TicketID, nil
}
