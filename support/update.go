package support

import (
	"context"
	"fmt"
	"slices"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
)

// UpdateTicketInput is what the tenant's side sends to change a ticket:
// the body of PATCH /api/tickets/{id}, decoded as is. A nil field is left
// as it is; the others must meet their tags (omitnil: an empty string is
// checked, and refused).
type UpdateTicketInput struct {
	// Status is where to move the ticket, along the transition table
	// (see Transitions).
	Status *string `json:"status,omitempty" validate:"omitnil,oneof=open pending on_hold solved closed"`
	// Priority is one of Priorities. With service level targets, changing
	// it moves the due times to those of the new priority, counted from
	// the ticket's creation.
	Priority *string `json:"priority,omitempty" validate:"omitnil,oneof=low normal high urgent"`
	// Tags replace the ticket's tags, normalised and de-duplicated as on
	// create (see CreateTicketInput.Tags).
	Tags *[]string `json:"tags,omitempty" validate:"omitnil,max=10,dive,required,max=32"`
}

// Update changes the tenant's ticket as in says, all of it or nothing:
// the status along the transition table, the priority, the tags. Asking
// for what the ticket already has changes nothing, not even UpdatedAt. A
// closed ticket takes no change. Module support.tickets must be on.
// Errors: an *InvalidError naming every bad field ("status", "priority",
// "tags", "tags[i]"); ErrConflict (wrapped, with the ticket's current
// status) for a move the table forbids or any change of a closed ticket;
// ErrNotFound when the tenant has no such ticket.
func (s *Service) Update(ctx context.Context, tenantID, ticketID string, in UpdateTicketInput) (Ticket, error) {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleTickets); err != nil {
		return Ticket{}, fmt.Errorf("support: update ticket %s: %w", ticketID, err)
	}
	errs := field.Errors{}
	errs.Merge(field.Check(in))
	var tags []string
	if in.Tags != nil {
		tags = normalizeTags(*in.Tags, errs)
	}
	if err := errs.Err(); err != nil {
		return Ticket{}, fmt.Errorf("support: update ticket %s: %w", ticketID, err)
	}
	return s.update(ctx, tenantID, ticketID, "update ticket "+ticketID, func(t *Ticket) error {
		next := *t
		if in.Status != nil && Status(*in.Status) != t.Status {
			if !CanTransition(t.Status, Status(*in.Status)) {
				return transitionConflict(t.Status)
			}
			next.Status = Status(*in.Status)
		}
		if in.Priority != nil && Priority(*in.Priority) != t.Priority {
			next.Priority = Priority(*in.Priority)
			if t.FirstResponseDueAt != nil || t.ResolutionDueAt != nil {
				setTargets(&next)
			}
		}
		if in.Tags != nil && !slices.Equal(tags, t.Tags) {
			next.Tags = tags
		}
		if next.Status == t.Status && next.Priority == t.Priority && slices.Equal(next.Tags, t.Tags) {
			return nil // nothing asked for is new
		}
		if t.Status == StatusClosed {
			return closedConflict()
		}
		next.UpdatedAt = s.clock(ctx)
		*t = next
		return nil
	})
}
