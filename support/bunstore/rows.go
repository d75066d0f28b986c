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
}

func newTicketRow(tenantID string, t support.Ticket) (ticketRow, error) {
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
	return support.Ticket{
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
	}, nil
}

// withImmutable returns r with the columns UpdateTicket never writes taken
// from old, the row as loaded.
func (r ticketRow) withImmutable(old ticketRow) ticketRow {
	r.ID, r.Number, r.CreatedAt = old.ID, old.Number, old.CreatedAt
	r.RequesterID, r.RequesterEmail, r.RequesterName = old.RequesterID, old.RequesterEmail, old.RequesterName
	return r
}
