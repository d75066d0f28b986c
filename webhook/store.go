package webhook

import "context"

// Store is the inbox Service records events in. Implementations must be
// safe for concurrent use, run on the transaction carried by ctx when there
// is one (so that recording an event and its effect commit or roll back as
// one), and translate driver errors: ErrNotFound as named below, anything
// else wrapped in database.ErrUnavailable; raw driver errors never leave a
// Store. webhooktest.Run checks all of it.
//
// The inbox is keyed by the provider's event id alone, not by tenant: the
// tenant is only known once the event's invoice has been looked up, and
// some events name no invoice at all.
type Store interface {
	// Insert records r unless an event with r.ID is recorded already, and
	// reports whether it did. It must be atomic under any concurrency, and
	// a concurrent Insert of the same id must wait for the transaction of
	// the first to end rather than answer early: false only once that
	// transaction has committed, true if it rolled back. Service inserts
	// each event once, with its outcome, after its effect.
	Insert(ctx context.Context, r Record) (inserted bool, err error)
	// Event returns the event with id. ErrNotFound when there is none.
	Event(ctx context.Context, id string) (Record, error)
}
