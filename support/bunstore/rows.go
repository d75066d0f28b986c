package bunstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/support"
)

// ticketRow is a row of the tickets table; newTicketRow and ticket
// convert it from and to a support.Ticket.
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

	FirstResponseDueAt  *time.Time `bun:"first_response_due_at"`
	ResolutionDueAt     *time.Time `bun:"resolution_due_at"`
	FirstRespondedAt    *time.Time `bun:"first_responded_at"`
	SLABreached         *bool      `bun:"sla_breached"`
	SatisfactionScore   *int       `bun:"satisfaction_score"`
	SatisfactionComment *string    `bun:"satisfaction_comment"`
	SatisfactionRatedBy *string    `bun:"satisfaction_rated_by"`
	SatisfactionRatedAt *time.Time `bun:"satisfaction_rated_at"`
}

// mutableColumns are the columns UpdateTicket writes: what
// support.Store.UpdateTicket lets update change.
var mutableColumns = []string{"subject", "description", "status", "priority", "assignee_id", "tags",
	"updated_at", "first_response_due_at", "resolution_due_at", "first_responded_at", "satisfaction_score",
	"satisfaction_comment", "satisfaction_rated_by", "satisfaction_rated_at"}

func newTicketRow(tenantID string, t support.Ticket) (ticketRow, error) {
	tags := t.Tags
	if tags == nil {
		tags = []string{}
	}
	rawTags, err := json.Marshal(tags)
	if err != nil {
		return ticketRow{}, fmt.Errorf("encode tags: %w", err)
	}
	r := ticketRow{
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

		FirstResponseDueAt: utc(t.FirstResponseDueAt),
		ResolutionDueAt:    utc(t.ResolutionDueAt),
		FirstRespondedAt:   utc(t.FirstRespondedAt),
		SLABreached:        copyPtr(t.SLABreached),
	}
	if sat := t.Satisfaction; sat != nil {
		r.SatisfactionScore, r.SatisfactionComment = copyPtr(&sat.Score), copyPtr(sat.Comment)
		r.SatisfactionRatedBy, r.SatisfactionRatedAt = copyPtr(&sat.RatedBy), utc(&sat.RatedAt)
	}
	return r, nil
}

func (r ticketRow) ticket() (support.Ticket, error) {
	tags := []string{}
	if err := json.Unmarshal([]byte(r.Tags), &tags); err != nil {
		// Not the database's fault, nor retryable: the column holds
		// something this store never writes.
		return support.Ticket{}, fmt.Errorf("support: ticket %s: corrupt tags column: %v", r.ID, err)
	}
	if tags == nil { // the column held JSON null
		tags = []string{}
	}
	t := support.Ticket{
		ID:          r.ID,
		Number:      r.Number,
		Subject:     r.Subject,
		Description: r.Description,
		Status:      support.Status(r.Status),
		Priority:    support.Priority(r.Priority),
		Requester:   support.Requester{ID: r.RequesterID, Email: r.RequesterEmail, Name: r.RequesterName},
		AssigneeID:  r.AssigneeID,
		Tags:        tags,
		CreatedAt:   r.CreatedAt.UTC(),
		UpdatedAt:   r.UpdatedAt.UTC(),

		FirstResponseDueAt: utc(r.FirstResponseDueAt),
		ResolutionDueAt:    utc(r.ResolutionDueAt),
		FirstRespondedAt:   utc(r.FirstRespondedAt),
		SLABreached:        copyPtr(r.SLABreached),
	}
	if r.SatisfactionScore != nil && r.SatisfactionRatedAt != nil {
		sat := &support.Satisfaction{Score: *r.SatisfactionScore, Comment: copyPtr(r.SatisfactionComment), RatedAt: r.SatisfactionRatedAt.UTC()}
		if r.SatisfactionRatedBy != nil {
			sat.RatedBy = *r.SatisfactionRatedBy
		}
		t.Satisfaction = sat
	}
	return t, nil
}

// utc returns a copy of *t in UTC, nil for nil.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// copyPtr returns a pointer to a copy of *p, nil for nil, so that a row
// and the ticket made from it share nothing.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// commentRow is a row of the ticket_comments table.
type commentRow struct {
	bun.BaseModel `bun:"table:ticket_comments"`
	TenantID      string    `bun:"tenant_id,pk"`
	ID            string    `bun:"id,pk"`
	TicketID      string    `bun:"ticket_id"`
	AuthorType    string    `bun:"author_type"`
	AuthorID      string    `bun:"author_id"`
	AuthorName    string    `bun:"author_name"`
	Body          string    `bun:"body"`
	CreatedAt     time.Time `bun:"created_at"`
}

func newCommentRow(tenantID string, c support.Comment) commentRow {
	return commentRow{
		TenantID: tenantID, ID: c.ID, TicketID: c.TicketID,
		AuthorType: string(c.Author.Type), AuthorID: c.Author.ID, AuthorName: c.Author.Name,
		Body: c.Body, CreatedAt: c.CreatedAt.UTC(),
	}
}

func (r commentRow) comment() (support.Comment, error) {
	return support.Comment{
		ID:        r.ID,
		TicketID:  r.TicketID,
		Author:    support.Author{Type: support.AuthorType(r.AuthorType), ID: r.AuthorID, Name: r.AuthorName},
		Body:      r.Body,
		CreatedAt: r.CreatedAt.UTC(),
	}, nil
}

// withImmutable returns r with the columns UpdateTicket never writes taken
// from old, the row as loaded.
func (r ticketRow) withImmutable(old ticketRow) ticketRow {
	r.ID, r.Number, r.CreatedAt = old.ID, old.Number, old.CreatedAt
	r.RequesterID, r.RequesterEmail, r.RequesterName = old.RequesterID, old.RequesterEmail, old.RequesterName
	r.SLABreached = old.SLABreached
	return r
}
