package main

import (
	"encoding/json"
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
}

// createTicket answers POST /api/tickets: module support.tickets on (a
// switchable module: one query), then one transaction that spends a unit
// of the monthly allowance, takes the next number and inserts.
func (s *server) createTicket(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "tickets:write", "tickets:write")
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	if on, err := s.moduleOn(ctx, c, catalog.ModuleTickets); err != nil || !on {
		respondError(w, orDisabled(err))
		return
	}
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
		if err := tx.QueryRow(ctx, `INSERT INTO ticket_sequences (tenant_id, last_number) VALUES ($1, 1)
			ON CONFLICT (tenant_id) DO UPDATE SET last_number = ticket_sequences.last_number + 1
			RETURNING last_number`, c.tenantID).Scan(&t.Number); err != nil {
			return err
		}
		t.ID = newID("tkt")
		t.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
		t.UpdatedAt = t.CreatedAt
		_, err := tx.Exec(ctx, `INSERT INTO tickets (tenant_id, id, number, subject, description, status, priority,
			requester_id, requester_email, requester_name, assignee_id, tags, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11, $12, $13)`,
			c.tenantID, t.ID, t.Number, t.Subject, t.Description, t.Status, t.Priority,
			t.Requester.ID, t.Requester.Email, t.Requester.Name, string(tags), t.CreatedAt, t.UpdatedAt)
		return err
	})
	if err != nil {
		respondError(w, err)
		return
	}
	w.Header().Set("Location", "/api/tickets/"+t.ID)
	writeJSON(w, http.StatusCreated, t)
}
