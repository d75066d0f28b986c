package bunstore

import (
	"context"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/support"
)

// CreateComment implements support.Store. The foreign key from the comment
// to (tenant_id, ticket_id) refuses a ticket of another tenant, which
// translate reports as support.ErrNotFound.
func (s *Store) CreateComment(ctx context.Context, tenantID string, c support.Comment) error {
	// Sent with the next statement (the ticket.commented event's): later.go.
	return s.stmts.insertComment.ExecLater(ctx, translate, tenantID, c.ID, c.TicketID, string(c.Author.Type),
		c.Author.ID, c.Author.Name, c.Body, c.CreatedAt.UTC())
}

// insertComment is CreateComment's statement.
const insertComment = `INSERT INTO ticket_comments (tenant_id, id, ticket_id, author_type, author_id, author_name, body, created_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// Comments implements support.Store: one range scan of
// ticket_comments_ticket_idx, oldest first.
func (s *Store) Comments(ctx context.Context, tenantID, ticketID string, f support.CommentFilter) ([]support.Comment, bool, error) {
	limit := max(f.Limit, 1)
	rows := make([]commentRow, 0, limit+1)
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), a.Add(tenantID)).
		Where("ticket_id = ?", a.Add(ticketID))
	if f.After != "" {
		q = q.Where("id > ?", a.Add(f.After))
	}
	if err := database.Scan(ctx, s.db, q.OrderExpr("id ASC").Limit(int64(limit)+1), a, &rows); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, commentRow.comment)
}
