package support_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestServiceIsolation drives the service with tenancy on a real database:
// tenant B sees none of A's tickets, by any method, and A's stay untouched.
func TestServiceIsolation(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		a := mustTenant(t, w.tenancy, catalog.PlanGrowth)
		b := mustTenant(t, w.tenancy, catalog.PlanGrowth)
		tk := mustCreate(t, w.svc, a, validInput())
		bTk := mustCreate(t, w.svc, b, validInput())
		if tk.Number != 1 || bTk.Number != 1 {
			t.Errorf("first numbers = %d (A), %d (B); want 1 each", tk.Number, bTk.Number)
		}

		calls := []struct {
			name string
			call func() error
		}{
			{"Get", func() error { _, err := w.svc.Get(ctx, b, tk.ID); return err }},
			{"Transition", func() error { _, err := w.svc.Transition(ctx, b, tk.ID, support.StatusClosed); return err }},
			{"Assign", func() error { _, err := w.svc.Assign(ctx, b, tk.ID, ptr("agent-b")); return err }},
			{"SetPriority", func() error { _, err := w.svc.SetPriority(ctx, b, tk.ID, support.PriorityLow); return err }},
		}
		for _, c := range calls {
			if err := c.call(); !errors.Is(err, support.ErrNotFound) {
				t.Errorf("tenant B %s on A's ticket = %v, want ErrNotFound", c.name, err)
			}
		}
		list, _, err := w.svc.List(ctx, b, support.ListFilter{RequesterID: requester().ID})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if got := ids(list); !slices.Equal(got, []string{bTk.ID}) {
			t.Errorf("tenant B's list = %v, want only its own %s", got, bTk.ID)
		}
		got, err := w.svc.Get(ctx, a, tk.ID)
		if err != nil || got.Status != support.StatusOpen || got.AssigneeID != nil || got.Priority != tk.Priority {
			t.Errorf("A's ticket after B's attempts = %+v, %v; want it unchanged", got, err)
		}
	})
}

// TestServiceLifecycle walks a ticket through the agent methods on a real
// database, with the last change read back by Get.
func TestServiceLifecycle(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		tenant := mustTenant(t, w.tenancy, catalog.PlanStarter)
		tk := mustCreate(t, w.svc, tenant, validInput())
		if _, err := w.svc.Assign(ctx, tenant, tk.ID, ptr("agent-1")); err != nil {
			t.Fatalf("Assign: %v", err)
		}
		if _, err := w.svc.SetPriority(ctx, tenant, tk.ID, support.PriorityUrgent); err != nil {
			t.Fatalf("SetPriority: %v", err)
		}
		for _, to := range []support.Status{support.StatusPending, support.StatusSolved, support.StatusOpen, support.StatusClosed} {
			mustTransition(t, w.svc, tenant, tk.ID, to)
		}
		if _, err := w.svc.Transition(ctx, tenant, tk.ID, support.StatusOpen); !errors.Is(err, support.ErrConflict) {
			t.Errorf("reopening a closed ticket = %v, want ErrConflict", err)
		}
		got, err := w.svc.Get(ctx, tenant, tk.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got.Status != support.StatusClosed || got.Priority != support.PriorityUrgent ||
			got.AssigneeID == nil || *got.AssigneeID != "agent-1" || !slices.Equal(got.Tags, tk.Tags) ||
			!got.CreatedAt.Equal(tk.CreatedAt) || got.UpdatedAt.Before(tk.UpdatedAt) {
			t.Errorf("after the lifecycle: %+v", got)
		}
	})
}

// TestModuleGating switches the tickets module off through tenancy: Create,
// Get and List answer tenancy.ErrModuleDisabled and nothing is consumed.
func TestModuleGating(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		tenant := mustTenant(t, w.tenancy, catalog.PlanStarter)
		tk := mustCreate(t, w.svc, tenant, validInput())
		toggle := func(on bool) {
			t.Helper()
			if _, _, err := w.tenancy.Modules.Toggle(ctx, tenant, tenancy.RoleOwner, catalog.ModuleTickets, on); err != nil {
				t.Fatalf("ToggleModule(%v): %v", on, err)
			}
		}
		toggle(false)
		if _, err := w.svc.Create(ctx, tenant, requester(), validInput()); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("Create with the module off = %v, want tenancy.ErrModuleDisabled", err)
		}
		if _, err := w.svc.Get(ctx, tenant, tk.ID); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("Get with the module off = %v, want tenancy.ErrModuleDisabled", err)
		}
		if _, _, err := w.svc.List(ctx, tenant, support.ListFilter{}); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("List with the module off = %v, want tenancy.ErrModuleDisabled", err)
		}
		if got := mustUsage(t, w.tenancy, tenant); got != 1 {
			t.Errorf("usage = %d, want 1 (nothing consumed while off)", got)
		}
		toggle(true)
		if got := mustCreate(t, w.svc, tenant, validInput()).Number; got != 2 {
			t.Errorf("number after switching back on = %d, want 2", got)
		}
	})
}

// TestAllowance uses up the free plan's 3 tickets a month; refused and
// invalid creates consume nothing.
func TestAllowance(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		tenant := mustTenant(t, w.tenancy, catalog.PlanFree)
		bad := validInput()
		bad.Subject = ""
		if _, err := w.svc.Create(ctx, tenant, requester(), bad); !errors.Is(err, support.ErrInvalid) {
			t.Fatalf("Create(invalid) = %v, want ErrInvalid", err)
		}
		for want := int64(1); want <= 3; want++ {
			if got := mustCreate(t, w.svc, tenant, validInput()).Number; got != want {
				t.Errorf("number = %d, want %d", got, want)
			}
		}
		if _, err := w.svc.Create(ctx, tenant, requester(), validInput()); !errors.Is(err, tenancy.ErrLimitExceeded) {
			t.Fatalf("fourth Create on the free plan = %v, want tenancy.ErrLimitExceeded", err)
		}
		if got := mustUsage(t, w.tenancy, tenant); got != 3 {
			t.Errorf("usage = %d, want 3", got)
		}
	})
}

// failingStore fails CreateTicket once, after the allowance and the number
// were taken in the same transaction.
type failingStore struct {
	support.Store
	fail bool
}

var errInsert = errors.New("insert failed")

func (s *failingStore) CreateTicket(ctx context.Context, tenantID string, t support.Ticket) error {
	if s.fail {
		s.fail = false
		return errInsert
	}
	return s.Store.CreateTicket(ctx, tenantID, t)
}

// TestCreateIsAtomic makes the insert fail: the allowance unit and the
// number taken before it are given back.
func TestCreateIsAtomic(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		tenant := mustTenant(t, w.tenancy, catalog.PlanStarter)
		store := &failingStore{Store: w.store, fail: true}
		svc := support.NewService(store, w.tenancy.Entitlements, w.tenancy.Notifications, w.tx)
		if _, err := svc.Create(ctx, tenant, requester(), validInput()); !errors.Is(err, errInsert) {
			t.Fatalf("Create = %v, want the insert's error", err)
		}
		if got := mustUsage(t, w.tenancy, tenant); got != 0 {
			t.Errorf("usage after a failed create = %d, want 0", got)
		}
		if got := mustCreate(t, svc, tenant, validInput()).Number; got != 1 {
			t.Errorf("number after a failed create = %d, want 1 (given back)", got)
		}
	})
}

// TestConcurrentCreatesRespectLimit races 40 creates against a limit of
// 10: exactly 10 succeed, with numbers 1..10, and the rest are refused.
func TestConcurrentCreatesRespectLimit(t *testing.T) {
	const (
		limit    = 10
		attempts = 40
	)
	eachDB(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		tenant := mustTenant(t, w.tenancy, catalog.PlanStarter)
		l := int64(limit)
		if err := w.tenancy.Entitlements.SetLimit(ctx, tenant, catalog.FeatureTickets, &l); err != nil {
			t.Fatalf("SetLimit: %v", err)
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			numbers []int64
			refused int
			other   []error
		)
		start := make(chan struct{})
		for range attempts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				tk, err := w.svc.Create(ctx, tenant, requester(), validInput())
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					numbers = append(numbers, tk.Number)
				case errors.Is(err, tenancy.ErrLimitExceeded):
					refused++
				default:
					other = append(other, err)
				}
			}()
		}
		close(start)
		wg.Wait()

		if err := errors.Join(other...); err != nil {
			t.Fatalf("unexpected errors: %v", err)
		}
		slices.Sort(numbers)
		want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		if !slices.Equal(numbers, want) || refused != attempts-limit {
			t.Fatalf("%d created with numbers %v, %d refused; want numbers %v and %d refused", len(numbers), numbers, refused, want, attempts-limit)
		}
		if got := mustUsage(t, w.tenancy, tenant); got != limit {
			t.Errorf("usage = %d, want %d", got, limit)
		}
		list, more, err := w.svc.List(ctx, tenant, support.ListFilter{Limit: 100})
		if err != nil || len(list) != limit || more {
			t.Errorf("List = %d tickets, more=%v, %v; want %d, false", len(list), more, err, limit)
		}
		for i := 1; i < len(list); i++ {
			if list[i-1].Number <= list[i].Number {
				t.Errorf("newest first by id is not newest first by number: #%d before #%d", list[i-1].Number, list[i].Number)
			}
		}
	})
}

// ids returns the ids of ts, in order.
func ids(ts []support.Ticket) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}
