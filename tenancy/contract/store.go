package contract

import (
	"context"
	"time"
)

// Store is the persistence of contracts: each tenant's terms and its
// change requests. Implementations must be safe for concurrent use, run on
// the transaction carried by ctx when there is one, confine every read and
// write to the tenant they are given (except the lookups that say
// otherwise), and translate driver errors into tenancy's sentinels
// named below. tenancytest.RunContracts checks all of it.
type Store interface {
	// LockTerms locks the tenant's row until the transaction in ctx ends
	// (SELECT … FOR UPDATE on Postgres; SQLite serialises writers anyway),
	// so that contract changes of one tenant run one at a time, and
	// returns its terms (plan, seats and add-ons, sorted; no period) and
	// how many members it has. tenancy.ErrNotFound when the tenant does
	// not exist.
	LockTerms(ctx context.Context, tenantID string) (t Terms, members int64, err error)
	// SetTerms writes t.PlanID and t.Seats to tenant t.TenantID and makes
	// t.AddOns its exact set of add-ons (those newly added are recorded at
	// at); the period is derived, never stored. It runs in one transaction
	// (a savepoint of the one in ctx). tenancy.ErrNotFound when the tenant
	// does not exist.
	SetTerms(ctx context.Context, t Terms, at time.Time) error
	// DeleteModuleToggles forgets the tenant's switches of modules, which
	// then take their default state again. Modules without a switch are
	// ignored. No error but a storage fault.
	DeleteModuleToggles(ctx context.Context, tenantID string, modules []string) error

	// CreateRequest inserts req, which carries its TenantID and is
	// pending. tenancy.ErrConflict when the tenant already has a pending
	// request of req.Type (or the id is taken) — also under concurrent
	// inserts — with nothing stored and the caller's transaction still
	// usable; tenancy.ErrNotFound when the tenant does not exist.
	CreateRequest(ctx context.Context, req Request) error
	// Request returns the tenant's request with id. tenancy.ErrNotFound
	// when the tenant has none (another tenant's request is not found
	// either).
	Request(ctx context.Context, tenantID, id string) (Request, error)
	// RequestForUpdate is Request, and also locks the request until the
	// transaction in ctx ends, so that decisions on one request run one at
	// a time. tenancy.ErrNotFound as Request.
	RequestForUpdate(ctx context.Context, tenantID, id string) (Request, error)
	// UpdateRequest writes Status, DecidedAt, EffectiveAt, AppliedAt and
	// Reason of the tenant's request req.ID, provided it is still in
	// status from. tenancy.ErrConflict when it is in another status;
	// tenancy.ErrNotFound when the tenant has no such request.
	UpdateRequest(ctx context.Context, req Request, from RequestStatus) error
	// ListRequests returns up to f.Limit (≥ 1) of the tenant's requests,
	// newest (highest id) first, with id < f.Before when set and status
	// f.Status when set; and whether more match beyond them. No error but
	// a storage fault.
	ListRequests(ctx context.Context, tenantID string, f Filter) (page []Request, hasMore bool, err error)
	// RequestTenant returns the tenant owning the request with id, for an
	// operator who knows only the id; it is not confined to a tenant.
	// tenancy.ErrNotFound when absent.
	RequestTenant(ctx context.Context, id string) (string, error)
	// AllRequests returns up to f.Limit (≥ 1) requests of every tenant,
	// or of f.TenantID when set, newest (highest id) first, with id <
	// f.Before when set and status f.Status when set; and whether more
	// match beyond them. It is not confined to a tenant: the platform's
	// operators call it. No error but a storage fault.
	AllRequests(ctx context.Context, f AllFilter) (page []Request, hasMore bool, err error)
	// DueRequests returns up to limit approved requests, of any tenant,
	// whose EffectiveAt is at or before now, earliest first (then by id).
	// It is not confined to a tenant: a scheduler calls it. No error but a
	// storage fault.
	DueRequests(ctx context.Context, now time.Time, limit int) ([]Request, error)
}
