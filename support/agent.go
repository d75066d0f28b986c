package support

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// The methods in this file are the platform agents' side of a ticket:
// moving it between statuses, assigning it and setting its priority. The
// interface document has no endpoints for them; host apps call them to
// build their agent UI. They do not require module support.tickets, so
// that the platform can still wind down the tickets of a tenant who has
// switched the module off.
//
// Every change runs inside Store.UpdateTicket, which locks the ticket, so
// the rule is checked against the status the change is applied to: two
// agents acting at once cannot, say, reopen a ticket the other just closed.
// Asking for what the ticket already has succeeds and changes nothing, not
// even UpdatedAt, so that retries and double clicks are harmless.

// Transition moves the tenant's ticket to status to, if the transition
// table allows it (see Transitions): open, pending and on_hold move freely
// among themselves and to solved or closed; solved may be reopened (to
// open) or closed; closed is final. A move to the current status is a
// no-op success, even for a closed ticket, as nothing leaves it.
// ErrConflict (wrapped, with the allowed moves in the message) for an
// illegal move, ErrNotFound when the tenant has no such ticket, an
// *InvalidError (field "status") for an unknown status.
func (s *Service) Transition(ctx context.Context, tenantID, ticketID string, to Status) (Ticket, error) {
	if !to.Valid() {
		err := field.NewInvalidError("status", field.Invalid, "must be one of: "+join(Statuses()))
		return Ticket{}, fmt.Errorf("support: move ticket %s: %w", ticketID, err)
	}
	return s.update(ctx, tenantID, ticketID, fmt.Sprintf("move ticket %s to %s", ticketID, to), func(t *Ticket) error {
		if t.Status == to {
			return nil
		}
		if !CanTransition(t.Status, to) {
			return transitionConflict(t.Status)
		}
		t.Status = to
		t.UpdatedAt = s.clock(ctx)
		return nil
	})
}

// Assign gives the tenant's ticket to the agent assigneeID, or to nobody
// when it is nil. The id is the host's (1..MaxRefLen characters without
// spaces) and is not looked up. ErrConflict for a closed ticket,
// ErrNotFound when the tenant has no such ticket, an *InvalidError (field
// "assignee_id") for a malformed id.
func (s *Service) Assign(ctx context.Context, tenantID, ticketID string, assigneeID *string) (Ticket, error) {
	var assignee *string
	if assigneeID != nil {
		a := strings.TrimSpace(*assigneeID)
		errs := field.Errors{}
		checkRef(errs, "assignee_id", a)
		if err := errs.Err(); err != nil {
			return Ticket{}, fmt.Errorf("support: assign ticket %s: %w", ticketID, err)
		}
		assignee = &a
	}
	return s.update(ctx, tenantID, ticketID, "assign ticket "+ticketID, func(t *Ticket) error {
		if equalRef(t.AssigneeID, assignee) {
			return nil
		}
		if t.Status == StatusClosed {
			return closedConflict()
		}
		t.AssigneeID = assignee
		t.UpdatedAt = s.clock(ctx)
		return nil
	})
}

// SetPriority changes the priority of the tenant's ticket. ErrConflict for
// a closed ticket, ErrNotFound when the tenant has no such ticket, an
// *InvalidError (field "priority") for an unknown priority.
func (s *Service) SetPriority(ctx context.Context, tenantID, ticketID string, p Priority) (Ticket, error) {
	if !p.Valid() {
		err := field.NewInvalidError("priority", field.Invalid, "must be one of: "+join(Priorities()))
		return Ticket{}, fmt.Errorf("support: set priority of ticket %s: %w", ticketID, err)
	}
	return s.update(ctx, tenantID, ticketID, fmt.Sprintf("set priority of ticket %s to %s", ticketID, p), func(t *Ticket) error {
		if t.Priority == p {
			return nil
		}
		if t.Status == StatusClosed {
			return closedConflict()
		}
		t.Priority = p
		t.UpdatedAt = s.clock(ctx)
		return nil
	})
}

// update applies change to the tenant's ticket under the store's lock and
// wraps any error with op, what was attempted. An id that is not a ticket
// id is not found without asking the store.
func (s *Service) update(ctx context.Context, tenantID, ticketID, op string, change func(*Ticket) error) (Ticket, error) {
	if !id.Valid(id.Ticket, ticketID) {
		return Ticket{}, fmt.Errorf("support: %s: %w", op, ErrNotFound)
	}
	var t Ticket
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		changed := false
		var err error
		t, err = s.store.UpdateTicket(ctx, tenantID, ticketID, func(t *Ticket) error {
			before := *t
			if err := change(t); err != nil {
				return err
			}
			changed = !t.UpdatedAt.Equal(before.UpdatedAt) || t.Status != before.Status ||
				t.Priority != before.Priority || !equalRef(t.AssigneeID, before.AssigneeID) || !slices.Equal(t.Tags, before.Tags)
			return nil
		})
		if err != nil || !changed {
			return err
		}
		return s.record(ctx, tenantID, event.TicketUpdated, t.ID, t)
	})
	if err != nil {
		return Ticket{}, fmt.Errorf("support: %s: %w", op, err)
	}
	return t, nil
}

// equalRef reports whether two optional ids are the same.
func equalRef(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
