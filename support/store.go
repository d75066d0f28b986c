package support

import "context"

// Store is the persistence Service needs. Every method is scoped to one
// tenant: a ticket of another tenant is ErrNotFound, exactly as if it did
// not exist. Implementations must be safe for concurrent use, join the
// transaction carried by ctx when there is one, return times in UTC and
// Tags never nil, and translate driver errors into the sentinels named
// below; raw driver errors never leave a Store. supporttest.Run checks all
// of it.
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
	// Priority, AssigneeID, Tags and UpdatedAt (the other fields never
	// change), returning the saved ticket. The ticket is locked from load
	// to save, so concurrent updates of one ticket run one after the other
	// and none is lost. When update returns an error nothing is saved and
	// that error is returned unwrapped. update must not call the Store.
	// ErrNotFound when the tenant has no such ticket.
	UpdateTicket(ctx context.Context, tenantID, id string, update func(*Ticket) error) (Ticket, error)
}
