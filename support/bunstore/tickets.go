package bunstore

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/support"
)

// CreateTicket implements support.Store.
func (s *Store) CreateTicket(ctx context.Context, tenantID string, t support.Ticket) error {
	r, err := newTicketRow(tenantID, t)
	if err != nil {
		return fmt.Errorf("support: create ticket %s: %w", t.ID, err)
	}
	// Returning("NULL"): nothing to read back (Bun would ask for the
	// columns it wrote as DEFAULT).
	_, err = s.conn(ctx).NewInsert().Model(&r).Returning("NULL").Exec(ctx)
	return translate(err)
}

// Ticket implements support.Store.
func (s *Store) Ticket(ctx context.Context, tenantID, id string) (support.Ticket, error) {
	var row ticketRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), tenantID).
		Where("id = ?", id).
		Scan(ctx)
	if err != nil {
		return support.Ticket{}, translate(err)
	}
	return row.ticket()
}

// ListTickets implements support.Store. Every filter is an equality on a column
// that follows tenant_id in an index ending in id, so each page is an
// index range scan in id order, as cheap on the thousandth page as on the
// first.
func (s *Store) ListTickets(ctx context.Context, tenantID string, f support.ListFilter) ([]support.Ticket, bool, error) {
	limit := max(f.Limit, 1)
	var rows []ticketRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID)
	if f.RequesterID != "" {
		q = q.Where("requester_id = ?", f.RequesterID)
	}
	if err := newestFirst(q, f.Status, f.Priority, f.Before, limit).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, ticketRow.ticket)
}

// UpdateTicket implements support.Store. It joins the caller's
// transaction, or runs in one of its own: on Postgres SELECT … FOR UPDATE
// locks the row until the outermost transaction ends; on SQLite the
// transaction takes the database's write lock when it begins (see
// database.Open), which serialises it just the same. It sets no savepoint
// (database.JoinTx): update fails before anything is written, and every
// caller gives up when UpdateTicket fails.
func (s *Store) UpdateTicket(ctx context.Context, tenantID, id string, update func(*support.Ticket) error) (support.Ticket, error) {
	var out support.Ticket
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		var row ticketRow
		q := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), tenantID).Where("id = ?", id)
		if database.IsPostgres(s.db) {
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
		_, err = database.ForTenant(s.conn(ctx).NewUpdate().Model(&next), tenantID).
			Column(mutableColumns...).
			Where("id = ?", id).
			Exec(ctx)
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

// newestFirst adds the filters both ticket lists share (status, priority,
// the page's keyset) to q and orders it newest first, one row past limit.
func newestFirst(q *bun.SelectQuery, status, priority, before string, limit int) *bun.SelectQuery {
	if status != "" {
		q = q.Where("status = ?", status)
	}
	if priority != "" {
		q = q.Where("priority = ?", priority)
	}
	if before != "" {
		q = q.Where("id < ?", before)
	}
	return q.OrderExpr("id DESC").Limit(int64(limit) + 1)
}
