package billing

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Tenancy is what contract requests and invoice previews need of tenancy:
// the catalog, the tenant's contract and a way to change it, its usage,
// and notifications. *tenancy.Service implements it.
type Tenancy interface {
	// Catalog returns the catalog whose plans contracts are on.
	Catalog() *catalog.Catalog
	// Contract returns the tenant's current contract; an error wrapping
	// tenancy.ErrNotFound for an unknown tenant.
	Contract(ctx context.Context, tenantID string) (tenancy.Contract, error)
	// ApplyContractChange changes the contract on the transaction in ctx
	// (a savepoint of it); a *tenancy.InvalidError when the change breaks
	// the contract's rules.
	ApplyContractChange(ctx context.Context, tenantID string, ch tenancy.ContractChange) (tenancy.Contract, error)
	// ContractUsage returns the tenant's current contract with its usage
	// of every feature in the current period (members, for seats), in one
	// read; an error wrapping tenancy.ErrNotFound for an unknown tenant.
	ContractUsage(ctx context.Context, tenantID string) (tenancy.Contract, map[string]int64, error)
	// Notify creates a notification for the tenant on the transaction in
	// ctx.
	Notify(ctx context.Context, tenantID string, n tenancy.NewNotification) (tenancy.Notification, error)
}

// contracts is what WithContracts adds to a Service.
type contracts struct {
	store ContractStore
	ten   Tenancy
}

// WithContracts enables contract change requests and invoice previews:
// requests are kept in store, and checked against and applied to the
// contracts ten keeps (prices come from ten.Catalog()). The server passes
// the BunStore and the *tenancy.Service. Without it those methods return
// ErrContractsDisabled.
func WithContracts(store ContractStore, ten Tenancy) Option {
	return func(s *Service) { s.contracts = &contracts{store: store, ten: ten} }
}

// contractsOrErr returns the contract dependencies, or ErrContractsDisabled.
func (s *Service) contractsOrErr() (*contracts, error) {
	if s.contracts == nil {
		return nil, ErrContractsDisabled
	}
	return s.contracts, nil
}

// SubmitContractRequest records the tenant's request, submitted by the
// user userID, as pending. It is checked against the catalog and the
// tenant's current contract: an unknown plan or module, the plan the
// tenant is already on, a module the plan does not offer (or already
// includes, or that is not on the contract for a removal), seats below the
// tenant's members or above the plan's limit are an *InvalidError on
// plan_id, module_id or seats; a malformed input an *InvalidError on its
// field. A second pending request of the same type is ErrConflict, also
// when both are submitted at once. The caller checks that the user may
// submit (tenancy.PermContractsSubmit); the HTTP edge does.
func (s *Service) SubmitContractRequest(ctx context.Context, tenantID, userID string, in SubmitContractRequestInput) (ContractRequest, error) {
	c, err := s.contractsOrErr()
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: submit contract request: %w", err)
	}
	req, err := validateSubmit(in)
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: submit contract request: %w", err)
	}
	cur, usage, err := c.ten.ContractUsage(ctx, tenantID)
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: submit contract request: %w", err)
	}
	if err := checkRequest(c.ten.Catalog(), cur, usage[catalog.FeatureSeats], req); err != nil {
		return ContractRequest{}, fmt.Errorf("billing: submit %s request: %w", req.Type, err)
	}
	req.ID, req.TenantID, req.Status = id.New(id.Contract), tenantID, RequestPending
	req.SubmittedBy, req.CreatedAt = userID, s.clock()
	err = c.store.CreateContractRequest(ctx, req)
	if errors.Is(err, ErrConflict) {
		return ContractRequest{}, fmt.Errorf("billing: submit %s request: %w", req.Type,
			&kindError{msg: fmt.Sprintf("another %s request is pending; wait for its decision", req.Type), kind: ErrConflict})
	}
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: submit %s request: %w", req.Type, err)
	}
	return req, nil
}

// ContractRequest returns the tenant's request with id.
// ErrContractRequestNotFound (matching ErrNotFound) when the tenant has
// none, whoever else might.
func (s *Service) ContractRequest(ctx context.Context, tenantID, requestID string) (ContractRequest, error) {
	c, err := s.contractsOrErr()
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: contract request %s: %w", requestID, err)
	}
	if !id.Valid(id.Contract, requestID) {
		return ContractRequest{}, fmt.Errorf("billing: contract request %q: %w", requestID, ErrContractRequestNotFound)
	}
	req, err := c.store.ContractRequest(ctx, tenantID, requestID)
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: contract request %s: %w", requestID, notFound(err))
	}
	return req, nil
}

// ContractRequests returns a page of the tenant's requests, newest first,
// and whether there are more (continue with f.Before set to the last id).
// f.Limit is clamped to 1..MaxListLimit (0 means DefaultListLimit).
// *InvalidError for an unknown status ("status") or a Before that is no
// request id ("cursor").
func (s *Service) ContractRequests(ctx context.Context, tenantID string, f ContractRequestFilter) ([]ContractRequest, bool, error) {
	c, err := s.contractsOrErr()
	if err != nil {
		return nil, false, fmt.Errorf("billing: list contract requests: %w", err)
	}
	fe := fieldErrors{}
	if f.Status != "" && !RequestStatus(f.Status).Valid() {
		fe.add("status", "must be one of: pending, approved, applied, rejected, cancelled")
	}
	if f.Before != "" && !id.Valid(id.Contract, f.Before) {
		fe.add("cursor", "is not a contract request position")
	}
	if err := fe.err(); err != nil {
		return nil, false, fmt.Errorf("billing: list contract requests: %w", err)
	}
	f.Limit = clampLimit(f.Limit)
	page, more, err := c.store.ListContractRequests(ctx, tenantID, f)
	if err != nil {
		return nil, false, fmt.Errorf("billing: list contract requests: %w", err)
	}
	return page, more, nil
}

// ApproveContractRequest is the operator's approval of a pending request,
// known by its id alone (the tenant is looked up). An `immediately`
// request is applied at once, in the same transaction: it ends applied,
// and a change the tenant's contract no longer allows is an
// *InvalidError that leaves it pending (reject it then). A `next_period`
// request ends approved, effective at the start of the next billing
// period, when ApplyDue applies it. The tenant gets a
// contract_request.updated notification in the same transaction.
// *RequestTransitionError (ErrConflict) unless the request is pending;
// ErrContractRequestNotFound for an unknown id.
func (s *Service) ApproveContractRequest(ctx context.Context, requestID, reason string) (ContractRequest, error) {
	return s.decide(ctx, requestID, reason, "approve", func(ctx context.Context, c *contracts, req *ContractRequest, now time.Time) error {
		req.Status, req.DecidedAt = RequestApproved, &now
		if req.Effective == EffectiveImmediately {
			req.EffectiveAt = &now
			return s.apply(ctx, c, req, now)
		}
		_, _, end := tenancy.Period(now)
		req.EffectiveAt = &end
		return nil
	})
}

// RejectContractRequest is the operator's refusal of a pending request,
// with an optional reason shown to the tenant. Nothing else changes; the
// tenant is notified. *RequestTransitionError (ErrConflict) unless the
// request is pending; ErrContractRequestNotFound for an unknown id.
func (s *Service) RejectContractRequest(ctx context.Context, requestID, reason string) (ContractRequest, error) {
	return s.decide(ctx, requestID, reason, "reject", func(_ context.Context, _ *contracts, req *ContractRequest, now time.Time) error {
		req.Status, req.DecidedAt = RequestRejected, &now
		return nil
	})
}

// CancelContractRequest withdraws one of the tenant's pending requests;
// its members are notified. *RequestTransitionError (ErrConflict) unless
// it is pending (an approved request is the operator's to undo);
// ErrContractRequestNotFound when the tenant has no such request.
func (s *Service) CancelContractRequest(ctx context.Context, tenantID, requestID string) (ContractRequest, error) {
	c, err := s.contractsOrErr()
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: cancel %s: %w", requestID, err)
	}
	req, err := s.transitionRequest(ctx, c, tenantID, requestID, "cancel", "", func(_ context.Context, req *ContractRequest, now time.Time) error {
		req.Status, req.DecidedAt = RequestCancelled, &now
		return nil
	})
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: cancel %s: %w", requestID, err)
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
func (s *Service) ApplyDue(ctx context.Context) ([]ContractRequest, error) {
	c, err := s.contractsOrErr()
	if err != nil {
		return nil, fmt.Errorf("billing: apply due contract requests: %w", err)
	}
	const batch = 100
	now := s.clock()
	var done []ContractRequest
	for {
		due, err := c.store.DueContractRequests(ctx, now, batch)
		if err != nil {
			return done, fmt.Errorf("billing: apply due contract requests: %w", err)
		}
		for _, d := range due {
			req, err := s.applyDue(ctx, c, d, now)
			if errors.Is(err, ErrConflict) {
				continue // another scheduler got there first
			}
			if err != nil {
				return done, fmt.Errorf("billing: apply due contract request %s: %w", d.ID, err)
			}
			done = append(done, req)
		}
		if len(due) < batch {
			return done, nil
		}
	}
}

// applyDue applies one due request, or rejects it when it cannot be.
func (s *Service) applyDue(ctx context.Context, c *contracts, due ContractRequest, now time.Time) (ContractRequest, error) {
	return s.transitionRequest(ctx, c, due.TenantID, due.ID, "apply", "", func(ctx context.Context, req *ContractRequest, now time.Time) error {
		if req.Status != RequestApproved || req.EffectiveAt == nil || req.EffectiveAt.After(now) {
			return &RequestTransitionError{RequestID: req.ID, Status: req.Status, Action: "apply"}
		}
		err := s.tx(ctx, func(ctx context.Context) error { return s.apply(ctx, c, req, now) })
		if !errors.Is(err, ErrInvalid) {
			return err
		}
		req.Status, req.AppliedAt = RequestRejected, nil
		req.Reason = truncate("could not be applied: "+fieldMessages(err), MaxReasonLen)
		return nil
	})
}

// decide runs an operator's decision on the request with id, whatever its
// tenant.
func (s *Service) decide(ctx context.Context, requestID, reason, action string,
	change func(ctx context.Context, c *contracts, req *ContractRequest, now time.Time) error) (ContractRequest, error) {
	c, err := s.contractsOrErr()
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: %s %s: %w", action, requestID, err)
	}
	reason, msg := cleanText(reason, 0, MaxReasonLen)
	if msg != "" {
		return ContractRequest{}, fmt.Errorf("billing: %s %s: %w", action, requestID, invalid("reason", "%s", msg))
	}
	tenantID, err := s.requestTenant(ctx, c, requestID)
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: %s %s: %w", action, requestID, err)
	}
	req, err := s.transitionRequest(ctx, c, tenantID, requestID, action, reason, func(ctx context.Context, req *ContractRequest, now time.Time) error {
		return change(ctx, c, req, now)
	})
	if err != nil {
		return ContractRequest{}, fmt.Errorf("billing: %s %s: %w", action, requestID, err)
	}
	return req, nil
}

// requestTenant finds the tenant of a request known by id alone.
func (s *Service) requestTenant(ctx context.Context, c *contracts, requestID string) (string, error) {
	if !id.Valid(id.Contract, requestID) {
		return "", ErrContractRequestNotFound
	}
	tenantID, err := c.store.ContractRequestTenant(ctx, requestID)
	if err != nil {
		return "", notFound(err)
	}
	return tenantID, nil
}

// transitionRequest runs a read-modify-write of one pending request (or,
// for "apply", an approved one) in a transaction, holding its lock, and
// notifies the tenant of the new status in the same transaction. A
// non-empty reason replaces the request's.
func (s *Service) transitionRequest(ctx context.Context, c *contracts, tenantID, requestID, action, reason string,
	change func(ctx context.Context, req *ContractRequest, now time.Time) error) (ContractRequest, error) {
	if !id.Valid(id.Contract, requestID) {
		return ContractRequest{}, ErrContractRequestNotFound
	}
	var req ContractRequest
	err := s.tx(ctx, func(ctx context.Context) error {
		var err error
		if req, err = c.store.ContractRequestForUpdate(ctx, tenantID, requestID); err != nil {
			return notFound(err)
		}
		from := req.Status
		if action != "apply" && from != RequestPending {
			return &RequestTransitionError{RequestID: req.ID, Status: from, Action: action}
		}
		if reason != "" {
			req.Reason = reason
		}
		if err := change(ctx, &req, s.clock()); err != nil {
			return err
		}
		if err := c.store.UpdateContractRequest(ctx, req, from); err != nil {
			return err
		}
		_, err = c.ten.Notify(ctx, tenantID, updatedNotification(c.ten.Catalog(), req))
		return err
	})
	if err != nil {
		return ContractRequest{}, err
	}
	return req, nil
}

// apply changes the tenant's contract as the approved req asks and marks
// it applied. It runs on the transaction in ctx.
func (s *Service) apply(ctx context.Context, c *contracts, req *ContractRequest, now time.Time) error {
	cur, err := c.ten.Contract(ctx, req.TenantID)
	if err != nil {
		return err
	}
	switch {
	case req.Type == ChangePlan && *req.PlanID == cur.PlanID:
		return invalid("plan_id", "the organisation is already on plan %q", cur.PlanID)
	case req.Type == ChangeSeats && *req.Seats == cur.Seats:
		return invalid("seats", "the contract already has %d seats", cur.Seats)
	}
	if _, err := c.ten.ApplyContractChange(ctx, req.TenantID, changeOf(*req)); err != nil {
		return fromTenancy(err, map[string]string{"modules": "module_id"})
	}
	req.Status, req.AppliedAt = RequestApplied, &now
	return nil
}

// notFound turns a store's ErrNotFound into ErrContractRequestNotFound.
func notFound(err error) error {
	if errors.Is(err, ErrNotFound) && !errors.Is(err, ErrContractRequestNotFound) {
		return ErrContractRequestNotFound
	}
	return err
}

// fieldMessages flattens an *InvalidError's messages for a reason.
func fieldMessages(err error) string {
	var ie *InvalidError
	if !errors.As(err, &ie) {
		return err.Error()
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(ie.Fields)) {
		parts = append(parts, k+" "+ie.Fields[k])
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
