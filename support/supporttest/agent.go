package supporttest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
)

// RunAgent runs the conformance suite of support.AgentStore, for a store
// that implements it beside support.Store (as the Bun store does): the
// lookups across tenants of the platform's help desk. h.NewStore's store
// must implement support.AgentStore. It may hold other data: the cases
// filter by the tenants they make, or look only at their newest tickets.
func RunAgent(t *testing.T, h Harness) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(t *testing.T, e *env, a support.AgentStore)
	}{
		{"TicketTenant", testTicketTenant},
		{"AllTicketsAcrossTenants", testAllTickets},
		{"AllTicketsFilters", testAllTicketsFilters},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := h.NewStore(t)
			a, ok := s.(support.AgentStore)
			if !ok {
				t.Fatalf("supporttest: %T does not implement support.AgentStore", s)
			}
			c.fn(t, &env{store: s, newTenant: h.NewTenant}, a)
		})
	}
}

func testTicketTenant(t *testing.T, e *env, a support.AgentStore) {
	ctx := context.Background()
	tenant := e.tenant(t)
	tk := mustCreate(t, e.store, tenant, newTicket(0))
	got, err := a.TicketTenant(ctx, tk.ID)
	if err != nil || got != tenant {
		t.Fatalf("TicketTenant(%s) = %q, %v; want %q", tk.ID, got, err, tenant)
	}
	if _, err := a.TicketTenant(ctx, id.New(id.Ticket)); !errors.Is(err, support.ErrNotFound) {
		t.Fatalf("TicketTenant(unknown) = %v, want ErrNotFound", err)
	}
}

// testAllTickets: the tickets of two tenants come in one order, newest
// first, each with its tenant; a tenant filter keeps one tenant's.
func testAllTickets(t *testing.T, e *env, a support.AgentStore) {
	ctx := context.Background()
	tenants := []string{e.tenant(t), e.tenant(t)}
	var all []support.TenantTicket // newest first
	for i := range 4 {
		tenant := tenants[i%2]
		tk := mustCreate(t, e.store, tenant, newTicket(0))
		all = slices.Insert(all, 0, support.TenantTicket{TenantID: tenant, Ticket: tk})
	}
	page, more, err := a.AllTickets(ctx, support.AgentFilter{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tenantTicketIDs(page), tenantTicketIDs(all[:3]); !slices.Equal(got, want) || !more {
		t.Fatalf("AllTickets(limit 3) = %v more=%v, want %v more=true", got, more, want)
	}
	for i, tk := range page {
		if tk.TenantID != all[i].TenantID {
			t.Fatalf("ticket %s: tenant %q, want %q", tk.ID, tk.TenantID, all[i].TenantID)
		}
	}
	page, _, err = a.AllTickets(ctx, support.AgentFilter{Limit: 100, Before: all[2].ID, TenantID: tenants[0]})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tenantTicketIDs(page), tenantTicketIDs(all[3:]); !slices.Equal(got, want) {
		t.Fatalf("AllTickets(tenant, before) = %v, want %v", got, want)
	}
}

// testAllTicketsFilters: status, priority and assignee keep what they
// name, within one tenant.
func testAllTicketsFilters(t *testing.T, e *env, a support.AgentStore) {
	ctx := context.Background()
	tenant := e.tenant(t)
	agent := "agent-7"
	var all []support.Ticket // newest first
	for i := range 6 {
		tk := newTicket(0)
		tk.Status = support.Statuses()[i%3]
		tk.Priority = support.Priorities()[i%2]
		if i%2 == 0 {
			tk.AssigneeID = &agent
		}
		all = slices.Insert(all, 0, mustCreate(t, e.store, tenant, tk))
	}
	tests := []struct {
		name string
		f    support.AgentFilter
		keep func(support.Ticket) bool
	}{
		{"Tenant", support.AgentFilter{}, func(support.Ticket) bool { return true }},
		{"Status", support.AgentFilter{Status: string(support.Statuses()[1])},
			func(tk support.Ticket) bool { return tk.Status == support.Statuses()[1] }},
		{"Priority", support.AgentFilter{Priority: string(support.Priorities()[1])},
			func(tk support.Ticket) bool { return tk.Priority == support.Priorities()[1] }},
		{"Assignee", support.AgentFilter{AssigneeID: agent},
			func(tk support.Ticket) bool { return tk.AssigneeID != nil }},
		{"NoMatch", support.AgentFilter{AssigneeID: "nobody"}, func(support.Ticket) bool { return false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, tk := range all {
				if tt.keep(tk) {
					want = append(want, tk.ID)
				}
			}
			tt.f.TenantID, tt.f.Limit = tenant, 100
			page, more, err := a.AllTickets(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := tenantTicketIDs(page); !slices.Equal(got, want) || more {
				t.Fatalf("AllTickets(%+v) = %v more=%v, want %v", tt.f, got, more, want)
			}
		})
	}
}

func tenantTicketIDs(ts []support.TenantTicket) []string {
	var out []string
	for _, tk := range ts {
		out = append(out, tk.ID)
	}
	return out
}
