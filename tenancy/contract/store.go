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
	// DueRequests returns up to limit approved requests whose EffectiveAt
	// is at or before now, earliest first (then by id): of tenantID when
	// set, else of every tenant but test tenants (a scheduler's call, not
	// confined to a tenant). No error but a storage fault.
	DueRequests(ctx context.Context, tenantID string, now time.Time, limit int) ([]Request, error)
}

// Stores are the stores a Service keeps its data in; tenancy/bunstore's
// Store is all three.
type Stores struct {
	// Contracts keeps the terms and the change requests.
	Contracts Store
	// Periods keeps what each billing period recorded and each tenant's
	// billing marks and test clock.
	Periods PeriodStore
	// Invoices keeps the platform invoices.
	Invoices InvoiceStore
}

// PeriodStore is the persistence of each tenant's billing periods: its
// billed-through mark, the periods' records and a test tenant's clock.
// The same rules as Store's hold; the lookups a scheduler makes across
// tenants say so. tenancytest.RunBilling checks it.
type PeriodStore interface {
	// BilledThrough returns the start of the tenant's first period not yet
	// invoiced, and false when it has none yet (a tenant from before
	// billing). Called with the tenant's row locked (LockTerms).
	BilledThrough(ctx context.Context, tenantID string) (time.Time, bool, error)
	// SetBilledThrough moves the tenant's billed-through mark to t.
	SetBilledThrough(ctx context.Context, tenantID string, t time.Time) error
	// Period returns the record of the tenant's period starting at start;
	// a Period with Start only when nothing was recorded.
	Period(ctx context.Context, tenantID string, start time.Time) (Period, error)
	// SavePeriod writes the record p of the tenant's period p.Start,
	// replacing the one there was.
	SavePeriod(ctx context.Context, tenantID string, p Period) error
	// TenantsToBill returns up to limit tenants with an id above after,
	// not test tenants, whose billed-through mark is before before or
	// unset, by id. Across tenants: a scheduler calls it.
	TenantsToBill(ctx context.Context, before time.Time, after string, limit int) ([]string, error)
	// TestClock returns whether the tenant is a test tenant and its clock
	// (zero for real tenants). tenancy.ErrNotFound for an unknown tenant.
	TestClock(ctx context.Context, tenantID string) (test bool, clock time.Time, err error)
	// SetTestClock moves a test tenant's clock to t.
	SetTestClock(ctx context.Context, tenantID string, t time.Time) error
}

// InvoiceStore is the persistence of the platform invoices. The same rules
// as Store's hold; the lookups an operator, the payment provider or a
// scheduler makes across tenants say so. tenancytest.RunBilling checks it.
type InvoiceStore interface {
	// NextInvoiceNumber takes the next platform-wide invoice number on
	// the transaction in ctx: other callers wait until it ends, and a
	// rolled-back transaction gives its number back.
	NextInvoiceNumber(ctx context.Context) (int64, error)
	// CreateInvoice inserts inv. tenancy.ErrConflict when the tenant has
	// an invoice for inv.PeriodStart already: a database constraint
	// decides, whatever the number of replicas.
	CreateInvoice(ctx context.Context, inv Invoice) error
	// Invoice returns the tenant's invoice with id; ErrInvoiceNotFound
	// (another tenant's too). An empty tenantID finds it whichever
	// tenant's: an operator's lookup by id.
	Invoice(ctx context.Context, tenantID, id string) (Invoice, error)
	// InvoiceForUpdate returns the invoice with id, whichever tenant's,
	// locked until the transaction in ctx ends: an operator or the
	// payment provider knows the id alone. ErrInvoiceNotFound.
	InvoiceForUpdate(ctx context.Context, id string) (Invoice, error)
	// UpdateInvoice writes Status, AmountPaid, Reference, PaidAt and
	// VoidedAt of inv, provided it is still in status from;
	// tenancy.ErrConflict otherwise.
	UpdateInvoice(ctx context.Context, inv Invoice, from InvoiceStatus) error
	// Invoices returns up to f.Limit (≥ 1) invoices, newest (highest id)
	// first, of f.TenantID when set and otherwise of every tenant (an
	// operator's list), filtered as f says; and whether more match.
	Invoices(ctx context.Context, f InvoiceFilter) ([]Invoice, bool, error)
	// OverdueInvoices returns up to limit open invoices due before now
	// and not yet marked overdue: of tenantID when set, else of every
	// tenant but test tenants.
	OverdueInvoices(ctx context.Context, tenantID string, now time.Time, limit int) ([]Invoice, error)
	// MarkOverdue marks the tenant's invoice overdue at at, and reports
	// whether this call did (false: it was already, or is no longer open).
	MarkOverdue(ctx context.Context, tenantID, id string, at time.Time) (bool, error)
	// PastDue reports whether the tenant has an open invoice due before
	// before.
	PastDue(ctx context.Context, tenantID string, before time.Time) (bool, error)
}
