package contract

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/internal/text"
)

// MaxPreviewModules is the most modules a preview's hypothetical change
// may list.
const MaxPreviewModules = 50

// PreviewInput is the body of POST /api/invoices/preview: an optional
// hypothetical change of the tenant's contract. The zero value previews
// the current contract for the current period.
type PreviewInput struct {
	// PlanID, when set, is a plan to price instead of the current one.
	PlanID *string `json:"plan_id,omitempty" validate:"omitempty,min=1,max=100"`
	// Seats, when set, is a number of seats to price instead.
	Seats *int `json:"seats,omitempty" validate:"omitempty,min=1,max=100000"`
	// Modules, when present (even empty), is the whole set of add-on
	// modules to price instead of the contracted ones; modules the plan
	// includes are ignored.
	Modules []string `json:"modules,omitempty" validate:"omitempty,max=50,dive,min=1,max=100"`
	// Effective is when the change would take effect: next_period (the
	// default) or immediately (prorated). Given alone, next_period previews
	// the next period's invoice of the current contract.
	Effective string `json:"effective,omitempty" validate:"omitempty,oneof=next_period immediately"`
}

// Preview computes the tenant's next invoice from its terms and its usage
// so far, with the hypothetical change in applied (ComputePreview has the
// rules), at the service clock. It stores and changes nothing.
// *tenancy.InvalidError for a change the catalog or the contract's rules
// refuse; an error wrapping tenancy.ErrNotFound for an unknown tenant.
func (s *Service) Preview(ctx context.Context, tenantID string, in PreviewInput) (Preview, error) {
	change, err := previewChange(in)
	if err != nil {
		return Preview{}, fmt.Errorf("contract: preview: %w", err)
	}
	terms, usage, err := s.currentUsage(ctx, tenantID)
	if err != nil {
		return Preview{}, fmt.Errorf("contract: preview: %w", err)
	}
	return ComputePreview(s.catalog, terms, usage, change, s.now())
}

// previewChange checks in and returns the change it describes, nil for
// none.
func previewChange(in PreviewInput) (*PreviewChange, error) {
	f := fieldErrors{}
	if in.PlanID != nil {
		if msg := text.Check(*in.PlanID, 1, maxRefLen); msg != "" {
			f.add("plan_id", "%s", msg)
		}
	}
	if in.Seats != nil && (*in.Seats < 1 || *in.Seats > MaxSeats) {
		f.add("seats", "must be between 1 and %d", MaxSeats)
	}
	if len(in.Modules) > MaxPreviewModules {
		f.add("modules", "must list at most %d modules", MaxPreviewModules)
	}
	for i, m := range in.Modules {
		if msg := text.Check(m, 1, maxRefLen); msg != "" {
			f.add(fmt.Sprintf("modules[%d]", i), "%s", msg)
		}
	}
	if in.Effective != "" && !Effective(in.Effective).Valid() {
		f.add("effective", "must be one of: next_period, immediately")
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if in.PlanID == nil && in.Seats == nil && in.Modules == nil && in.Effective == "" {
		return nil, nil
	}
	ch := &PreviewChange{Seats: in.Seats, Modules: in.Modules, Effective: Effective(in.Effective)}
	if in.PlanID != nil {
		ch.PlanID = *in.PlanID
	}
	return ch, nil
}
