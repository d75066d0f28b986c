package main

import (
	"context"
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

// ticketModules tells whether support.tickets and support.sla are on for
// the caller's tenant, reading the switches of both in one query (and the
// contracted add-ons only when a module is neither switched nor included).
func (s *server) ticketModules(ctx context.Context, c caller) (tickets, sla bool, err error) {
	on := map[string]bool{}
	switched := map[string]bool{}
	rows, err := s.db.Query(ctx, `SELECT module, enabled FROM module_toggles WHERE tenant_id = $1 AND module IN ($2, $3)`,
		c.tenantID, catalog.ModuleTickets, catalog.ModuleSLA)
	if err != nil {
		return false, false, err
	}
	for rows.Next() {
		var m string
		var enabled bool
		if err := rows.Scan(&m, &enabled); err != nil {
			return false, false, err
		}
		if s.cat.Toggleable(c.plan, m) {
			on[m], switched[m] = enabled, true
		}
	}
	if err := rows.Err(); err != nil {
		return false, false, err
	}
	for _, m := range []string{catalog.ModuleTickets, catalog.ModuleSLA} {
		if !switched[m] {
			if on[m], err = s.moduleOn(ctx, caller{tenantID: c.tenantID, plan: c.plan}, m); err != nil {
				return false, false, err
			}
		}
	}
	return on[catalog.ModuleTickets], on[catalog.ModuleSLA], nil
}

// createTicket answers POST /api/tickets: module support.tickets on (a
// switchable module: one query, which also reads support.sla), then one
// transaction that spends a unit of the monthly allowance, takes the next
// number and inserts, with service level due times when support.sla is on.
func (s *server) createTicket(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "tickets:write", "tickets:write")
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	on, slaOn, err := s.ticketModules(ctx, c)
	if err != nil || !on {
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
		if slaOn {
			response, resolution := t.CreatedAt.Add(slaTargets[t.Priority][0]), t.CreatedAt.Add(slaTargets[t.Priority][1])
			breached := false
			t.FirstResponseDueAt, t.ResolutionDueAt, t.SLABreached = &response, &resolution, &breached
		}
		_, err := tx.Exec(ctx, `INSERT INTO tickets (tenant_id, id, number, subject, description, status, priority,
			requester_id, requester_email, requester_name, assignee_id, tags, created_at, updated_at,
			first_response_due_at, resolution_due_at, first_responded_at, sla_breached,
			satisfaction_score, satisfaction_comment, satisfaction_rated_by, satisfaction_rated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11, $12, $13, $14, $15, NULL, $16, NULL, NULL, NULL, NULL)`,
			c.tenantID, t.ID, t.Number, t.Subject, t.Description, t.Status, t.Priority,
			t.Requester.ID, t.Requester.Email, t.Requester.Name, string(tags), t.CreatedAt, t.UpdatedAt,
			t.FirstResponseDueAt, t.ResolutionDueAt, t.SLABreached)
		return err
	})
	if err != nil {
		respondError(w, err)
		return
	}
	w.Header().Set("Location", "/api/tickets/"+t.ID)
	writeJSON(w, http.StatusCreated, t)
}
