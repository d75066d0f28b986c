package supporttest

import (
	"errors"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/support"
)

// testIsolation checks that tenant B can neither see nor touch tenant A's
// tickets, by any path, and that A's tickets are unchanged by B's attempts.
func testIsolation(t *testing.T, e *env) {
	ctx := t.Context()
	a, b := e.tenant(t), e.tenant(t)
	var aTickets []support.Ticket
	for range 3 {
		aTickets = append(aTickets, mustCreate(t, e.store, a, newTicket(0)))
	}
	bTicket := newTicket(0)
	bTicket.Requester.ID = "usr_bea"
	bTicket = mustCreate(t, e.store, b, bTicket)
	target := aTickets[1]

	t.Run("Get", func(t *testing.T) {
		if _, err := e.store.Ticket(ctx, b, target.ID); !errors.Is(err, support.ErrNotFound) {
			t.Fatalf("tenant B reading A's ticket = %v, want ErrNotFound", err)
		}
	})
	t.Run("List", func(t *testing.T) {
		filters := []support.ListFilter{
			{Limit: 100},
			{Limit: 100, RequesterID: target.Requester.ID},
			{Limit: 100, Status: string(target.Status), Priority: string(target.Priority)},
			{Limit: 100, Before: "tkt_zzzzzzzzzzzzzzzzzzzzzzzzzz"},
		}
		for _, f := range filters {
			page, _ := mustList(t, e.store, b, f)
			for _, tk := range page {
				if tk.ID != bTicket.ID {
					t.Errorf("tenant B's list %+v holds %s, which is not B's", f, tk.ID)
				}
			}
		}
		page, _ := mustList(t, e.store, a, support.ListFilter{Limit: 100})
		if slices.Contains(ids(page), bTicket.ID) {
			t.Errorf("tenant A's list holds B's ticket %s", bTicket.ID)
		}
	})
	t.Run("Update", func(t *testing.T) {
		called := false
		_, err := e.store.UpdateTicket(ctx, b, target.ID, func(tk *support.Ticket) error {
			called = true
			tk.Status = support.StatusClosed
			return nil
		})
		if !errors.Is(err, support.ErrNotFound) {
			t.Errorf("tenant B updating A's ticket = %v, want ErrNotFound", err)
		}
		if called {
			t.Errorf("tenant B's update of A's ticket was called, want it never to see the ticket")
		}
		checkTicket(t, "A's ticket after B's attempts", mustGet(t, e.store, a, target.ID), target)
	})
	t.Run("Numbers", func(t *testing.T) {
		if bTicket.Number != 1 {
			t.Errorf("tenant B's first ticket is #%d, want #1 (numbers are per tenant)", bTicket.Number)
		}
	})
}
