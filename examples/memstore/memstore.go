// Package memstore is an example of a custom support.Store: tickets and
// their comments kept in memory, passing the same conformance suite as the Bun store. A host app
// would write one like it over its own storage; tenantkit's tests use it
// for the service's rules:
//
//	store := memstore.New()
//	svc := support.NewService(store, entitlements, notifier, store) // the store is its own Transactor
//
// Run the conformance suite against it with
//
//	go test ./examples/memstore
package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tenantkit/tenantkit/support"
)

// Store keeps tickets and their comments in memory, per tenant. It is
// safe for concurrent use.
type Store struct {
	mu       sync.Mutex
	numbers  map[string]int64                     // tenant → last number
	tickets  map[string]map[string]support.Ticket // tenant → id → ticket
	comments map[string][]support.Comment         // tenant → comments, in the order added
}

var (
	_ support.Store      = (*Store)(nil)
	_ support.Transactor = (*Store)(nil)
)

// New returns an empty Store.
func New() *Store {
	return &Store{numbers: map[string]int64{}, tickets: map[string]map[string]support.Ticket{},
		comments: map[string][]support.Comment{}}
}

// InTx implements support.Transactor by running fn directly: memory has
// no transactions to roll back. Each method of Store is atomic on its own,
// and a create can fail between taking a number and storing the ticket
// only on a conflicting id, so the service's atomicity is lost only there
// (a number is skipped). A store over storage that can fail halfway must
// give a Transactor that rolls back, such as tenantkit.NewTransactor.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context) error) error { return fn(ctx) }

// NextNumber implements support.Store.
func (s *Store) NextNumber(_ context.Context, tenantID string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.numbers[tenantID]++
	return s.numbers[tenantID], nil
}

// CreateTicket implements support.Store.
func (s *Store) CreateTicket(_ context.Context, tenantID string, t support.Ticket) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, old := range s.tickets[tenantID] {
		if old.ID == t.ID || old.Number == t.Number {
			return fmt.Errorf("ticket %s (#%d): %w", t.ID, t.Number, support.ErrConflict)
		}
	}
	if s.tickets[tenantID] == nil {
		s.tickets[tenantID] = map[string]support.Ticket{}
	}
	s.tickets[tenantID][t.ID] = clone(t)
	return nil
}

// Ticket implements support.Store.
func (s *Store) Ticket(_ context.Context, tenantID, id string) (support.Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[tenantID][id]
	if !ok {
		return support.Ticket{}, support.ErrNotFound
	}
	return clone(t), nil
}

// ListTickets implements support.Store.
func (s *Store) ListTickets(_ context.Context, tenantID string, f support.ListFilter) ([]support.Ticket, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []support.Ticket
	for _, t := range s.tickets[tenantID] {
		if (f.Status == "" || string(t.Status) == f.Status) &&
			(f.Priority == "" || string(t.Priority) == f.Priority) &&
			(f.RequesterID == "" || t.Requester.ID == f.RequesterID) &&
			(f.Before == "" || t.ID < f.Before) {
			out = append(out, clone(t))
		}
	}
	slices.SortFunc(out, func(a, b support.Ticket) int { return cmp.Compare(b.ID, a.ID) })
	limit := max(f.Limit, 1)
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// UpdateTicket implements support.Store.
func (s *Store) UpdateTicket(_ context.Context, tenantID, id string, update func(*support.Ticket) error) (support.Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.tickets[tenantID][id]
	if !ok {
		return support.Ticket{}, support.ErrNotFound
	}
	t := clone(old)
	if err := update(&t); err != nil {
		return support.Ticket{}, err
	}
	t.ID, t.Number, t.Requester, t.CreatedAt = old.ID, old.Number, old.Requester, old.CreatedAt
	t.SLABreached = old.SLABreached
	s.tickets[tenantID][id] = clone(t)
	return clone(t), nil
}

// CreateComment implements support.Store.
func (s *Store) CreateComment(_ context.Context, tenantID string, c support.Comment) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tickets[tenantID][c.TicketID]; !ok {
		return support.ErrNotFound
	}
	for _, old := range s.comments[tenantID] {
		if old.ID == c.ID {
			return fmt.Errorf("comment %s: %w", c.ID, support.ErrConflict)
		}
	}
	s.comments[tenantID] = append(s.comments[tenantID], c)
	return nil
}

// Comments implements support.Store.
func (s *Store) Comments(_ context.Context, tenantID, ticketID string, f support.CommentFilter) ([]support.Comment, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []support.Comment
	for _, c := range s.comments[tenantID] {
		if c.TicketID == ticketID && (f.After == "" || c.ID > f.After) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b support.Comment) int { return cmp.Compare(a.ID, b.ID) })
	limit := max(f.Limit, 1)
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// SLAOverdue implements support.Store.
// This store knows no test tenants: "" is every tenant.
func (s *Store) SLAOverdue(_ context.Context, only string, now time.Time, after string, limit int) ([]support.TicketRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []support.TicketRef
	for tenantID, ts := range s.tickets {
		if only != "" && tenantID != only {
			continue
		}
		for _, t := range ts {
			if overdue(t, now) && (after == "" || t.ID > after) {
				out = append(out, support.TicketRef{TenantID: tenantID, ID: t.ID})
			}
		}
	}
	slices.SortFunc(out, func(a, b support.TicketRef) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), max(limit, 1))], nil
}

// BreachSLA implements support.Store.
func (s *Store) BreachSLA(_ context.Context, tenantID, id string, now time.Time) (support.Ticket, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[tenantID][id]
	if !ok || !overdue(t, now) {
		return support.Ticket{}, false, nil
	}
	breached := true
	t.SLABreached = &breached
	s.tickets[tenantID][id] = t
	return clone(t), true, nil
}

// overdue is the condition of support.Store.SLAOverdue.
func overdue(t support.Ticket, now time.Time) bool {
	if t.SLABreached == nil || *t.SLABreached || t.Status == support.StatusSolved || t.Status == support.StatusClosed {
		return false
	}
	return (t.FirstRespondedAt == nil && t.FirstResponseDueAt != nil && !t.FirstResponseDueAt.After(now)) ||
		(t.ResolutionDueAt != nil && !t.ResolutionDueAt.After(now))
}

// clone copies t so that no caller shares the store's slices or pointers.
func clone(t support.Ticket) support.Ticket {
	t.Tags = append([]string{}, t.Tags...)
	t.AssigneeID = copyPtr(t.AssigneeID)
	t.FirstResponseDueAt = copyPtr(t.FirstResponseDueAt)
	t.ResolutionDueAt = copyPtr(t.ResolutionDueAt)
	t.FirstRespondedAt = copyPtr(t.FirstRespondedAt)
	t.SLABreached = copyPtr(t.SLABreached)
	if t.Satisfaction != nil {
		sat := *t.Satisfaction
		sat.Comment = copyPtr(sat.Comment)
		t.Satisfaction = &sat
	}
	return t
}

// copyPtr returns a pointer to a copy of *p, nil for nil.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
