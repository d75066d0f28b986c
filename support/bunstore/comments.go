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
	r := newCommentRow(tenantID, c)
	_, err := s.conn(ctx).NewInsert().Model(&r).Exec(ctx)
	return translate(err)
}

// Comments implements support.Store: one range scan of
// ticket_comments_ticket_idx, oldest first.
func (s *Store) Comments(ctx context.Context, tenantID, ticketID string, f support.CommentFilter) ([]support.Comment, bool, error) {
	limit := max(f.Limit, 1)
	var rows []commentRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).
		Where("ticket_id = ?", ticketID)
	if f.After != "" {
		q = q.Where("id > ?", f.After)
	}
	if err := q.OrderExpr("id ASC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, commentRow.comment)
}
