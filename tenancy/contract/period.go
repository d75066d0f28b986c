package contract

import "time"

// Period is what a billing period has recorded besides the tenant's
// current terms: the terms it opened with and the proration lines of the
// changes made during it. An invoice charges the opening terms for the
// whole period and the prorations for what changed; the zero Period is a
// period without changes, which opened with the current terms.
type Period struct {
	// Start is the period's first instant.
	Start time.Time
	// Opening is the contract the period opened with; nil for the
	// current terms.
	Opening *Terms
	// Prorations are the proration lines of the changes made during the
	// period, in the order they were made.
	Prorations []PreviewLine
}

// opening returns the terms the period opened with, cur when it recorded
// none.
func (p Period) opening(cur Terms) Terms {
	if p.Opening != nil {
		return *p.Opening
	}
	return cur
}
