package support_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/support/supporttest"
)

// memStore is a Store in memory, for the service's unit tests. Running the
// conformance suite on it too shows that the suite asks nothing a store
// without SQL cannot do.
type memStore struct {
	mu      sync.Mutex
	numbers map[string]int64                     // tenant → last number
	tickets map[string]map[string]support.Ticket // tenant → id → ticket
}

var _ support.Store = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{numbers: map[string]int64{}, tickets: map[string]map[string]support.Ticket{}}
}

func (s *memStore) NextNumber(_ context.Context, tenantID string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.numbers[tenantID]++
	return s.numbers[tenantID], nil
}

func (s *memStore) CreateTicket(_ context.Context, tenantID string, t support.Ticket) error {
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

func (s *memStore) Ticket(_ context.Context, tenantID, id string) (support.Ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[tenantID][id]
	if !ok {
		return support.Ticket{}, support.ErrNotFound
	}
	return clone(t), nil
}

func (s *memStore) ListTickets(_ context.Context, tenantID string, f support.ListFilter) ([]support.Ticket, bool, error) {
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

func (s *memStore) UpdateTicket(_ context.Context, tenantID, id string, update func(*support.Ticket) error) (support.Ticket, error) {
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
	s.tickets[tenantID][id] = clone(t)
	return clone(t), nil
}

// clone copies t so that no caller shares the store's slices or pointers.
func clone(t support.Ticket) support.Ticket {
	t.Tags = append([]string{}, t.Tags...)
	if t.AssigneeID != nil {
		a := *t.AssigneeID
		t.AssigneeID = &a
	}
	return t
}

func TestMemStoreConformance(t *testing.T) {
	supporttest.Run(t, supporttest.Harness{
		NewStore: func(*testing.T) support.Store { return newMemStore() },
	})
}
