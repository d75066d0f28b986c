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
// as it is; Service.Update checks the others.
type UpdateTicketInput struct {
	// Status is where to move the ticket, along the transition table
	// (see Transitions).
	Status *string `json:"status,omitempty"`
	// Priority is one of Priorities. With service level targets, changing
	// it moves the due times to those of the new priority, counted from
	// the ticket's creation.
	Priority *string `json:"priority,omitempty"`
	// Tags replace the ticket's tags, normalised as on create (see
	// NormalizeTag): at most MaxTags, de-duplicated.
	Tags *[]string `json:"tags,omitempty"`
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
	var (
		status   Status
		priority Priority
		tags     []string
	)
	if in.Status != nil {
		if status = Status(*in.Status); !status.Valid() {
			errs.OneOf("status", names(Statuses())...)
		}
	}
	if in.Priority != nil {
		if priority = Priority(*in.Priority); !priority.Valid() {
			errs.OneOf("priority", names(Priorities())...)
		}
	}
	if in.Tags != nil {
		tags = normalizeTags(*in.Tags, errs)
	}
	if err := errs.Err(); err != nil {
		return Ticket{}, fmt.Errorf("support: update ticket %s: %w", ticketID, err)
	}
	return s.update(ctx, tenantID, ticketID, "update ticket "+ticketID, func(t *Ticket) error {
		next := *t
		if in.Status != nil && status != t.Status {
			if !CanTransition(t.Status, status) {
				return transitionConflict(t.Status)
			}
			next.Status = status
		}
		if in.Priority != nil && priority != t.Priority {
			next.Priority = priority
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
		next.UpdatedAt = s.clock()
		*t = next
		return nil
	})
}
