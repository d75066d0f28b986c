package contract

import (
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// ChangeType is what a contract change request changes.
type ChangeType string

// The change types.
const (
	// ChangePlan moves the tenant to another plan (PlanID).
	ChangePlan ChangeType = "change_plan"
	// AddModule buys a module the plan sells as an add-on (ModuleID).
	AddModule ChangeType = "add_module"
	// RemoveModule gives up a contracted add-on (ModuleID).
	RemoveModule ChangeType = "remove_module"
	// ChangeSeats changes the number of seats (Seats).
	ChangeSeats ChangeType = "change_seats"
)

// Valid reports whether t is one of the change types.
func (t ChangeType) Valid() bool {
	switch t {
	case ChangePlan, AddModule, RemoveModule, ChangeSeats:
		return true
	}
	return false
}

// Effective says when an approved change takes effect.
type Effective string

// The effective values.
const (
	// EffectiveNextPeriod applies the change at the start of the billing
	// period that follows its approval.
	EffectiveNextPeriod Effective = "next_period"
	// EffectiveImmediately applies the change when it is approved; the
	// rest of the period is prorated (see ComputePreview).
	EffectiveImmediately Effective = "immediately"
)

// Valid reports whether e is one of the effective values.
func (e Effective) Valid() bool { return e == EffectiveNextPeriod || e == EffectiveImmediately }

// RequestStatus is where a contract change request is in its lifecycle.
type RequestStatus string

// The request statuses.
const (
	// RequestPending: submitted, awaiting the operator's decision.
	RequestPending RequestStatus = "pending"
	// RequestApproved: approved, to be applied at EffectiveAt.
	RequestApproved RequestStatus = "approved"
	// RequestApplied: the contract has changed.
	RequestApplied RequestStatus = "applied"
	// RequestRejected: refused by the operator, or not applicable any more
	// when it fell due; Reason says why.
	RequestRejected RequestStatus = "rejected"
	// RequestCancelled: withdrawn by the tenant before a decision.
	RequestCancelled RequestStatus = "cancelled"
)

// RequestStatuses lists every request status in lifecycle order.
func RequestStatuses() []RequestStatus {
	return []RequestStatus{RequestPending, RequestApproved, RequestApplied, RequestRejected, RequestCancelled}
}

// Valid reports whether s is one of RequestStatuses.
func (s RequestStatus) Valid() bool {
	switch s {
	case RequestPending, RequestApproved, RequestApplied, RequestRejected, RequestCancelled:
		return true
	}
	return false
}

// CanTransitionRequest reports whether a contract change request may move
// from one status to another (see the lifecycle above). applied, rejected
// and cancelled are final.
func CanTransitionRequest(from, to RequestStatus) bool {
	switch from {
	case RequestPending:
		return to == RequestApproved || to == RequestRejected || to == RequestCancelled
	case RequestApproved:
		return to == RequestApplied || to == RequestRejected
	}
	return false
}

// Request is a tenant's request to change its contract with the
// platform: its plan, its seats, or its paid add-on modules. The tenant
// submits it; the platform's operator approves or rejects it
// (Service.Approve and Service.Reject, or `server contract
// approve|reject`); an approved request is applied to the tenant's terms,
// which the entitlements follow.
//
// Lifecycle (CanTransitionRequest):
//
//	pending  → approved → applied
//	pending  → rejected | cancelled
//	approved → rejected            (it could no longer be applied when due)
//
// Approving an `immediately` request applies it in the same transaction,
// so it goes pending → approved → applied at once. Approving a
// `next_period` request schedules it for the start of the next billing
// period (EffectiveAt); Service.ApplyDue applies it then.
type Request struct {
	// ID is "ccr_" + a ULID; ids sort by creation time.
	ID string `json:"id"`
	// TenantID is the tenant that asked; implied by the request, never
	// serialised.
	TenantID string     `json:"-"`
	Type     ChangeType `json:"type"`
	// PlanID is the plan asked for (change_plan); nil otherwise.
	PlanID *string `json:"plan_id"`
	// ModuleID is the add-on module to add or remove; nil otherwise.
	ModuleID *string `json:"module_id"`
	// Seats is the number of seats asked for (change_seats); nil otherwise.
	Seats     *int      `json:"seats"`
	Effective Effective `json:"effective"`
	// Note is the tenant's free text for the operator.
	Note   string        `json:"note"`
	Status RequestStatus `json:"status"`
	// SubmittedBy is the id of the user who submitted the request.
	SubmittedBy string    `json:"submitted_by"`
	CreatedAt   time.Time `json:"created_at"`
	// DecidedAt is when it was approved, rejected or cancelled.
	DecidedAt *time.Time `json:"decided_at"`
	// EffectiveAt is when an approved request takes (or took) effect.
	EffectiveAt *time.Time `json:"effective_at"`
	// AppliedAt is when the contract was changed.
	AppliedAt *time.Time `json:"applied_at"`
	// Reason is the operator's explanation of the decision, or why a due
	// request could not be applied.
	Reason string `json:"reason"`
}

// Filter selects and pages a tenant's contract requests, newest first,
// keyset-paginated on the id.
type Filter struct {
	// Status keeps only requests in this status ("" for all): one of
	// RequestStatuses.
	Status string `json:"status" validate:"omitempty,oneof=pending approved applied rejected cancelled"`
	// Limit is the page size: 1..MaxListLimit, DefaultListLimit when 0.
	Limit int
	// Before is the id of the last request of the previous page.
	Before string
}

// Page sizes of Service.Requests.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// ErrRequestNotFound: the contract request does not exist or belongs to
// another tenant. It also matches tenancy.ErrNotFound.
var ErrRequestNotFound error = &kindError{msg: "contract request not found", kind: tenancy.ErrNotFound}

// ErrCancelForbidden: the member may not cancel the contract request,
// which another member submitted. It also matches tenancy.ErrForbidden.
var ErrCancelForbidden error = &kindError{
	msg:  "only the member who submitted a contract request, or an owner or admin, may cancel it",
	kind: tenancy.ErrForbidden,
}

// kindError is an error worded for the client (a sentinel, or a sentence
// made for the case) that also matches a more general sentinel.
type kindError struct {
	msg  string
	kind error
}

// Error implements error.
func (e *kindError) Error() string { return e.msg }

// Detail is the sentence a client is shown: the message itself.
func (e *kindError) Detail() string { return e.msg }

// Is makes errors.Is match the general sentinel too.
func (e *kindError) Is(target error) bool { return target == e.kind }

// RequestTransitionError says that a contract request's status does not
// allow an operation, e.g. approving a rejected request. It matches
// tenancy.ErrConflict.
type RequestTransitionError struct {
	// RequestID is the request operated on.
	RequestID string
	// Status is the request's status at the time.
	Status RequestStatus
	// Action is what was refused: "approve", "reject", "cancel", "apply".
	Action string
}

// Error implements error: "contract request ccr_… is applied, cannot approve".
func (e *RequestTransitionError) Error() string {
	return fmt.Sprintf("contract request %s is %s, cannot %s", e.RequestID, e.Status, e.Action)
}

// Detail is the sentence a client is shown: "contract request is applied,
// cannot approve".
func (e *RequestTransitionError) Detail() string {
	return fmt.Sprintf("contract request is %s, cannot %s", e.Status, e.Action)
}

// Is makes errors.Is(err, tenancy.ErrConflict) true.
func (e *RequestTransitionError) Is(target error) bool { return target == tenancy.ErrConflict }
