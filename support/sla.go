package support

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Target is the service level a ticket of one priority is promised with
// module support.sla: a first reply from the platform team within
// FirstResponse of its creation, and a solution within Resolution.
// Durations are calendar time: business hours, holidays and time spent
// pending or on hold are not taken out.
type Target struct {
	FirstResponse time.Duration
	Resolution    time.Duration
}

// targets is the service level table by priority. It is data, not code,
// so that it reads as the promise it is and the documentation can quote
// it. Never modified.
var targets = map[Priority]Target{
	PriorityUrgent: {FirstResponse: 1 * time.Hour, Resolution: 8 * time.Hour},
	PriorityHigh:   {FirstResponse: 4 * time.Hour, Resolution: 24 * time.Hour},
	PriorityNormal: {FirstResponse: 8 * time.Hour, Resolution: 72 * time.Hour},
	PriorityLow:    {FirstResponse: 24 * time.Hour, Resolution: 120 * time.Hour},
}

// Targets returns the service level of a ticket of priority p, the zero
// Target for an unknown priority.
func Targets(p Priority) Target { return targets[p] }

// setTargets sets t's due times from its creation time and priority.
func setTargets(t *Ticket) {
	tg := Targets(t.Priority)
	response, resolution := t.CreatedAt.Add(tg.FirstResponse), t.CreatedAt.Add(tg.Resolution)
	t.FirstResponseDueAt, t.ResolutionDueAt = &response, &resolution
}

// NotificationSLABreached is the type of the notification a tenant gets
// when one of its tickets misses a service level target.
const NotificationSLABreached = "ticket.sla_breached"

// The targets a ticket can miss, as NotificationSLABreached's data names
// them ("target").
const (
	BreachFirstResponse = "first_response"
	BreachResolution    = "resolution"
)

// slaBatch is how many overdue tickets CheckSLA reads at a time.
const slaBatch = 100

// CheckSLA marks every ticket that has missed a service level target by
// now as breached, tells its tenant with one NotificationSLABreached
// notification and records ticket.sla_breached (by the system) in the
// same transaction, and returns how many it marked.
// A ticket misses a target when it is neither solved nor closed and its
// first-response due time passed before any agent replied, or its
// resolution due time passed. Each ticket is marked and notified at most
// once, ever, however many callers run CheckSLA at the same time (the
// scheduler runs it on every replica): the mark is a conditional update
// that only one of them wins. Tickets without targets are never checked,
// nor are those of a tenant whose support.sla module is off at the time
// (they are checked again once it is back on).
//
// It works across every tenant, for the platform's scheduler. A failure
// on one ticket does not stop the others; the failures come back joined,
// with the count of those marked.
func (s *Service) CheckSLA(ctx context.Context, now time.Time) (int, error) {
	return s.checkSLA(ctx, "", now)
}

// CheckSLAFor is CheckSLA for one tenant's tickets: what advancing a test
// tenant's clock runs at each stop (CheckSLA leaves test tenants out).
func (s *Service) CheckSLAFor(ctx context.Context, tenantID string, now time.Time) (int, error) {
	return s.checkSLA(ctx, tenantID, now)
}

// checkSLA is CheckSLA over tenantID's tickets, or every real tenant's
// when empty.
func (s *Service) checkSLA(ctx context.Context, tenantID string, now time.Time) (int, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var (
		marked int
		errs   []error
		after  string
		on     = map[string]bool{} // tenant → support.sla on, read once per run
	)
	for {
		due, err := s.store.SLAOverdue(ctx, tenantID, now, after, slaBatch)
		if err != nil {
			return marked, errors.Join(append(errs, fmt.Errorf("support: check SLA: %w", err))...)
		}
		for _, ref := range due {
			enabled, known := on[ref.TenantID]
			if !known {
				enabled, err = s.moduleOn(ctx, ref.TenantID, catalog.ModuleSLA)
				if errors.Is(err, tenancy.ErrNotFound) {
					enabled, err = false, nil
				}
				if err != nil {
					errs = append(errs, fmt.Errorf("support: check SLA of tenant %s: %w", ref.TenantID, err))
					continue
				}
				on[ref.TenantID] = enabled
			}
			if !enabled {
				continue
			}
			won, err := s.breach(ctx, ref, now)
			if err != nil {
				errs = append(errs, fmt.Errorf("support: check SLA of ticket %s: %w", ref.ID, err))
				continue
			}
			if won {
				marked++
			}
		}
		if len(due) < slaBatch {
			return marked, errors.Join(errs...)
		}
		after = due[len(due)-1].ID
	}
}

// breach marks one ticket breached and notifies its tenant, in one
// transaction, and reports whether this call did it (false when another
// caller did, or the ticket met its targets meanwhile).
func (s *Service) breach(ctx context.Context, ref TicketRef, now time.Time) (bool, error) {
	var won bool
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		t, ok, err := s.store.BreachSLA(ctx, ref.TenantID, ref.ID, now)
		if err != nil || !ok {
			return err
		}
		if _, err := s.notes.Notify(ctx, ref.TenantID, breachNotification(t, now)); err != nil {
			return err
		}
		if err := s.record(ctx, ref.TenantID, event.TicketSLABreached, t.ID, t); err != nil {
			return err
		}
		won = true
		return nil
	})
	return won, err
}

// breachNotification tells the tenant which target t missed: the first
// response when no agent replied by its due time, else the resolution.
func breachNotification(t Ticket, now time.Time) tenancy.NewNotification {
	target, what, due := BreachResolution, "a solution", t.ResolutionDueAt
	if t.FirstRespondedAt == nil && t.FirstResponseDueAt != nil && !t.FirstResponseDueAt.After(now) {
		target, what, due = BreachFirstResponse, "a first response", t.FirstResponseDueAt
	}
	dueAt := ""
	if due != nil {
		dueAt = due.UTC().Format(time.RFC3339)
	}
	return tenancy.NewNotification{
		Type:  NotificationSLABreached,
		Title: fmt.Sprintf("Ticket #%d missed its service level", t.Number),
		Body: fmt.Sprintf("Ticket #%d (%s priority) was due %s by %s and has not had it.",
			t.Number, t.Priority, what, dueAt),
		Data: map[string]any{
			"ticket_id": t.ID,
			"number":    t.Number,
			"priority":  string(t.Priority),
			"target":    target,
			"due_at":    dueAt,
		},
		Key: NotificationSLABreached + ":" + t.ID,
	}
}
