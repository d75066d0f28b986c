package contract

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/field"
)

// PreviewInput is the body of POST /api/invoices/preview: an optional
// hypothetical change of the tenant's contract. The zero value previews
// the current contract for the current period. Its tags are the rules of
// each value; ComputePreview checks the change against the catalog and
// the contract's rules.
type PreviewInput struct {
	// PlanID, when set, is a plan to price instead of the current one.
	PlanID *string `json:"plan_id,omitempty" validate:"omitempty,min=1,max=100,line"`
	// Seats, when set, is a number of seats to price instead
	// (1..MaxSeats).
	Seats *int `json:"seats,omitempty" validate:"omitempty,min=1,max=100000"`
	// Modules, when present (even empty), is the whole set of add-on
	// modules to price instead of the contracted ones, at most 50; modules
	// the plan includes are ignored.
	Modules []string `json:"modules,omitempty" validate:"max=50,dive,min=1,max=100,line"`
	// Effective is when the change would take effect: next_period (the
	// default) or immediately (prorated). Given alone, next_period previews
	// the next period's invoice of the current contract. Present, it must
	// be one of the two: "" is refused like any other value.
	Effective *string `json:"effective,omitempty" validate:"omitempty,oneof=next_period immediately"`
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
	if err := field.Check(in); err != nil {
		return nil, err
	}
	if in.PlanID == nil && in.Seats == nil && in.Modules == nil && in.Effective == nil {
		return nil, nil
	}
	ch := &PreviewChange{Seats: in.Seats, Modules: in.Modules}
	if in.Effective != nil {
		ch.Effective = Effective(*in.Effective)
	}
	if in.PlanID != nil {
		ch.PlanID = *in.PlanID
	}
	return ch, nil
}
