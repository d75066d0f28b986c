package support_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/support"
)

// allowed restates the transition table of the issue independently of the
// code: from → to that must succeed. Anything else between two different
// statuses must be a conflict.
var allowed = map[[2]support.Status]bool{
	{support.StatusOpen, support.StatusPending}: true,
	{support.StatusOpen, support.StatusOnHold}:  true,
	{support.StatusOpen, support.StatusSolved}:  true,
	{support.StatusOpen, support.StatusClosed}:  true,

	{support.StatusPending, support.StatusOpen}:   true,
	{support.StatusPending, support.StatusOnHold}: true,
	{support.StatusPending, support.StatusSolved}: true,
	{support.StatusPending, support.StatusClosed}: true,

	{support.StatusOnHold, support.StatusOpen}:    true,
	{support.StatusOnHold, support.StatusPending}: true,
	{support.StatusOnHold, support.StatusSolved}:  true,
	{support.StatusOnHold, support.StatusClosed}:  true,

	{support.StatusSolved, support.StatusOpen}:   true, // reopen
	{support.StatusSolved, support.StatusClosed}: true,
}

func TestCanTransition(t *testing.T) {
	for _, from := range support.Statuses() {
		for _, to := range support.Statuses() {
			t.Run(fmt.Sprintf("%s→%s", from, to), func(t *testing.T) {
				if got, want := support.CanTransition(from, to), allowed[[2]support.Status{from, to}]; got != want {
					t.Fatalf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
				}
			})
		}
	}
}

func TestTransitions(t *testing.T) {
	for _, from := range support.Statuses() {
		var want []support.Status
		for _, to := range support.Statuses() {
			if allowed[[2]support.Status{from, to}] {
				want = append(want, to)
			}
		}
		if got := support.Transitions(from); !slices.Equal(got, want) {
			t.Errorf("Transitions(%s) = %v, want %v", from, got, want)
		}
	}
	if got := support.Transitions("archived"); len(got) != 0 {
		t.Errorf("Transitions(unknown) = %v, want none", got)
	}
	// The table is shared; a caller editing the slice it got must not
	// change the rules.
	got := support.Transitions(support.StatusSolved)
	got[0] = support.StatusPending
	if support.CanTransition(support.StatusSolved, support.StatusPending) {
		t.Fatal("editing the slice from Transitions changed the transition table")
	}
}

// TestServiceTransition walks every from/to pair through Service.Transition
// on a ticket put in status from: a legal move changes the status and
// UpdatedAt, the same status is a no-op success, anything else is
// ErrConflict and changes nothing.
func TestServiceTransition(t *testing.T) {
	ctx := context.Background()
	for _, from := range support.Statuses() {
		for _, to := range support.Statuses() {
			t.Run(fmt.Sprintf("%s→%s", from, to), func(t *testing.T) {
				u := newUnit(t)
				tk := mustCreate(t, u.svc, unitTenant, validInput())
				before, err := u.store.UpdateTicket(ctx, unitTenant, tk.ID, func(tk *support.Ticket) error {
					tk.Status = from
					return nil
				})
				if err != nil {
					t.Fatalf("setting up status %s: %v", from, err)
				}
				u.clock.Advance(time.Minute)

				got, err := u.svc.Transition(ctx, unitTenant, tk.ID, to)
				switch {
				case from == to:
					if err != nil {
						t.Fatalf("Transition to the current status = %v, want a no-op success", err)
					}
					if got.Status != to || !got.UpdatedAt.Equal(before.UpdatedAt) {
						t.Errorf("no-op: status %s, updated %v; want %s, %v (unchanged)", got.Status, got.UpdatedAt, to, before.UpdatedAt)
					}
				case allowed[[2]support.Status{from, to}]:
					if err != nil {
						t.Fatalf("Transition = %v, want success", err)
					}
					if got.Status != to {
						t.Errorf("Status = %s, want %s", got.Status, to)
					}
					if want := before.UpdatedAt.Add(time.Minute); !got.UpdatedAt.Equal(want) {
						t.Errorf("UpdatedAt = %v, want %v", got.UpdatedAt, want)
					}
				default:
					if !errors.Is(err, support.ErrConflict) {
						t.Fatalf("Transition = %v, want ErrConflict", err)
					}
				}
				stored, err := u.store.Ticket(ctx, unitTenant, tk.ID)
				if err != nil {
					t.Fatal(err)
				}
				wantStored := from
				if allowed[[2]support.Status{from, to}] {
					wantStored = to
				}
				if stored.Status != wantStored {
					t.Errorf("stored status = %s, want %s", stored.Status, wantStored)
				}
			})
		}
	}
}

func TestTransitionErrors(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())

	t.Run("ErrUnknownStatus", func(t *testing.T) {
		_, err := u.svc.Transition(ctx, unitTenant, tk.ID, "archived")
		if got := fieldErrors(t, err); got["status"] == "" {
			t.Fatalf("field errors = %v, want one for status", got)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		other := mustCreate(t, newUnit(t).svc, unitTenant, validInput()).ID // exists elsewhere only
		for _, id := range []string{other, "tkt_nope", "", "inv_01jd0000000000000000000000"} {
			if _, err := u.svc.Transition(ctx, unitTenant, id, support.StatusSolved); !errors.Is(err, support.ErrNotFound) {
				t.Errorf("Transition(%q) = %v, want ErrNotFound", id, err)
			}
		}
	})
	t.Run("ErrConflictSaysWhy", func(t *testing.T) {
		mustTransition(t, u.svc, unitTenant, tk.ID, support.StatusSolved)
		_, err := u.svc.Transition(ctx, unitTenant, tk.ID, support.StatusPending)
		if want := "a solved ticket can only move to open, closed"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Transition(solved → pending) = %v, want an error saying %q", err, want)
		}
		// What a client is shown: the sentence alone, without the context.
		var d interface{ Detail() string }
		if want := "a solved ticket can only move to open, closed"; !errors.As(err, &d) || d.Detail() != want {
			t.Errorf("Transition(solved → pending) = %v, want a Detail() of %q", err, want)
		}
		mustTransition(t, u.svc, unitTenant, tk.ID, support.StatusClosed)
		_, err = u.svc.Transition(ctx, unitTenant, tk.ID, support.StatusOpen)
		if want := "closed, which is final"; !errors.Is(err, support.ErrConflict) || !strings.Contains(err.Error(), want) {
			t.Errorf("Transition(closed → open) = %v, want ErrConflict saying %q", err, want)
		}
	})
}
