package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenantkit/tenantkit/catalog"
)

type requester struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

// ticket has the JSON shape of support.Ticket.
type ticket struct {
	ID          string    `json:"id"`
	Number      int64     `json:"number"`
	Subject     string    `json:"subject"`
	Description string    `json:"description"`
	Status      string    `json:"status"`
	Priority    string    `json:"priority"`
	Requester   requester `json:"requester"`
	AssigneeID  *string   `json:"assignee_id"`
	Tags        []string  `json:"tags"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`

	FirstResponseDueAt *time.Time `json:"first_response_due_at"`
	ResolutionDueAt    *time.Time `json:"resolution_due_at"`
	FirstRespondedAt   *time.Time `json:"first_responded_at"`
	SLABreached        *bool      `json:"sla_breached"`
	Satisfaction       any        `json:"satisfaction"`
}

// slaTargets are the first-response and resolution times by priority
// (module support.sla).
var slaTargets = map[string][2]time.Duration{
	"urgent": {time.Hour, 8 * time.Hour}, "high": {4 * time.Hour, 24 * time.Hour},
	"normal": {8 * time.Hour, 72 * time.Hour}, "low": {24 * time.Hour, 120 * time.Hour},
}

// Support's statements.
const (
	sqlNextTicketNumber = `INSERT INTO "ticket_sequences" (tenant_id, last_number) VALUES ($1, 1) ON CONFLICT (tenant_id) DO UPDATE SET last_number = "ticket_sequences".last_number + 1 RETURNING last_number`
	sqlInsertTicket     = `INSERT INTO tickets (tenant_id, id, number, subject, description, status, priority, requester_id, requester_email, requester_name, assignee_id, tags, created_at, updated_at, first_response_due_at, resolution_due_at, first_responded_at, sla_breached, satisfaction_score, satisfaction_comment, satisfaction_rated_by, satisfaction_rated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`
	ticketColumns       = `"ticket_row"."tenant_id", "ticket_row"."id", "ticket_row"."number", "ticket_row"."subject", "ticket_row"."description", "ticket_row"."status", "ticket_row"."priority", "ticket_row"."requester_id", "ticket_row"."requester_email", "ticket_row"."requester_name", "ticket_row"."assignee_id", "ticket_row"."tags", "ticket_row"."created_at", "ticket_row"."updated_at", "ticket_row"."first_response_due_at", "ticket_row"."resolution_due_at", "ticket_row"."first_responded_at", "ticket_row"."sla_breached", "ticket_row"."satisfaction_score", "ticket_row"."satisfaction_comment", "ticket_row"."satisfaction_rated_by", "ticket_row"."satisfaction_rated_at"`
	sqlLockTicket       = `SELECT ` + ticketColumns + ` FROM "tickets" AS "ticket_row" WHERE (tenant_id = $1) AND (id = $2) FOR UPDATE`
	sqlUpdateTicket     = `UPDATE "tickets" AS "ticket_row" SET subject = $2, description = $3, status = $4, priority = $5, assignee_id = $6, tags = $7, updated_at = $8, first_response_due_at = $9, resolution_due_at = $10, first_responded_at = $11, satisfaction_score = $12, satisfaction_comment = $13, satisfaction_rated_by = $14, satisfaction_rated_at = $15 WHERE (tenant_id = $1) AND (id = $16)`
	sqlInsertComment    = `INSERT INTO ticket_comments (tenant_id, id, ticket_id, author_type, author_id, author_name, body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
)

// createTicket answers POST /api/tickets: module support.tickets on (from
// the state read with the membership), then one transaction that spends a
// unit of the monthly allowance, takes the next number, inserts, with
// service level due times when support.sla is on, and records the event.
func (s *server) createTicket(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "tickets:write", "tickets:write", readsState)
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	if !s.moduleOn(c.st, catalog.ModuleTickets) {
		respondError(w, errDisabled)
		return
	}
	slaOn := s.moduleOn(c.st, catalog.ModuleSLA)
	var in struct {
		Subject     string   `json:"subject"`
		Description string   `json:"description"`
		Priority    string   `json:"priority,omitempty"`
		Tags        []string `json:"tags,omitempty"`
	}
	if err := decodeBody(r, &in); err != nil {
		respondError(w, err)
		return
	}
	t := ticket{Subject: strings.TrimSpace(in.Subject), Description: in.Description, Status: "open",
		Priority: in.Priority, Requester: requester{ID: c.userID, Email: c.email, Name: c.name}, Tags: []string{}}
	if t.Priority == "" {
		t.Priority = "normal"
	}
	invalid := t.Subject == "" || utf8.RuneCountInString(t.Subject) > 200 ||
		strings.TrimSpace(t.Description) == "" || utf8.RuneCountInString(t.Description) > 10000 ||
		!slices.Contains([]string{"low", "normal", "high", "urgent"}, t.Priority) || len(in.Tags) > 10
	for _, raw := range in.Tags {
		tag := strings.Join(strings.Fields(strings.ToLower(raw)), "-")
		if tag == "" || len(tag) > 32 {
			invalid = true
		} else if !slices.Contains(t.Tags, tag) {
			t.Tags = append(t.Tags, tag)
		}
	}
	if invalid {
		respondError(w, fail(http.StatusUnprocessableEntity, "validation_failed", "invalid ticket"))
		return
	}
	tags, _ := json.Marshal(t.Tags)
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if err := consume(ctx, tx, c, catalog.FeatureTickets); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, sqlNextTicketNumber, c.tenantID).Scan(&t.Number); err != nil {
			return err
		}
		t.ID = newID("tkt")
		t.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
		t.UpdatedAt = t.CreatedAt
		if slaOn {
			response, resolution := t.CreatedAt.Add(slaTargets[t.Priority][0]), t.CreatedAt.Add(slaTargets[t.Priority][1])
			breached := false
			t.FirstResponseDueAt, t.ResolutionDueAt, t.SLABreached = &response, &resolution, &breached
		}
		insert := queued{sqlInsertTicket, []any{c.tenantID, t.ID, t.Number, t.Subject, t.Description, t.Status, t.Priority,
			t.Requester.ID, t.Requester.Email, t.Requester.Name, nil, string(tags), t.CreatedAt, t.UpdatedAt,
			t.FirstResponseDueAt, t.ResolutionDueAt, nil, t.SLABreached, nil, nil, nil, nil}}
		return s.recordEventAfter(ctx, tx, []queued{insert}, actorOf(r, &c), c.tenantID, "ticket.created", "ticket", t.ID, t)
	})
	if err != nil {
		respondError(w, err)
		return
	}
	w.Header().Set("Location", "/api/tickets/"+t.ID)
	writeJSON(w, http.StatusCreated, t)
}

// comment has the JSON shape of support.Comment.
type comment struct {
	ID       string `json:"id"`
	TicketID string `json:"ticket_id"`
	Author   struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name,omitempty"`
	} `json:"author"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

// commentOnTicket answers POST /api/tickets/{id}/comments as support's
// AddComment does, in one transaction: lock the ticket, reopen it when it
// was pending or solved (a closed one takes no comment), write it back,
// insert the comment and record the event.
func (s *server) commentOnTicket(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "tickets:write", "tickets:write", readsState)
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	if !s.moduleOn(c.st, catalog.ModuleTickets) {
		respondError(w, errDisabled)
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if err := decodeBody(r, &in); err != nil {
		respondError(w, err)
		return
	}
	if strings.TrimSpace(in.Body) == "" || utf8.RuneCountInString(in.Body) > 10000 {
		respondError(w, fail(http.StatusUnprocessableEntity, "validation_failed", "body is invalid"))
		return
	}
	ticketID := r.PathValue("id")
	var cm comment
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var (
			tenantOf, tags       string
			t                    ticket
			score                *int
			csatComment, ratedBy *string
			ratedAt              *time.Time
		)
		err := tx.QueryRow(ctx, sqlLockTicket, c.tenantID, ticketID).Scan(&tenantOf, &t.ID, &t.Number, &t.Subject, &t.Description,
			&t.Status, &t.Priority, &t.Requester.ID, &t.Requester.Email, &t.Requester.Name, &t.AssigneeID, &tags,
			&t.CreatedAt, &t.UpdatedAt, &t.FirstResponseDueAt, &t.ResolutionDueAt, &t.FirstRespondedAt, &t.SLABreached,
			&score, &csatComment, &ratedBy, &ratedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return fail(http.StatusNotFound, "not_found", "ticket not found")
		}
		if err != nil {
			return err
		}
		switch t.Status {
		case "closed":
			return fail(http.StatusConflict, "conflict", "ticket is closed, which is final; open a new ticket instead")
		case "pending", "solved":
			t.Status = "open"
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		if _, err := tx.Exec(ctx, sqlUpdateTicket, c.tenantID, t.Subject, t.Description, t.Status, t.Priority, t.AssigneeID,
			tags, now, t.FirstResponseDueAt, t.ResolutionDueAt, t.FirstRespondedAt, score, csatComment, ratedBy, ratedAt,
			ticketID); err != nil {
			return err
		}
		cm = comment{ID: newID("cmt"), TicketID: ticketID, Body: in.Body, CreatedAt: now}
		cm.Author.Type, cm.Author.ID, cm.Author.Name = "requester", c.userID, c.name
		insert := queued{sqlInsertComment, []any{c.tenantID, cm.ID, ticketID, cm.Author.Type, cm.Author.ID, cm.Author.Name,
			cm.Body, cm.CreatedAt}}
		return s.recordEventAfter(ctx, tx, []queued{insert}, actorOf(r, &c), c.tenantID, "ticket.commented", "ticket", ticketID, cm)
	})
	if err != nil {
		respondError(w, err)
		return
	}
	w.Header().Set("Location", "/api/tickets/"+ticketID+"/comments/"+cm.ID)
	writeJSON(w, http.StatusCreated, cm)
}
