package support_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// race runs fn n times at once and returns the errors, by call.
func race(n int, fn func(i int) error) []error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// TestConcurrentFirstAgentReplies races first replies on one ticket: every
// reply is stored, and FirstRespondedAt is the time of the first of them,
// set once and not moved by the others.
func TestConcurrentFirstAgentReplies(t *testing.T) {
	const n = 8
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		tenant := mustTenant(t, w.tenancy, catalog.PlanGrowth)
		tk := mustCreate(t, w.svc, tenant, validInput())
		errs := race(n, func(i int) error {
			_, err := w.svc.AgentReply(ctx, tenant, tk.ID, fmt.Sprintf("agent-%d", i), "On it")
			return err
		})
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("AgentReply: %v", err)
		}
		thread, _, err := w.svc.Comments(ctx, tenant, tk.ID, support.CommentFilter{})
		if err != nil || len(thread) != n {
			t.Fatalf("Comments = %d, %v; want %d", len(thread), err, n)
		}
		got, err := w.svc.Get(ctx, tenant, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.FirstRespondedAt == nil || !got.FirstRespondedAt.Equal(thread[0].CreatedAt) {
			t.Fatalf("FirstRespondedAt = %v, want %v, the first reply's time", got.FirstRespondedAt, thread[0].CreatedAt)
		}
		if !got.UpdatedAt.Equal(thread[n-1].CreatedAt) {
			t.Errorf("UpdatedAt = %v, want %v, the last reply's time", got.UpdatedAt, thread[n-1].CreatedAt)
		}
	})
}

// TestConcurrentCheckSLA runs CheckSLA on two replicas (two Apps on one
// database) at the same time, several rounds: every missed target is
// marked once and notified once, whichever replica wins.
func TestConcurrentCheckSLA(t *testing.T) {
	const tickets = 6
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		replica, err := tenantkit.New(w.db, catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		tenant := mustTenant(t, w.tenancy, catalog.PlanGrowth) // support.sla included
		other := mustTenant(t, w.tenancy, catalog.PlanStarter) // no support.sla
		var created time.Time
		for range tickets {
			created = mustCreate(t, w.svc, tenant, validInput()).CreatedAt
		}
		if tk := mustCreate(t, w.svc, other, validInput()); tk.FirstResponseDueAt != nil || tk.SLABreached != nil {
			t.Fatalf("ticket without support.sla: due %v, breached %v; want nil", tk.FirstResponseDueAt, tk.SLABreached)
		}
		now := created.Add(5 * time.Hour) // past high's 4h first response
		replicas := []*support.Service{w.svc, replica.Support}
		marked := make([]int, 2*len(replicas))
		errs := race(len(marked), func(i int) error {
			var err error
			marked[i], err = replicas[i%len(replicas)].CheckSLA(ctx, now)
			return err
		})
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("CheckSLA: %v", err)
		}
		total := 0
		for _, m := range marked {
			total += m
		}
		if total != tickets {
			t.Fatalf("CheckSLA calls marked %v tickets (%d in all), want %d in all", marked, total, tickets)
		}
		notes, _, err := w.tenancy.Notifications.List(ctx, tenant, tenancy.NotificationFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		perTicket := map[any]int{}
		for _, n := range notes {
			if n.Type == support.NotificationSLABreached {
				perTicket[n.Data["ticket_id"]]++
			}
		}
		if len(perTicket) != tickets {
			t.Errorf("notifications name %d tickets, want %d", len(perTicket), tickets)
		}
		for id, count := range perTicket {
			if count != 1 {
				t.Errorf("ticket %v notified %d times, want once", id, count)
			}
		}
		if n, err := replica.Support.CheckSLA(ctx, now.Add(1000*time.Hour)); n != 0 || err != nil {
			t.Errorf("CheckSLA later = %d, %v; want 0 (each ticket once, ever)", n, err)
		}
		if notes, _, _ := w.tenancy.Notifications.List(ctx, other, tenancy.NotificationFilter{}); len(notes) != 0 {
			t.Errorf("tenant without support.sla got %d notifications", len(notes))
		}
	})
}
