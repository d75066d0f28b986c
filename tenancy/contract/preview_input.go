package contract

import (
	"context"
	"fmt"
	"slices"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/tenancy"
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
	now := s.clock(ctx)
	_, start, _ := tenancy.Period(now)
	period, err := s.periods.Period(ctx, tenantID, start)
	if err != nil {
		return Preview{}, fmt.Errorf("contract: preview: %w", err)
	}
	if change != nil && change.Effective != EffectiveImmediately {
		// The next period opens with the approved changes applied.
		if terms, err = s.withApproved(ctx, terms, usage[catalog.FeatureSeats]); err != nil {
			return Preview{}, fmt.Errorf("contract: preview: %w", err)
		}
	}
	return ComputePreview(s.catalog, terms, period, usage, change, now)
}

// withApproved returns terms with the tenant's approved requests, those
// that take effect at the next period, applied oldest first; a request
// the terms no longer allow is left out, as applying it would reject it.
func (s *Service) withApproved(ctx context.Context, terms Terms, members int64) (Terms, error) {
	approved, _, err := s.store.ListRequests(ctx, terms.TenantID, Filter{Status: string(RequestApproved), Limit: MaxListLimit})
	if err != nil {
		return Terms{}, err
	}
	slices.Reverse(approved) // oldest first
	for _, req := range approved {
		if next, err := terms.With(s.catalog, changeOf(req), members); err == nil {
			terms = next
		}
	}
	return terms, nil
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
