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
	"github.com/tenantkit/tenantkit/tenancy"
)

// Bounds of a satisfaction rating: those of RatingInput's tags, which a
// test keeps equal.
const (
	MinScore = 1
	MaxScore = 5
	// MaxRatingCommentLen is the longest rating comment, in characters.
	MaxRatingCommentLen = 2000
)

// Satisfaction is how the tenant rated the answer to a ticket (module
// support.csat).
type Satisfaction struct {
	// Score is from MinScore (very dissatisfied) to MaxScore (very
	// satisfied).
	Score int `json:"score"`
	// Comment is what the rater added; nil when nothing.
	Comment *string `json:"comment"`
	// RatedBy is the id of the user who rated.
	RatedBy string    `json:"rated_by"`
	RatedAt time.Time `json:"rated_at"`
}

// RatingInput is the body of POST /api/tickets/{id}/satisfaction.
type RatingInput struct {
	// Score is MinScore..MaxScore; 0 (absent) is out of range.
	Score int `json:"score" validate:"min=1,max=5"`
	// Comment is optional and kept as written; blank counts as none.
	Comment *string `json:"comment,omitempty" validate:"omitempty,max=2000,text"`
}

// Rater is who rates a ticket: a member of the tenant and their role in it.
type Rater struct {
	UserID string
	Role   tenancy.Role
}

// mayRateAny reports whether a member with role r may rate a ticket that
// another member opened: owners and admins speak for the tenant.
func mayRateAny(r tenancy.Role) bool { return r == tenancy.RoleOwner || r == tenancy.RoleAdmin }

// Rate records the tenant's satisfaction with the answer to its ticket:
// once per ticket, while the ticket is solved. The ticket's requester may
// rate it, and so may an owner or admin of the tenant; anyone else gets
// ErrForbidden. Modules support.tickets and support.csat must both be on
// (an error wrapping tenancy.ErrModuleDisabled). ErrConflict (with the
// current status) unless the ticket is solved, or when it is rated
// already, also when two ratings race: exactly one wins. An
// *InvalidError (fields "score", "comment") for bad input, ErrNotFound
// when the tenant has no such ticket. A rating stays with the ticket if it
// is reopened later. It records ticket.rated (WithEvents).
func (s *Service) Rate(ctx context.Context, tenantID, ticketID string, by Rater, in RatingInput) (Satisfaction, error) {
	for _, m := range []string{catalog.ModuleTickets, catalog.ModuleCSAT} {
		if err := s.ent.RequireModule(ctx, tenantID, m); err != nil {
			return Satisfaction{}, fmt.Errorf("support: rate ticket %s: %w", ticketID, err)
		}
	}
	var comment *string // the rating's own copy; blank counts as none
	if in.Comment != nil && strings.TrimSpace(*in.Comment) != "" {
		c := *in.Comment
		comment = &c
	}
	in.Comment = comment
	if err := field.Check(in); err != nil {
		return Satisfaction{}, fmt.Errorf("support: rate ticket %s: %w", ticketID, err)
	}
	if !id.Valid(id.Ticket, ticketID) {
		return Satisfaction{}, fmt.Errorf("support: rate ticket %q: %w", ticketID, ErrNotFound)
	}
	var out Satisfaction
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		t, err := s.store.UpdateTicket(ctx, tenantID, ticketID, func(t *Ticket) error {
			return s.rate(ctx, t, by, in.Score, in.Comment, &out)
		})
		if err != nil {
			return err
		}
		return s.record(ctx, tenantID, event.TicketRated, ticketID, t)
	})
	if err != nil {
		return Satisfaction{}, fmt.Errorf("support: rate ticket %s: %w", ticketID, err)
	}
	return out, nil
}

// rate sets the rating of the locked ticket t into *out, or says why not.
func (s *Service) rate(ctx context.Context, t *Ticket, by Rater, score int, comment *string, out *Satisfaction) error {
	if t.Requester.ID != by.UserID && !mayRateAny(by.Role) {
		return ErrForbidden
	}
	if t.Satisfaction != nil {
		return statusConflict(t.Status, "ticket is rated already; a ticket takes one rating")
	}
	if t.Status != StatusSolved {
		return statusConflict(t.Status, "only a solved ticket can be rated; this one is %s", t.Status)
	}
	now := s.clock(ctx)
	*out = Satisfaction{Score: score, Comment: comment, RatedBy: by.UserID, RatedAt: now}
	rating := *out
	t.Satisfaction = &rating
	t.UpdatedAt = now
	return nil
}
