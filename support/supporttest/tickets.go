package supporttest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/support"
)

func testNextNumber(t *testing.T, e *env) {
	ctx := t.Context()
	a, b := e.tenant(t), e.tenant(t)
	steps := []struct {
		tenant string
		want   int64
	}{{a, 1}, {a, 2}, {b, 1}, {a, 3}, {b, 2}}
	for i, st := range steps {
		got, err := e.store.NextNumber(ctx, st.tenant)
		if err != nil {
			t.Fatalf("step %d: NextNumber: %v", i, err)
		}
		if got != st.want {
			t.Errorf("step %d: NextNumber = %d, want %d", i, got, st.want)
		}
	}
}

func testNextNumberConcurrent(t *testing.T, e *env) {
	const n = 20
	tenant := e.tenant(t)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		got  []int64
		errs []error
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			num, err := e.store.NextNumber(context.Background(), tenant)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			got = append(got, num)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("NextNumber: %v", err)
	}
	slices.Sort(got)
	for i, num := range got {
		if num != int64(i+1) {
			t.Fatalf("numbers = %v, want 1..%d each once", got, n)
		}
	}
}

func testCreateAndGet(t *testing.T, e *env) {
	tenant := e.tenant(t)
	want := newTicket(0)
	want.Status = support.StatusOnHold
	want.Priority = support.PriorityUrgent
	want.AssigneeID = strPtr("agent-7")
	want.UpdatedAt = want.CreatedAt.Add(90 * time.Minute)
	want = mustCreate(t, e.store, tenant, want)
	checkTicket(t, "Ticket", mustGet(t, e.store, tenant, want.ID), want)
}

func testCreateBare(t *testing.T, e *env) {
	tenant := e.tenant(t)
	want := newTicket(0)
	want.Tags = nil
	want = mustCreate(t, e.store, tenant, want)
	got := mustGet(t, e.store, tenant, want.ID)
	if got.Tags == nil || len(got.Tags) != 0 {
		t.Errorf("Tags = %#v, want an empty, non-nil slice", got.Tags)
	}
	if got.AssigneeID != nil {
		t.Errorf("AssigneeID = %q, want nil", *got.AssigneeID)
	}
}

func testCreateDuplicate(t *testing.T, e *env) {
	ctx := t.Context()
	a, b := e.tenant(t), e.tenant(t)
	first := mustCreate(t, e.store, a, newTicket(0))

	sameID := newTicket(first.Number + 1)
	sameID.ID = first.ID
	if err := e.store.CreateTicket(ctx, a, sameID); !errors.Is(err, support.ErrConflict) {
		t.Errorf("CreateTicket with a taken id = %v, want ErrConflict", err)
	}
	sameNumber := newTicket(first.Number)
	if err := e.store.CreateTicket(ctx, a, sameNumber); !errors.Is(err, support.ErrConflict) {
		t.Errorf("CreateTicket with a taken number = %v, want ErrConflict", err)
	}
	if err := e.store.CreateTicket(ctx, b, newTicket(first.Number)); err != nil {
		t.Errorf("CreateTicket in another tenant with the same number = %v, want nil (numbers are per tenant)", err)
	}
	if got := mustGet(t, e.store, a, first.ID); got.Subject != first.Subject {
		t.Errorf("after failed creates, Subject = %q, want %q", got.Subject, first.Subject)
	}
}

func testGetMissing(t *testing.T, e *env) {
	tenant := e.tenant(t)
	_, err := e.store.Ticket(t.Context(), tenant, newTicket(1).ID)
	if !errors.Is(err, support.ErrNotFound) {
		t.Fatalf("Ticket(unknown id) = %v, want ErrNotFound", err)
	}
}

func testUpdate(t *testing.T, e *env) {
	ctx := t.Context()
	tenant := e.tenant(t)
	orig := mustCreate(t, e.store, tenant, newTicket(0))
	later := orig.UpdatedAt.Add(time.Hour)

	steps := []struct {
		name   string
		change func(*support.Ticket)
	}{
		{"Status", func(tk *support.Ticket) { tk.Status = support.StatusSolved }},
		{"Priority", func(tk *support.Ticket) { tk.Priority = support.PriorityHigh }},
		{"Assign", func(tk *support.Ticket) { tk.AssigneeID = strPtr("agent-1") }},
		{"Unassign", func(tk *support.Ticket) { tk.AssigneeID = nil }},
		{"Tags", func(tk *support.Ticket) { tk.Tags = []string{"export", "urgent-fix"} }},
		{"NoTags", func(tk *support.Ticket) { tk.Tags = nil }},
		{"Text", func(tk *support.Ticket) { tk.Subject, tk.Description = "New subject", "New description" }},
		{"UpdatedAt", func(tk *support.Ticket) { tk.UpdatedAt = later }},
	}
	want := orig
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change(&want)
			if want.Tags == nil {
				want.Tags = []string{}
			}
			got, err := e.store.UpdateTicket(ctx, tenant, orig.ID, func(tk *support.Ticket) error {
				st.change(tk)
				return nil
			})
			if err != nil {
				t.Fatalf("UpdateTicket: %v", err)
			}
			checkTicket(t, "UpdateTicket result", got, want)
			checkTicket(t, "Ticket after UpdateTicket", mustGet(t, e.store, tenant, orig.ID), want)
		})
	}
}

func testUpdateImmutable(t *testing.T, e *env) {
	tenant := e.tenant(t)
	orig := mustCreate(t, e.store, tenant, newTicket(0))
	got, err := e.store.UpdateTicket(t.Context(), tenant, orig.ID, func(tk *support.Ticket) error {
		tk.ID = newTicket(0).ID
		tk.Number += 100
		tk.Requester = support.Requester{ID: "usr_other", Email: "other@example.com", Name: "Other"}
		tk.CreatedAt = tk.CreatedAt.Add(-time.Hour)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateTicket: %v", err)
	}
	checkTicket(t, "UpdateTicket result", got, orig)
	checkTicket(t, "Ticket after UpdateTicket", mustGet(t, e.store, tenant, orig.ID), orig)
}

func testUpdateError(t *testing.T, e *env) {
	tenant := e.tenant(t)
	orig := mustCreate(t, e.store, tenant, newTicket(0))
	refuse := errors.New("refused by the rule")
	_, err := e.store.UpdateTicket(t.Context(), tenant, orig.ID, func(tk *support.Ticket) error {
		tk.Status = support.StatusClosed // must not be saved
		tk.Tags = append(tk.Tags, "leaked")
		return refuse
	})
	if !errors.Is(err, refuse) {
		t.Fatalf("UpdateTicket = %v, want the update's own error", err)
	}
	checkTicket(t, "Ticket after a refused update", mustGet(t, e.store, tenant, orig.ID), orig)
}

func testUpdateMissing(t *testing.T, e *env) {
	tenant := e.tenant(t)
	called := false
	_, err := e.store.UpdateTicket(t.Context(), tenant, newTicket(0).ID, func(*support.Ticket) error {
		called = true
		return nil
	})
	if !errors.Is(err, support.ErrNotFound) {
		t.Errorf("UpdateTicket(unknown id) = %v, want ErrNotFound", err)
	}
	if called {
		t.Errorf("UpdateTicket(unknown id) called update, want it not called")
	}
}

// testUpdateConcurrent has every goroutine add its own tag: a store that
// does not serialise updates of one ticket loses some of them.
func testUpdateConcurrent(t *testing.T, e *env) {
	const n = 12
	tenant := e.tenant(t)
	orig := newTicket(0)
	orig.Tags = []string{}
	orig = mustCreate(t, e.store, tenant, orig)
	var (
		wg   sync.WaitGroup
		errs = make([]error, n)
		want []string
	)
	for i := range n {
		tag := "tag-" + string(rune('a'+i))
		want = append(want, tag)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.store.UpdateTicket(context.Background(), tenant, orig.ID, func(tk *support.Ticket) error {
				tk.Tags = append(tk.Tags, tag)
				return nil
			})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("UpdateTicket: %v", err)
	}
	got := slices.Sorted(slices.Values(mustGet(t, e.store, tenant, orig.ID).Tags))
	if !slices.Equal(got, want) {
		t.Fatalf("tags after %d concurrent updates = %v, want %v (an update was lost)", n, got, want)
	}
}
