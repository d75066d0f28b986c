package support

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

// BunStore is the Store on Postgres or SQLite through Bun. Every query runs
// on the transaction carried by the context when there is one, and every
// query of tickets goes through database.ForTenant.
type BunStore struct {
	db bun.IDB
}

var _ Store = (*BunStore)(nil)

// NewBunStore returns a Store on db. Apply bunstore.Migrations (tenancy) and
// Migrations first.
func NewBunStore(db bun.IDB) *BunStore { return &BunStore{db: db} }

func (s *BunStore) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

type sequenceRow struct {
	bun.BaseModel `bun:"table:ticket_sequences"`
	TenantID      string `bun:"tenant_id,pk"`
	LastNumber    int64  `bun:"last_number"`
}

type ticketRow struct {
	bun.BaseModel  `bun:"table:tickets"`
	TenantID       string    `bun:"tenant_id,pk"`
	ID             string    `bun:"id,pk"`
	Number         int64     `bun:"number"`
	Subject        string    `bun:"subject"`
	Description    string    `bun:"description"`
	Status         string    `bun:"status"`
	Priority       string    `bun:"priority"`
	RequesterID    string    `bun:"requester_id"`
	RequesterEmail string    `bun:"requester_email"`
	RequesterName  string    `bun:"requester_name"`
	AssigneeID     *string   `bun:"assignee_id"`
	Tags           string    `bun:"tags"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

func newTicketRow(tenantID string, t Ticket) (ticketRow, error) {
	tags := t.Tags
	if tags == nil {
		tags = []string{}
	}
	rawTags, err := json.Marshal(tags)
	if err != nil {
		return ticketRow{}, fmt.Errorf("encode tags: %w", err)
	}
	return ticketRow{
		TenantID:       tenantID,
		ID:             t.ID,
		Number:         t.Number,
		Subject:        t.Subject,
		Description:    t.Description,
		Status:         string(t.Status),
		Priority:       string(t.Priority),
		RequesterID:    t.Requester.ID,
		RequesterEmail: t.Requester.Email,
		RequesterName:  t.Requester.Name,
		AssigneeID:     t.AssigneeID,
		Tags:           string(rawTags),
		CreatedAt:      t.CreatedAt.UTC(),
		UpdatedAt:      t.UpdatedAt.UTC(),
	}, nil
}

func (r ticketRow) ticket() (Ticket, error) {
	tags := []string{}
	if err := json.Unmarshal([]byte(r.Tags), &tags); err != nil {
		// Not the database's fault, nor retryable: the column holds
		// something this store never writes.
		return Ticket{}, fmt.Errorf("support: ticket %s: corrupt tags column: %v", r.ID, err)
	}
	if tags == nil { // the column held JSON null
		tags = []string{}
	}
	return Ticket{
		ID:          r.ID,
		Number:      r.Number,
		Subject:     r.Subject,
		Description: r.Description,
		Status:      Status(r.Status),
		Priority:    Priority(r.Priority),
		Requester:   Requester{ID: r.RequesterID, Email: r.RequesterEmail, Name: r.RequesterName},
		AssigneeID:  r.AssigneeID,
		Tags:        tags,
		CreatedAt:   r.CreatedAt.UTC(),
		UpdatedAt:   r.UpdatedAt.UTC(),
	}, nil
}

// NextNumber implements Store. The upsert takes the sequence row's lock
// until the caller's transaction ends, so concurrent creates of one tenant
// queue here and never share a number; other tenants are not held up.
func (s *BunStore) NextNumber(ctx context.Context, tenantID string) (int64, error) {
	seed := sequenceRow{TenantID: tenantID, LastNumber: 1}
	var n int64
	a := database.NewArgs(s.db)
	q := database.BindRow(s.conn(ctx).NewInsert().Model(&seed), a, &seed).
		On("CONFLICT (tenant_id) DO UPDATE").
		Set("last_number = ?TableAlias.last_number + 1").
		Returning("last_number")
	if err := database.Scan(ctx, s.db, q, a, &n); err != nil {
		return 0, translate(err)
	}
	return n, nil
}

// CreateTicket implements Store.
func (s *BunStore) CreateTicket(ctx context.Context, tenantID string, t Ticket) error {
	row, err := newTicketRow(tenantID, t)
	if err != nil {
		return fmt.Errorf("support: create ticket %s: %w", t.ID, err)
	}
	a := database.NewArgs(s.db)
	_, err = database.Exec(ctx, s.db, database.BindRow(s.conn(ctx).NewInsert().Model(&row), a, &row), a)
	return translate(err)
}

// Ticket implements Store.
func (s *BunStore) Ticket(ctx context.Context, tenantID, id string) (Ticket, error) {
	var row ticketRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), tenantID).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return Ticket{}, translate(err)
	}
	return row.ticket()
}

// ListTickets implements Store. Every filter is an equality on a column
// that follows tenant_id in an index ending in id, so each page is an
// index range scan in id order, as cheap on the thousandth page as on the
// first.
func (s *BunStore) ListTickets(ctx context.Context, tenantID string, f ListFilter) ([]Ticket, bool, error) {
	limit := max(f.Limit, 1)
	rows := make([]ticketRow, 0, limit+1) // room for the page: no growing by reflection
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID)
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Priority != "" {
		q = q.Where("priority = ?", f.Priority)
	}
	if f.RequesterID != "" {
		q = q.Where("requester_id = ?", f.RequesterID)
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	out := make([]Ticket, len(rows))
	for i, r := range rows {
		t, err := r.ticket()
		if err != nil {
			return nil, false, err
		}
		out[i] = t
	}
	return out, more, nil
}

// UpdateTicket implements Store. It runs in its own transaction (a
// savepoint inside the caller's): on Postgres SELECT … FOR UPDATE locks the
// row; on SQLite the transaction takes the database's write lock when it
// begins (see database.Open), which serialises it just the same.
func (s *BunStore) UpdateTicket(ctx context.Context, tenantID, id string, update func(*Ticket) error) (Ticket, error) {
	var out Ticket
	err := database.RunInTx(ctx, s.db, func(ctx context.Context) error {
		db := s.conn(ctx)
		var row ticketRow
		q := database.ForTenant(db.NewSelect().Model(&row), tenantID).Where("id = ?", id)
		if database.IsPostgres(db) {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return translate(err)
		}
		t, err := row.ticket()
		if err != nil {
			return err
		}
		if err := update(&t); err != nil {
			return err
		}
		next, err := newTicketRow(tenantID, t)
		if err != nil {
			return fmt.Errorf("support: update ticket %s: %w", id, err)
		}
		_, err = database.ForTenant(db.NewUpdate().Model(&next).
			Column("subject", "description", "status", "priority", "assignee_id", "tags", "updated_at"), tenantID).
			Where("id = ?", id).Exec(ctx)
		if err != nil {
			return translate(err)
		}
		// Return what the row now holds: the columns written above, and
		// the others as loaded, whatever update did to its copy of them.
		out, err = next.withImmutable(row).ticket()
		return err
	})
	return out, err
}

// withImmutable returns r with the columns UpdateTicket never writes taken
// from old, the row as loaded.
func (r ticketRow) withImmutable(old ticketRow) ticketRow {
	r.ID, r.Number, r.CreatedAt = old.ID, old.Number, old.CreatedAt
	r.RequesterID, r.RequesterEmail, r.RequesterName = old.RequesterID, old.RequesterEmail, old.RequesterName
	return r
}

// translate turns driver errors into the domain's sentinels.
func translate(err error) error { return database.Translate(err, ErrNotFound, ErrConflict) }
