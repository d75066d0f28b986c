package contract

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// Step is a scheduled step that a test clock runs for its tenant on the
// way: dunning, SLA checks (WithClockSteps). It does what is due for
// tenantID at now and returns how many things it did. The billing run and
// the contract changes are the contract service's own steps.
type Step func(ctx context.Context, tenantID string, now time.Time) (int, error)

// WithClockSteps adds the steps of other domains that advancing a test
// clock runs for its tenant at each stop, in order (tenantkit.New passes
// the collections schedule and the SLA check).
func WithClockSteps(steps ...Step) Option {
	return func(s *Service) { s.steps = append(s.steps, steps...) }
}

// ClockInput is the body of POST /api/operator/tenants/{id}/clock.
type ClockInput struct {
	// AdvanceTo is the new time of the test tenant's clock, after its
	// current time.
	AdvanceTo time.Time `json:"advance_to" validate:"required"`
}

// ErrNotTestTenant refuses to move a real tenant's clock: real tenants
// live on the wall clock.
var ErrNotTestTenant = invalid("tenant", "only a test tenant's clock moves; this tenant is real")

// AdvanceClock moves the test tenant's clock forward to in.AdvanceTo and,
// before it returns, runs every step that falls due for the tenant on the
// way, in time order: at each period boundary passed, the period's
// invoice and the contract changes effective then; at each due date
// passed, the overdue mark; and at each stop the steps of WithClockSteps
// (dunning, SLA).
// The tenant's row lock is held throughout, so that two advances of one
// clock run one after the other. It returns the new time.
//
// *tenancy.InvalidError on advance_to for a time not after the clock's
// (clocks only move forward), and on tenant for a real tenant.
func (s *Service) AdvanceClock(ctx context.Context, tenantID string, in ClockInput) (time.Time, error) {
	if err := checkClock(in); err != nil {
		return time.Time{}, fmt.Errorf("contract: advance clock of %s: %w", tenantID, err)
	}
	to := in.AdvanceTo.UTC().Truncate(time.Microsecond)
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		if _, _, err := s.store.LockTerms(ctx, tenantID); err != nil {
			return err
		}
		test, from, err := s.periods.TestClock(ctx, tenantID)
		switch {
		case err != nil:
			return err
		case !test:
			return ErrNotTestTenant
		case !to.After(from):
			return invalid("advance_to", "must be after the clock's time, %s: a test clock only moves forward", from.Format(time.RFC3339))
		}
		for _, at := range stops(from, to) {
			if err := s.runAt(tenancy.WithTestClock(ctx, at), tenantID, at); err != nil {
				return err
			}
		}
		return s.periods.SetTestClock(ctx, tenantID, to)
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("contract: advance clock of %s: %w", tenantID, err)
	}
	return to, nil
}

// checkClock refuses a body without advance_to, saying what it wants.
func checkClock(in ClockInput) error {
	if in.AdvanceTo.IsZero() {
		return invalid("advance_to", "is required: an RFC 3339 time after the clock's")
	}
	return nil
}

// stops are the instants a clock moving from from to to stops at: each
// period boundary after from, up to to, and to itself.
func stops(from, to time.Time) []time.Time {
	var out []time.Time
	_, _, end := tenancy.Period(from)
	for ; !end.After(to); end = end.AddDate(0, 1, 0) {
		if end.Before(to) {
			out = append(out, end)
		}
	}
	return append(out, to)
}

// runAt runs what is due for the tenant at now: its periods' invoices,
// the contract changes effective by then, the overdue marks, then the
// other domains' steps.
func (s *Service) runAt(ctx context.Context, tenantID string, now time.Time) error {
	terms, members, err := s.store.LockTerms(ctx, tenantID)
	if err != nil {
		return err
	}
	if _, err := s.closePeriods(ctx, terms, members, now); err != nil {
		return err
	}
	if _, err := s.applyDueOf(ctx, tenantID, now); err != nil {
		return err
	}
	if _, err := s.markOverdue(ctx, tenantID, now); err != nil {
		return err
	}
	for _, step := range s.steps {
		if _, err := step(ctx, tenantID, now); err != nil {
			return err
		}
	}
	return nil
}
