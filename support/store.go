package support

import (
	"context"
	"time"
)

// Store is the persistence Service needs. Every method but SLAOverdue is
// scoped to one tenant: a ticket of another tenant is ErrNotFound (or, for
// BreachSLA, not breached), exactly as if it did not exist.
// Implementations must be safe for concurrent use, join the transaction
// carried by ctx when there is one, return times in UTC and Tags never
// nil, and translate driver errors into the sentinels named below; raw
// driver errors never leave a Store. supporttest.Run checks all of it.
type Store interface {
	// NextNumber returns the tenant's next ticket number: 1 for its first
	// ticket, then one more on each call, never the same twice, under any
	// concurrency. Service calls it in the transaction that creates the
	// ticket, so that a failed creation gives its number back where the
	// store supports transactions.
	NextNumber(ctx context.Context, tenantID string) (int64, error)
	// CreateTicket inserts t for the tenant. ErrConflict when the tenant
	// already has a ticket with t's id or number. Stores that know tenants
	// may answer ErrNotFound for an unknown tenant.
	CreateTicket(ctx context.Context, tenantID string, t Ticket) error
	// Ticket returns the tenant's ticket with id. ErrNotFound when the
	// tenant has none.
	Ticket(ctx context.Context, tenantID, id string) (Ticket, error)
	// ListTickets returns up to f.Limit of the tenant's tickets matching
	// f, newest (greatest id) first, starting after f.Before when set
	// (ids less than it), and whether more follow. Empty filter fields
	// match everything; f.Limit is at least 1 (Service clamps it).
	ListTickets(ctx context.Context, tenantID string, f ListFilter) (tickets []Ticket, hasMore bool, err error)
	// UpdateTicket loads the tenant's ticket with id, calls update on it
	// and saves what update changed among Subject, Description, Status,
	// Priority, AssigneeID, Tags, UpdatedAt, FirstResponseDueAt,
	// ResolutionDueAt, FirstRespondedAt and Satisfaction (the other fields
	// never change: SLABreached only through BreachSLA), returning the
	// saved ticket. The ticket is locked from load to save, and until the
	// end of the transaction ctx carries, so concurrent updates of one
	// ticket run one after the other and none is lost. When update returns
	// an error nothing is saved and that error is returned unwrapped.
	// update must not call the Store. ErrNotFound when the tenant has no
	// such ticket.
	UpdateTicket(ctx context.Context, tenantID, id string, update func(*Ticket) error) (Ticket, error)

	// CreateComment adds c to the thread of the tenant's ticket
	// c.TicketID. ErrNotFound when the tenant has no such ticket,
	// ErrConflict when the tenant already has a comment with c's id.
	CreateComment(ctx context.Context, tenantID string, c Comment) error
	// Comments returns up to f.Limit comments of the tenant's ticket,
	// oldest (least id) first, starting after f.After when set (ids
	// greater than it), and whether more follow. None (not an error) when
	// the tenant has no such ticket; f.Limit is at least 1.
	Comments(ctx context.Context, tenantID, ticketID string, f CommentFilter) (comments []Comment, hasMore bool, err error)

	// SLAOverdue returns up to limit tickets, of any tenant, that have
	// missed a service level target by now and are not marked breached
	// yet: SLABreached false (not nil), status neither solved nor closed,
	// and FirstResponseDueAt at or before now with no FirstRespondedAt,
	// or ResolutionDueAt at or before now. They come in id order, after
	// the id after when it is set; of tenantID when set, and otherwise of
	// every tenant but test tenants (whose clocks run their checks): the
	// one call not confined to one tenant, the platform's scheduler's.
	SLAOverdue(ctx context.Context, tenantID string, now time.Time, after string, limit int) ([]TicketRef, error)
	// BreachSLA sets SLABreached on the tenant's ticket if, as it stands
	// when the write happens, SLAOverdue would list it for now, and
	// returns the ticket and true; else it changes nothing and returns
	// false (no error, also when there is no such ticket). Of concurrent
	// calls for one ticket at most one returns true, ever: the check and
	// the write are one conditional update.
	BreachSLA(ctx context.Context, tenantID, id string, now time.Time) (t Ticket, breached bool, err error)
}

// TicketRef names one ticket of one tenant.
type TicketRef struct {
	TenantID string
	ID       string
}
