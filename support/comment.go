package support

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// MaxCommentLen is the longest comment body, in characters (Unicode code
// points): the max of CommentInput.Body's tag, which a test keeps equal.
const MaxCommentLen = 10000

// Comment is one message in a ticket's thread, from the tenant's side or
// from a platform agent.
type Comment struct {
	// ID is "cmt_" + a ULID; within a ticket, ids sort in the order the
	// comments were added.
	ID       string `json:"id"`
	TicketID string `json:"ticket_id"`
	// Author is who wrote it, as they were then.
	Author Author `json:"author"`
	// Body is the text, kept as written (line breaks matter).
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

// AuthorType says which side of a ticket a comment comes from.
type AuthorType string

// The sides of a ticket.
const (
	// AuthorRequester: a member of the tenant (the requester or a
	// colleague), commenting over the tenant's API.
	AuthorRequester AuthorType = "requester"
	// AuthorAgent: one of the platform's agents (Service.AgentReply).
	AuthorAgent AuthorType = "agent"
)

// Author is who wrote a comment: a snapshot taken when it was written.
type Author struct {
	Type AuthorType `json:"type"`
	// ID is a tenantkit user id for the tenant's side, the host's own id
	// for an agent.
	ID string `json:"id"`
	// Name is the author's name when known; "" (left out of JSON) for
	// agents, whose names are the host's to show.
	Name string `json:"name,omitempty" validate:"omitempty,max=200,line"`
}

// CommentInput is what the tenant's side sends to comment on a ticket: the
// body of POST /api/tickets/{id}/comments. An agent's reply is checked as
// one too.
type CommentInput struct {
	// Body is kept as written (line breaks matter); a blank one counts as
	// missing.
	Body string `json:"body" validate:"required,max=10000,text"`
}

// CommentFilter pages a ticket's comments, oldest first.
type CommentFilter struct {
	// Limit is the page size: 0 or less means DefaultListLimit, more than
	// MaxListLimit means MaxListLimit.
	Limit int
	// After is the id of the last comment of the previous page ("" for
	// the first page); the page holds later comments only. Anything but a
	// comment id is an *InvalidError on "cursor".
	After string
}

// normalize clamps the limit and checks the cursor.
func (f CommentFilter) normalize() (CommentFilter, error) {
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultListLimit
	case f.Limit > MaxListLimit:
		f.Limit = MaxListLimit
	}
	if f.After != "" && !id.Valid(id.Comment, f.After) {
		return f, field.NewInvalidError("cursor", field.Invalid, "must point at a comment of an earlier page")
	}
	return f, nil
}

// Comments returns a page of the thread of the tenant's ticket, oldest
// first (a conversation reads from the top), and whether later comments
// follow (ask again with After set to the last id). ErrNotFound when the
// tenant has no such ticket; module support.tickets must be on. The slice
// is never nil.
func (s *Service) Comments(ctx context.Context, tenantID, ticketID string, f CommentFilter) ([]Comment, bool, error) {
	if _, err := s.Get(ctx, tenantID, ticketID); err != nil {
		return nil, false, fmt.Errorf("support: comments: %w", err)
	}
	f, err := f.normalize()
	if err != nil {
		return nil, false, fmt.Errorf("support: comments of ticket %s: %w", ticketID, err)
	}
	cs, more, err := s.store.Comments(ctx, tenantID, ticketID, f)
	if err != nil {
		return nil, false, fmt.Errorf("support: comments of ticket %s: %w", ticketID, err)
	}
	if cs == nil {
		cs = []Comment{}
	}
	return cs, more, nil
}

// AddComment adds a comment by a member of the tenant (by, the caller) to
// the thread of the tenant's ticket. The requester's side answering moves
// a pending or solved ticket back to open (the team has something to act
// on again: a solved ticket is reopened); a closed ticket is final and
// takes no comment (ErrConflict: open a new ticket instead). Module
// support.tickets must be on. An *InvalidError (field "body") for an
// empty or too long body, ErrNotFound when the tenant has no such ticket.
// The comment and the ticket's change commit together.
func (s *Service) AddComment(ctx context.Context, tenantID, ticketID string, by Requester, in CommentInput) (Comment, error) {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleTickets); err != nil {
		return Comment{}, fmt.Errorf("support: comment on ticket %s: %w", ticketID, err)
	}
	author := Author{Type: AuthorRequester, ID: strings.TrimSpace(by.ID), Name: strings.TrimSpace(by.Name)}
	errs := field.Errors{}
	errs.Merge(field.Check(CommentInput{Body: unlessBlank(in.Body)}))
	checkRef(errs, "author.id", author.ID)
	checkUnder(errs, "author", author)
	if err := errs.Err(); err != nil {
		return Comment{}, fmt.Errorf("support: comment on ticket %s: %w", ticketID, err)
	}
	return s.comment(ctx, tenantID, ticketID, author, in.Body, func(t *Ticket) error {
		switch t.Status {
		case StatusClosed:
			return statusConflict(StatusClosed, "ticket is closed, which is final; open a new ticket instead")
		case StatusPending, StatusSolved:
			t.Status = StatusOpen
		}
		return nil
	})
}

// AgentReply adds a reply by the platform agent agentID (the host's id,
// 1..MaxRefLen characters without spaces) to the thread of the tenant's
// ticket. The ticket's first agent reply sets its FirstRespondedAt, which
// stops the first-response clock of its service level; later replies leave
// it as it is, and of concurrent first replies exactly one sets it. The
// status does not change (agents move it with Transition). Like the other
// agent methods it does not require module support.tickets. ErrConflict
// for a closed ticket, ErrNotFound when the tenant has no such ticket, an
// *InvalidError (fields "agent_id", "body") for bad input.
func (s *Service) AgentReply(ctx context.Context, tenantID, ticketID, agentID, body string) (Comment, error) {
	author := Author{Type: AuthorAgent, ID: strings.TrimSpace(agentID)}
	errs := field.Errors{}
	checkRef(errs, "agent_id", author.ID)
	errs.Merge(field.Check(CommentInput{Body: unlessBlank(body)}))
	if err := errs.Err(); err != nil {
		return Comment{}, fmt.Errorf("support: agent reply on ticket %s: %w", ticketID, err)
	}
	return s.comment(ctx, tenantID, ticketID, author, body, func(t *Ticket) error {
		if t.Status == StatusClosed {
			return closedConflict()
		}
		if t.FirstRespondedAt == nil {
			at := t.UpdatedAt // the clock's reading, set by comment before this runs
			t.FirstRespondedAt = &at
		}
		return nil
	})
}

// comment adds author's comment to the ticket in one transaction: the
// ticket is locked and changed by change (which sees UpdatedAt already set
// to now), then the comment is stored. The id and time are taken under the
// lock, so that the comments of a ticket sort by id in the order they were
// added.
func (s *Service) comment(ctx context.Context, tenantID, ticketID string, author Author, body string, change func(*Ticket) error) (Comment, error) {
	if !id.Valid(id.Ticket, ticketID) {
		return Comment{}, fmt.Errorf("support: comment on ticket %q: %w", ticketID, ErrNotFound)
	}
	var c Comment
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var now time.Time
		_, err := s.store.UpdateTicket(ctx, tenantID, ticketID, func(t *Ticket) error {
			now = s.clock(ctx)
			t.UpdatedAt = now
			return change(t)
		})
		if err != nil {
			return err
		}
		c = Comment{ID: id.New(id.Comment), TicketID: ticketID, Author: author, Body: body, CreatedAt: now}
		if err := s.store.CreateComment(ctx, tenantID, c); err != nil {
			return err
		}
		return s.record(ctx, tenantID, event.TicketCommented, ticketID, c)
	})
	if err != nil {
		return Comment{}, fmt.Errorf("support: comment on ticket %s: %w", ticketID, err)
	}
	return c, nil
}
