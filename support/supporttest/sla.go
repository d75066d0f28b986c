package supporttest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
)

// slaNow is the instant the SLA cases check at: ten hours after the
// suite's tickets are created.
func slaNow() time.Time { return baseTime().Add(10 * time.Hour) }

// overdueOf returns the ids SLAOverdue lists for now of the given tenant,
// paging with limit, in the order listed. Other tenants' tickets (the
// store may hold data of its own) are skipped but must keep the order.
func overdueOf(tb testing.TB, s support.Store, tenantID string, now time.Time, limit int) []string {
	tb.Helper()
	var (
		out   []string
		after string
	)
	for range 10000 {
		refs, err := s.SLAOverdue(context.Background(), "", now, after, limit)
		if err != nil {
			tb.Fatalf("SLAOverdue(%v, %q, %d): %v", now, after, limit, err)
		}
		if len(refs) > limit {
			tb.Fatalf("SLAOverdue(limit %d) returned %d tickets", limit, len(refs))
		}
		for _, r := range refs {
			if r.ID <= after {
				tb.Fatalf("SLAOverdue after %s returned %s, not in id order", after, r.ID)
			}
			after = r.ID
			if r.TenantID == tenantID {
				out = append(out, r.ID)
			}
		}
		if len(refs) < limit {
			return out
		}
	}
	tb.Fatal("SLAOverdue never ran out of tickets")
	return nil
}

// slaCases creates one ticket per case for the tenant and returns them
// with whether SLAOverdue must list them at slaNow.
func slaCases(t *testing.T, s support.Store, tenantID string) (tickets []support.Ticket, overdue []bool) {
	t.Helper()
	responded := func(tk support.Ticket) support.Ticket {
		at := tk.CreatedAt.Add(5 * time.Minute)
		tk.FirstRespondedAt = &at
		return tk
	}
	status := func(tk support.Ticket, st support.Status) support.Ticket { tk.Status = st; return tk }
	breached := func(tk support.Ticket) support.Ticket { tk.SLABreached = new(true); return tk }
	cases := []struct {
		name    string
		ticket  support.Ticket
		overdue bool
	}{
		{"NoTargets", newTicket(0), false},
		{"ResponseMissed", withTargets(newTicket(0), time.Hour, 72*time.Hour), true},
		{"ResponseMet", responded(withTargets(newTicket(0), time.Hour, 72*time.Hour)), false},
		{"ResolutionMissed", responded(withTargets(newTicket(0), time.Hour, 8*time.Hour)), true},
		{"NotDueYet", withTargets(newTicket(0), 24*time.Hour, 120*time.Hour), false},
		{"DueExactlyNow", withTargets(newTicket(0), 10*time.Hour, 72*time.Hour), true},
		{"Pending", status(withTargets(newTicket(0), time.Hour, 8*time.Hour), support.StatusPending), true},
		{"OnHold", status(withTargets(newTicket(0), time.Hour, 8*time.Hour), support.StatusOnHold), true},
		{"Solved", status(withTargets(newTicket(0), time.Hour, 8*time.Hour), support.StatusSolved), false},
		{"Closed", status(withTargets(newTicket(0), time.Hour, 8*time.Hour), support.StatusClosed), false},
		{"AlreadyBreached", breached(withTargets(newTicket(0), time.Hour, 8*time.Hour)), false},
	}
	for _, c := range cases {
		tickets = append(tickets, mustCreate(t, s, tenantID, c.ticket))
		overdue = append(overdue, c.overdue)
	}
	return tickets, overdue
}

func testSLAOverdue(t *testing.T, e *env) {
	tenant := e.tenant(t)
	tickets, overdue := slaCases(t, e.store, tenant)
	var want []string
	for i, tk := range tickets {
		if overdue[i] {
			want = append(want, tk.ID)
		}
	}
	if got := overdueOf(t, e.store, tenant, slaNow(), 100); !slices.Equal(got, want) {
		t.Fatalf("SLAOverdue = %v\nwant %v", got, want)
	}
	if got := overdueOf(t, e.store, tenant, baseTime(), 100); len(got) != 0 {
		t.Errorf("SLAOverdue at creation = %v, want none", got)
	}
}

func testSLAOverduePages(t *testing.T, e *env) {
	tenant := e.tenant(t)
	var want []string
	for range 7 {
		want = append(want, mustCreate(t, e.store, tenant, withTargets(newTicket(0), time.Hour, 8*time.Hour)).ID)
	}
	if got := overdueOf(t, e.store, tenant, slaNow(), 2); !slices.Equal(got, want) {
		t.Fatalf("SLAOverdue by pages of 2 = %v\nwant %v", got, want)
	}
}

func testBreachSLA(t *testing.T, e *env) {
	ctx := t.Context()
	tenant := e.tenant(t)
	tickets, overdue := slaCases(t, e.store, tenant)
	for i, tk := range tickets {
		got, ok, err := e.store.BreachSLA(ctx, tenant, tk.ID, slaNow())
		if err != nil {
			t.Fatalf("BreachSLA(%s): %v", tk.Subject, err)
		}
		if ok != overdue[i] {
			t.Errorf("ticket %d: BreachSLA = %v, want %v", i, ok, overdue[i])
		}
		want := tk
		if ok {
			want.SLABreached = new(true)
			checkTicket(t, "BreachSLA result", got, want)
		}
		checkTicket(t, "Ticket after BreachSLA", mustGet(t, e.store, tenant, tk.ID), want)
	}
	for i, tk := range tickets {
		later := slaNow()
		if overdue[i] {
			later = later.Add(1000 * time.Hour) // marked: never again
		}
		if _, ok, err := e.store.BreachSLA(ctx, tenant, tk.ID, later); err != nil || ok {
			t.Errorf("ticket %d: BreachSLA again = %v, %v; want false, nil", i, ok, err)
		}
	}
	if got := overdueOf(t, e.store, tenant, slaNow(), 100); len(got) != 0 {
		t.Errorf("SLAOverdue after BreachSLA = %v, want none", got)
	}
	if _, ok, err := e.store.BreachSLA(ctx, tenant, id.New(id.Ticket), slaNow()); ok || err != nil {
		t.Errorf("BreachSLA(unknown ticket) = %v, %v; want false, nil", ok, err)
	}
}

// testBreachSLAConcurrent races BreachSLA on one ticket: exactly one call
// marks it.
func testBreachSLAConcurrent(t *testing.T, e *env) {
	const n = 12
	tenant := e.tenant(t)
	tk := mustCreate(t, e.store, tenant, withTargets(newTicket(0), time.Hour, 8*time.Hour))
	var (
		wg   sync.WaitGroup
		won  = make([]bool, n)
		errs = make([]error, n)
	)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, won[i], errs[i] = e.store.BreachSLA(context.Background(), tenant, tk.ID, slaNow())
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("BreachSLA: %v", err)
	}
	if got := len(slices.DeleteFunc(won, func(w bool) bool { return !w })); got != 1 {
		t.Fatalf("%d of %d concurrent BreachSLA calls marked the ticket, want exactly 1", got, n)
	}
}

// testIsolationSLA checks that SLAOverdue names each ticket's own tenant
// and that tenant B cannot mark A's ticket.
func testIsolationSLA(t *testing.T, e *env) {
	a, b := e.tenant(t), e.tenant(t)
	tk := mustCreate(t, e.store, a, withTargets(newTicket(0), time.Hour, 8*time.Hour))
	if got := overdueOf(t, e.store, a, slaNow(), 100); !slices.Equal(got, []string{tk.ID}) {
		t.Errorf("SLAOverdue for A = %v, want [%s] under tenant A", got, tk.ID)
	}
	if got := overdueOf(t, e.store, b, slaNow(), 100); len(got) != 0 {
		t.Errorf("SLAOverdue attributes %v to tenant B, which has no tickets", got)
	}
	if _, ok, err := e.store.BreachSLA(t.Context(), b, tk.ID, slaNow()); ok || err != nil {
		t.Errorf("tenant B marking A's ticket = %v, %v; want false, nil", ok, err)
	}
	checkTicket(t, "A's ticket after B's attempt", mustGet(t, e.store, a, tk.ID), tk)
}
