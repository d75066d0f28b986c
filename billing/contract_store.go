package billing

import (
	"context"
	"time"
)

// ContractStore is the persistence of contract change requests that the
// Service needs once WithContracts is given. Like Store, implementations
// must be safe for concurrent use, run on the transaction carried by ctx,
// confine every read and write to the tenant they are given (except the
// two lookups by id that say otherwise), and translate driver errors into
// the sentinels named below. billingtest.RunContracts checks all of it.
type ContractStore interface {
	// CreateContractRequest inserts req, which carries its TenantID and is
	// pending. ErrConflict when the tenant already has a pending request of
	// req.Type (or the id is taken) — also under concurrent inserts — with
	// nothing stored and the caller's transaction still usable; ErrNotFound
	// when the tenant does not exist.
	CreateContractRequest(ctx context.Context, req ContractRequest) error
	// ContractRequest returns the tenant's request with id. ErrNotFound when
	// the tenant has none (another tenant's request is not found either).
	ContractRequest(ctx context.Context, tenantID, id string) (ContractRequest, error)
	// ContractRequestForUpdate is ContractRequest, and also locks the
	// request until the transaction in ctx ends, so that decisions on one
	// request run one at a time. ErrNotFound as ContractRequest.
	ContractRequestForUpdate(ctx context.Context, tenantID, id string) (ContractRequest, error)
	// UpdateContractRequest writes Status, DecidedAt, EffectiveAt, AppliedAt
	// and Reason of the tenant's request req.ID, provided it is still in
	// status from. ErrConflict when it is in another status; ErrNotFound
	// when the tenant has no such request.
	UpdateContractRequest(ctx context.Context, req ContractRequest, from RequestStatus) error
	// ListContractRequests returns up to f.Limit (≥ 1) of the tenant's
	// requests, newest (highest id) first, with id < f.Before when set and
	// status f.Status when set; and whether more match beyond them.
	ListContractRequests(ctx context.Context, tenantID string, f ContractRequestFilter) (page []ContractRequest, hasMore bool, err error)
	// ContractRequestTenant returns the tenant owning the request with id,
	// for an operator who knows only the id; it is not confined to a
	// tenant. ErrNotFound when absent.
	ContractRequestTenant(ctx context.Context, id string) (string, error)
	// DueContractRequests returns up to limit approved requests, of any
	// tenant, whose EffectiveAt is at or before now, earliest first (then
	// by id). It is not confined to a tenant: a scheduler calls it.
	DueContractRequests(ctx context.Context, now time.Time, limit int) ([]ContractRequest, error)
}
