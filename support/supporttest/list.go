package supporttest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/support"
)

// mustList returns one page of the tenant's tickets.
func mustList(tb testing.TB, s support.Store, tenantID string, f support.ListFilter) ([]support.Ticket, bool) {
	tb.Helper()
	ts, more, err := s.ListTickets(context.Background(), tenantID, f)
	if err != nil {
		tb.Fatalf("ListTickets(%s, %+v): %v", tenantID, f, err)
	}
	return ts, more
}

func testListEmpty(t *testing.T, e *env) {
	tenant := e.tenant(t)
	ts, more := mustList(t, e.store, tenant, support.ListFilter{Limit: 20})
	if len(ts) != 0 || more {
		t.Fatalf("ListTickets on a new tenant = %d tickets, more=%v; want 0, false", len(ts), more)
	}
}

// testListPages pages through 45 tickets 20 at a time: 20, 20, 5, newest
// first, each ticket exactly once.
func testListPages(t *testing.T, e *env) {
	tenant := e.tenant(t)
	var created []string
	for range 45 {
		created = append(created, mustCreate(t, e.store, tenant, newTicket(0)).ID)
	}
	slices.Reverse(created) // newest first

	var (
		seen   []string
		before string
	)
	wantPages := []struct {
		size int
		more bool
	}{{20, true}, {20, true}, {5, false}}
	for i, want := range wantPages {
		page, more := mustList(t, e.store, tenant, support.ListFilter{Limit: 20, Before: before})
		if len(page) != want.size || more != want.more {
			t.Fatalf("page %d: %d tickets, more=%v; want %d, %v", i+1, len(page), more, want.size, want.more)
		}
		seen = append(seen, ids(page)...)
		before = page[len(page)-1].ID
	}
	if !slices.Equal(seen, created) {
		t.Fatalf("pages hold\n%v\nwant every ticket once, newest first:\n%v", seen, created)
	}
}

// testListExactPage checks has-more at the boundary: a page that ends
// exactly at the last ticket has no more.
func testListExactPage(t *testing.T, e *env) {
	tenant := e.tenant(t)
	for range 3 {
		mustCreate(t, e.store, tenant, newTicket(0))
	}
	tests := []struct {
		limit    int
		wantLen  int
		wantMore bool
	}{{1, 1, true}, {2, 2, true}, {3, 3, false}, {4, 3, false}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("Limit%d", tt.limit), func(t *testing.T) {
			page, more := mustList(t, e.store, tenant, support.ListFilter{Limit: tt.limit})
			if len(page) != tt.wantLen || more != tt.wantMore {
				t.Fatalf("ListTickets(limit %d) = %d tickets, more=%v; want %d, %v", tt.limit, len(page), more, tt.wantLen, tt.wantMore)
			}
		})
	}
}

func testListFilters(t *testing.T, e *env) {
	tenant := e.tenant(t)
	statuses, priorities := support.Statuses(), support.Priorities()
	requesters := []string{"usr_alice", "usr_bob"}
	var all []support.Ticket // newest first
	for i := range 24 {
		tk := newTicket(0)
		tk.Status = statuses[i%len(statuses)]
		tk.Priority = priorities[i%len(priorities)]
		tk.Requester.ID = requesters[i%len(requesters)]
		all = append([]support.Ticket{mustCreate(t, e.store, tenant, tk)}, all...)
	}
	middle := all[len(all)/2].ID

	tests := []struct {
		name string
		f    support.ListFilter
		keep func(support.Ticket) bool
	}{
		{"None", support.ListFilter{}, func(support.Ticket) bool { return true }},
		{"StatusOpen", support.ListFilter{Status: "open"}, func(tk support.Ticket) bool { return tk.Status == support.StatusOpen }},
		{"StatusOnHold", support.ListFilter{Status: "on_hold"}, func(tk support.Ticket) bool { return tk.Status == support.StatusOnHold }},
		{"PriorityUrgent", support.ListFilter{Priority: "urgent"}, func(tk support.Ticket) bool { return tk.Priority == support.PriorityUrgent }},
		{"Requester", support.ListFilter{RequesterID: "usr_bob"}, func(tk support.Ticket) bool { return tk.Requester.ID == "usr_bob" }},
		{"StatusAndPriority", support.ListFilter{Status: "solved", Priority: "high"}, func(tk support.Ticket) bool {
			return tk.Status == support.StatusSolved && tk.Priority == support.PriorityHigh
		}},
		{"All3", support.ListFilter{Status: "pending", Priority: "normal", RequesterID: "usr_alice"}, func(tk support.Ticket) bool {
			return tk.Status == support.StatusPending && tk.Priority == support.PriorityNormal && tk.Requester.ID == "usr_alice"
		}},
		{"NoMatch", support.ListFilter{RequesterID: "usr_nobody"}, func(support.Ticket) bool { return false }},
		{"BeforeAndPriority", support.ListFilter{Priority: "low", Before: middle}, func(tk support.Ticket) bool {
			return tk.Priority == support.PriorityLow && tk.ID < middle
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, tk := range all {
				if tt.keep(tk) {
					want = append(want, tk.ID)
				}
			}
			tt.f.Limit = 100
			page, more := mustList(t, e.store, tenant, tt.f)
			if got := ids(page); !slices.Equal(got, want) || more {
				t.Fatalf("ListTickets(%+v) = %v (more=%v)\nwant %v (more=false)", tt.f, got, more, want)
			}
			for _, tk := range page {
				if tk.Tags == nil {
					t.Fatalf("ticket %s: Tags = nil, want a non-nil slice", tk.ID)
				}
			}
		})
	}
}
