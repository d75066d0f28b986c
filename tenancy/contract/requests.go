package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Submit records the tenant's request, submitted by the user userID, as
// pending. It is checked against the catalog and the
// tenant's current contract: an unknown plan or module, the plan the
// tenant is already on, a module the plan does not offer (or already
// includes, or that is not on the contract for a removal), seats below the
// tenant's members or above the plan's limit are a *tenancy.InvalidError
// on plan_id, module_id or seats; a malformed input one on its field. A
// second pending request of the same type is tenancy.ErrConflict, also
// when both are submitted at once. The caller checks that the user may
// submit (tenancy.PermContractsSubmit); the HTTP edge does.
func (s *Service) Submit(ctx context.Context, tenantID, userID string, in SubmitInput) (Request, error) {
	req, err := validateSubmit(in)
	if err != nil {
		return Request{}, fmt.Errorf("contract: submit request: %w", err)
	}
	cur, usage, err := s.currentUsage(ctx, tenantID)
	if err != nil {
		return Request{}, fmt.Errorf("contract: submit request: %w", err)
	}
	if err := checkRequest(s.catalog, cur, usage[catalog.FeatureSeats], req); err != nil {
		return Request{}, fmt.Errorf("contract: submit %s request: %w", req.Type, err)
	}
	req.ID, req.TenantID, req.Status = id.New(id.Contract), tenantID, RequestPending
	req.SubmittedBy, req.CreatedAt = userID, s.clock(ctx)
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.CreateRequest(ctx, req); err != nil {
			return err
		}
		return s.record(ctx, event.ContractRequestSubmitted, req)
	})
	if errors.Is(err, tenancy.ErrConflict) {
		return Request{}, fmt.Errorf("contract: submit %s request: %w", req.Type,
			&kindError{msg: fmt.Sprintf("another %s request is pending; wait for its decision", req.Type), kind: tenancy.ErrConflict})
	}
	if err != nil {
		return Request{}, fmt.Errorf("contract: submit %s request: %w", req.Type, err)
	}
	return req, nil
}

// Request returns the tenant's request with id. ErrRequestNotFound
// (matching tenancy.ErrNotFound) when the tenant has none, whoever else
// might.
func (s *Service) Request(ctx context.Context, tenantID, requestID string) (Request, error) {
	if !id.Valid(id.Contract, requestID) {
		return Request{}, fmt.Errorf("contract: request %q: %w", requestID, ErrRequestNotFound)
	}
	req, err := s.store.Request(ctx, tenantID, requestID)
	if err != nil {
		return Request{}, fmt.Errorf("contract: request %s: %w", requestID, notFound(err))
	}
	return req, nil
}

// Requests returns a page of the tenant's requests, newest first, and
// whether there are more (continue with f.Before set to the last id).
// f.Limit is clamped to 1..MaxListLimit (0 means DefaultListLimit).
// *tenancy.InvalidError for an unknown status ("status") or a Before that
// is no request id ("cursor").
func (s *Service) Requests(ctx context.Context, tenantID string, f Filter) ([]Request, bool, error) {
	if err := checkFilter(f).Err(); err != nil {
		return nil, false, fmt.Errorf("contract: list requests: %w", err)
	}
	f.Limit = clampLimit(f.Limit)
	page, more, err := s.store.ListRequests(ctx, tenantID, f)
	if err != nil {
		return nil, false, fmt.Errorf("contract: list requests: %w", err)
	}
	return page, more, nil
}

// checkFilter checks a list's status (its tag) and position.
func checkFilter(f Filter) field.Errors {
	fe := field.Errors{}
	fe.Merge(field.Check(f))
	if f.Before != "" && !id.Valid(id.Contract, f.Before) {
		fe.Add("cursor", field.Invalid, "is not a contract request position")
	}
	return fe
}

// Approve is the operator's approval of a pending request,
// known by its id alone (the tenant is looked up). An `immediately`
// request is applied at once, in the same transaction: it ends applied,
// and a change the tenant's contract no longer allows is an
// *tenancy.InvalidError that leaves it pending (reject it then). A `next_period`
// request ends approved, effective at the start of the next billing
// period, when ApplyDue applies it. The tenant gets a
// contract_request.updated notification in the same transaction.
// *RequestTransitionError (tenancy.ErrConflict) unless the request is
// pending; ErrRequestNotFound for an unknown id.
func (s *Service) Approve(ctx context.Context, requestID, reason string) (Request, error) {
	return s.decide(ctx, requestID, reason, "approve", func(ctx context.Context, req *Request, now time.Time) error {
		req.Status, req.DecidedAt = RequestApproved, &now
		if req.Effective == EffectiveImmediately {
			req.EffectiveAt = &now
			return s.apply(ctx, req, now)
		}
		_, _, end := tenancy.Period(now)
		req.EffectiveAt = &end
		return nil
	})
}

// Reject is the operator's refusal of a pending request, with an optional
// reason shown to the tenant. Nothing else changes; the tenant is
// notified. *RequestTransitionError (tenancy.ErrConflict) unless the
// request is pending; ErrRequestNotFound for an unknown id.
func (s *Service) Reject(ctx context.Context, requestID, reason string) (Request, error) {
	return s.decide(ctx, requestID, reason, "reject", func(_ context.Context, req *Request, now time.Time) error {
		req.Status, req.DecidedAt = RequestRejected, &now
		return nil
	})
}

// Cancel withdraws a pending request of the tenant by.TenantID on behalf
// of by, a member of it: the member who submitted the request may, and so
// may a member whose role holds tenancy.PermContractsManage (owners and
// admins); anyone else gets ErrCancelForbidden (matching
// tenancy.ErrForbidden), checked before the request's status. The
// caller checks that by may submit requests at all
// (tenancy.PermContractsSubmit); the HTTP edge does. The tenant is
// notified in the same transaction. *RequestTransitionError
// (tenancy.ErrConflict) unless the request is pending (an approved
// request is the operator's to undo), also when an operator decided it a
// moment before; ErrRequestNotFound when the tenant has no such request.
func (s *Service) Cancel(ctx context.Context, by tenancy.Membership, requestID string) (Request, error) {
	if !by.Role.Can(tenancy.PermContractsManage) {
		// The submitter never changes, so reading it before the
		// transaction that locks the request decides the same.
		req, err := s.Request(ctx, by.TenantID, requestID)
		if err != nil {
			return Request{}, fmt.Errorf("contract: cancel %s: %w", requestID, err)
		}
		if req.SubmittedBy != by.UserID {
			return Request{}, fmt.Errorf("contract: cancel %s by %s: %w", requestID, by.UserID, ErrCancelForbidden)
		}
	}
	req, err := s.transitionRequest(ctx, by.TenantID, requestID, "cancel", "", func(_ context.Context, req *Request, now time.Time) error {
		req.Status, req.DecidedAt = RequestCancelled, &now
		return nil
	})
	if err != nil {
		return Request{}, fmt.Errorf("contract: cancel %s: %w", requestID, err)
	}
	return req, nil
}

// ApplyDue applies every approved request whose effective time has come
// (the start of the period after its approval), as the operator (`server
// contract apply-due`) or a scheduler calls it at or after each period
// boundary; calling it more often is harmless. Each request is applied in
// its own transaction with its notification. A request the tenant's
// contract no longer allows (its plan changed meanwhile, members grew past
// the seats asked for) is rejected instead, with the reason, and the
// tenant is told. It returns the requests it decided, in order; on a
// storage failure, those decided before it and the error.
func (s *Service) ApplyDue(ctx context.Context) ([]Request, error) {
	return s.ApplyDueAt(ctx, s.clock(ctx))
}

// ApplyDueAt is ApplyDue at the time now rather than the service's clock:
// the requests effective at or before now are applied, at now. It is what
// a scheduler calls with the time of its tick.
//
// Test tenants are left to their clocks (AdvanceClock).
func (s *Service) ApplyDueAt(ctx context.Context, now time.Time) ([]Request, error) {
	return s.applyDueOf(ctx, "", now)
}

// applyDueOf applies the requests due at now of tenantID, or of every
// real tenant when it is empty.
func (s *Service) applyDueOf(ctx context.Context, tenantID string, now time.Time) ([]Request, error) {
	const batch = 100
	now = now.UTC().Truncate(time.Microsecond)
	var done []Request
	for {
		due, err := s.store.DueRequests(ctx, tenantID, now, batch)
		if err != nil {
			return done, fmt.Errorf("contract: apply due requests: %w", err)
		}
		for _, d := range due {
			req, err := s.applyDue(ctx, d, now)
			if errors.Is(err, tenancy.ErrConflict) {
				continue // another scheduler got there first
			}
			if err != nil {
				return done, fmt.Errorf("contract: apply due request %s: %w", d.ID, err)
			}
			done = append(done, req)
		}
		if len(due) < batch {
			return done, nil
		}
	}
}

// applyDue applies one due request, or rejects it when it cannot be.
func (s *Service) applyDue(ctx context.Context, due Request, now time.Time) (Request, error) {
	return s.transitionRequest(ctx, due.TenantID, due.ID, "apply", "", func(ctx context.Context, req *Request, _ time.Time) error {
		if req.Status != RequestApproved || req.EffectiveAt == nil || req.EffectiveAt.After(now) {
			return &RequestTransitionError{RequestID: req.ID, Status: req.Status, Action: "apply"}
		}
		err := s.tx.InTx(ctx, func(ctx context.Context) error { return s.apply(ctx, req, now) })
		if !errors.Is(err, tenancy.ErrInvalid) {
			return err
		}
		req.Status, req.AppliedAt = RequestRejected, nil
		req.Reason = field.Truncate("could not be applied: "+fieldMessages(err), MaxReasonLen)
		return nil
	})
}

// DecisionInput is what an operator gives with a decision besides the
// request: the body of POST /api/operator/contract-requests/{id}/reject,
// which must give a reason, and so checks the whole tag once the reason is
// trimmed. Approve and Reject take the reason alone and may be given none
// (the CLI's decisions without --reason); a reason they are given must
// meet the tag.
type DecisionInput struct {
	// Reason is shown to the tenant: 1..MaxReasonLen characters once
	// trimmed.
	Reason string `json:"reason" validate:"required,max=1000,text"`
}

// decide runs an operator's decision on the request with id, whatever its
// tenant.
func (s *Service) decide(ctx context.Context, requestID, reason, action string,
	change func(ctx context.Context, req *Request, now time.Time) error) (Request, error) {
	reason = strings.TrimSpace(reason)
	if reason != "" {
		if err := field.Check(DecisionInput{Reason: reason}); err != nil {
			return Request{}, fmt.Errorf("contract: %s %s: %w", action, requestID, err)
		}
	}
	tenantID, err := s.requestTenant(ctx, requestID)
	if err != nil {
		return Request{}, fmt.Errorf("contract: %s %s: %w", action, requestID, err)
	}
	req, err := s.transitionRequest(ctx, tenantID, requestID, action, reason, change)
	if err != nil {
		return Request{}, fmt.Errorf("contract: %s %s: %w", action, requestID, err)
	}
	return req, nil
}

// requestTenant finds the tenant of a request known by id alone.
func (s *Service) requestTenant(ctx context.Context, requestID string) (string, error) {
	if !id.Valid(id.Contract, requestID) {
		return "", ErrRequestNotFound
	}
	tenantID, err := s.store.RequestTenant(ctx, requestID)
	if err != nil {
		return "", notFound(err)
	}
	return tenantID, nil
}

// transitionRequest runs a read-modify-write of one pending request (or,
// for "apply", an approved one) in a transaction, holding its lock, and
// notifies the tenant of the new status in the same transaction. A
// non-empty reason replaces the request's.
func (s *Service) transitionRequest(ctx context.Context, tenantID, requestID, action, reason string,
	change func(ctx context.Context, req *Request, now time.Time) error) (Request, error) {
	if !id.Valid(id.Contract, requestID) {
		return Request{}, ErrRequestNotFound
	}
	var req Request
	ctx, err := s.withTenantClock(ctx, tenantID)
	if err != nil {
		return Request{}, err
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if req, err = s.store.RequestForUpdate(ctx, tenantID, requestID); err != nil {
			return notFound(err)
		}
		from := req.Status
		if action != "apply" && from != RequestPending {
			return &RequestTransitionError{RequestID: req.ID, Status: from, Action: action}
		}
		if reason != "" {
			req.Reason = reason
		}
		if err := change(ctx, &req, s.clock(ctx)); err != nil {
			return err
		}
		if err := s.store.UpdateRequest(ctx, req, from); err != nil {
			return err
		}
		if _, err = s.notes.Notify(ctx, tenantID, updatedNotification(s.catalog, req)); err != nil {
			return err
		}
		return s.recordTransition(ctx, action, req)
	})
	if err != nil {
		return Request{}, err
	}
	return req, nil
}

// apply changes the tenant's terms as the approved req asks and marks it
// applied. It runs on the transaction in ctx.
func (s *Service) apply(ctx context.Context, req *Request, now time.Time) error {
	cur, err := s.Current(ctx, req.TenantID)
	if err != nil {
		return err
	}
	switch {
	case req.Type == ChangePlan && *req.PlanID == cur.PlanID:
		return invalid("plan_id", "the organisation is already on plan %q", cur.PlanID)
	case req.Type == ChangeSeats && *req.Seats == cur.Seats:
		return invalid("seats", "the contract already has %d seats", cur.Seats)
	}
	// An immediate request is prorated in the current period; a
	// next_period one takes effect at the boundary.
	how := asBoundary
	if req.Effective == EffectiveImmediately {
		how = asProrated
	}
	if _, err := s.change(ctx, req.TenantID, changeOf(*req), how); err != nil {
		return renameFields(err, map[string]string{"modules": "module_id"})
	}
	req.Status, req.AppliedAt = RequestApplied, &now
	return nil
}

// notFound turns a store's tenancy.ErrNotFound into ErrRequestNotFound.
func notFound(err error) error {
	if errors.Is(err, tenancy.ErrNotFound) && !errors.Is(err, ErrRequestNotFound) {
		return ErrRequestNotFound
	}
	return err
}

// fieldMessages flattens a *tenancy.InvalidError's messages for a reason.
func fieldMessages(err error) string {
	var ie *field.InvalidError
	if !errors.As(err, &ie) {
		return err.Error()
	}
	var parts []string
	for _, fe := range ie.Errors() {
		parts = append(parts, fe.Field+" "+fe.Message)
	}
	return strings.Join(parts, "; ")
}

// clampLimit applies the list conventions: DefaultListLimit when unset,
// else 1..MaxListLimit.
func clampLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultListLimit
	case limit > MaxListLimit:
		return MaxListLimit
	}
	return limit
}
