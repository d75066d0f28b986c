package supporttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
)

// withTargets returns t with service level targets due after the given
// durations from its creation, not breached.
func withTargets(t support.Ticket, response, resolution time.Duration) support.Ticket {
	r, s := t.CreatedAt.Add(response), t.CreatedAt.Add(resolution)
	t.FirstResponseDueAt, t.ResolutionDueAt = &r, &s
	t.SLABreached = new(bool)
	return t
}

// testLifecycleFields stores a ticket with every optional field set and
// reads it back as it was.
func testLifecycleFields(t *testing.T, e *env) {
	tenant := e.tenant(t)
	tk := withTargets(newTicket(0), time.Hour, 8*time.Hour)
	responded := tk.CreatedAt.Add(30 * time.Minute)
	tk.FirstRespondedAt = &responded
	tk.Satisfaction = &support.Satisfaction{Score: 4, Comment: strPtr("Quick «and» kind.\nThanks"),
		RatedBy: "usr_requester", RatedAt: tk.CreatedAt.Add(2 * time.Hour)}
	tk = mustCreate(t, e.store, tenant, tk)
	checkTicket(t, "Ticket with lifecycle fields", mustGet(t, e.store, tenant, tk.ID), tk)

	bare := mustCreate(t, e.store, tenant, newTicket(0))
	got := mustGet(t, e.store, tenant, bare.ID)
	if got.FirstResponseDueAt != nil || got.ResolutionDueAt != nil || got.FirstRespondedAt != nil ||
		got.SLABreached != nil || got.Satisfaction != nil {
		t.Errorf("ticket without targets or rating = %+v, want every lifecycle field nil", got)
	}
}

// testUpdateLifecycleFields sets the fields UpdateTicket saves one after
// the other, and checks that SLABreached is not among them.
func testUpdateLifecycleFields(t *testing.T, e *env) {
	ctx := t.Context()
	tenant := e.tenant(t)
	orig := mustCreate(t, e.store, tenant, withTargets(newTicket(0), time.Hour, 8*time.Hour))
	responded := orig.CreatedAt.Add(10 * time.Minute)
	later := orig.CreatedAt.Add(4 * time.Hour)
	steps := []struct {
		name   string
		change func(*support.Ticket)
	}{
		{"FirstRespondedAt", func(tk *support.Ticket) { tk.FirstRespondedAt = &responded }},
		{"DueTimes", func(tk *support.Ticket) { tk.FirstResponseDueAt, tk.ResolutionDueAt = &later, &later }},
		{"Satisfaction", func(tk *support.Ticket) {
			tk.Satisfaction = &support.Satisfaction{Score: 2, RatedBy: "usr_owner", RatedAt: later}
		}},
	}
	want := orig
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change(&want)
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
	t.Run("SLABreachedUnchanged", func(t *testing.T) {
		got, err := e.store.UpdateTicket(ctx, tenant, orig.ID, func(tk *support.Ticket) error {
			tk.SLABreached = new(true)
			return nil
		})
		if err != nil {
			t.Fatalf("UpdateTicket: %v", err)
		}
		for _, tk := range []support.Ticket{got, mustGet(t, e.store, tenant, orig.ID)} {
			if tk.SLABreached == nil || *tk.SLABreached {
				t.Errorf("SLABreached = %v after UpdateTicket set it, want false: only BreachSLA sets it", tk.SLABreached)
			}
		}
	})
}

// newComment returns a comment on ticketID made later than the ones
// before it.
func newComment(ticketID string, n int) support.Comment {
	return support.Comment{
		ID:        id.New(id.Comment),
		TicketID:  ticketID,
		Author:    support.Author{Type: support.AuthorRequester, ID: "usr_requester", Name: "Ana Lima"},
		Body:      fmt.Sprintf("Comment %d:\n\tstill «broken»", n),
		CreatedAt: baseTime().Add(time.Duration(n) * time.Minute),
	}
}

// mustComment stores c for the tenant.
func mustComment(tb testing.TB, s support.Store, tenantID string, c support.Comment) support.Comment {
	tb.Helper()
	if err := s.CreateComment(context.Background(), tenantID, c); err != nil {
		tb.Fatalf("CreateComment(%s, %s): %v", tenantID, c.TicketID, err)
	}
	return c
}

// mustComments returns one page of a ticket's comments.
func mustComments(tb testing.TB, s support.Store, tenantID, ticketID string, f support.CommentFilter) ([]support.Comment, bool) {
	tb.Helper()
	cs, more, err := s.Comments(context.Background(), tenantID, ticketID, f)
	if err != nil {
		tb.Fatalf("Comments(%s, %s, %+v): %v", tenantID, ticketID, f, err)
	}
	return cs, more
}

// checkComments fails unless got equals want, comment by comment, times
// by instant and in UTC.
func checkComments(tb testing.TB, what string, got, want []support.Comment) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%s: %d comments, want %d:\n got %+v\nwant %+v", what, len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.CreatedAt.Equal(w.CreatedAt) || g.CreatedAt.Location() != time.UTC {
			tb.Errorf("%s[%d]: CreatedAt = %v, want %v in UTC", what, i, g.CreatedAt, w.CreatedAt)
		}
		g.CreatedAt = w.CreatedAt
		if g != w {
			tb.Errorf("%s[%d]:\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

// testComments stores comments from both sides on two tickets and reads
// each thread back oldest first, with nothing of the other ticket.
func testComments(t *testing.T, e *env) {
	tenant := e.tenant(t)
	a := mustCreate(t, e.store, tenant, newTicket(0))
	b := mustCreate(t, e.store, tenant, newTicket(0))
	if cs, more := mustComments(t, e.store, tenant, a.ID, support.CommentFilter{Limit: 20}); len(cs) != 0 || more {
		t.Fatalf("Comments of a ticket without any = %d, more=%v; want 0, false", len(cs), more)
	}
	var want []support.Comment
	for i := range 4 {
		c := newComment(a.ID, i)
		if i%2 == 1 {
			c.Author = support.Author{Type: support.AuthorAgent, ID: "agent-7"} // no name
		}
		want = append(want, mustComment(t, e.store, tenant, c))
		mustComment(t, e.store, tenant, newComment(b.ID, i))
	}
	got, more := mustComments(t, e.store, tenant, a.ID, support.CommentFilter{Limit: 20})
	if more {
		t.Errorf("Comments: more = true, want false")
	}
	checkComments(t, "Comments", got, want)
}

// testCommentsPages pages through 25 comments 10 at a time: 10, 10, 5,
// oldest first, each once.
func testCommentsPages(t *testing.T, e *env) {
	tenant := e.tenant(t)
	tk := mustCreate(t, e.store, tenant, newTicket(0))
	var want []string
	for i := range 25 {
		want = append(want, mustComment(t, e.store, tenant, newComment(tk.ID, i)).ID)
	}
	var (
		seen  []string
		after string
	)
	for i, size := range []int{10, 10, 5} {
		page, more := mustComments(t, e.store, tenant, tk.ID, support.CommentFilter{Limit: 10, After: after})
		if len(page) != size || more != (i < 2) {
			t.Fatalf("page %d: %d comments, more=%v; want %d, %v", i+1, len(page), more, size, i < 2)
		}
		for _, c := range page {
			seen = append(seen, c.ID)
		}
		after = page[len(page)-1].ID
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("pages hold\n%v\nwant every comment once, oldest first:\n%v", seen, want)
	}
}

func testCommentMissingTicket(t *testing.T, e *env) {
	tenant := e.tenant(t)
	err := e.store.CreateComment(t.Context(), tenant, newComment(id.New(id.Ticket), 0))
	if !errors.Is(err, support.ErrNotFound) {
		t.Fatalf("CreateComment on an unknown ticket = %v, want ErrNotFound", err)
	}
	if cs, _ := mustComments(t, e.store, tenant, id.New(id.Ticket), support.CommentFilter{Limit: 10}); len(cs) != 0 {
		t.Fatalf("Comments of an unknown ticket = %d, want none", len(cs))
	}
}

func testCommentDuplicate(t *testing.T, e *env) {
	tenant := e.tenant(t)
	tk := mustCreate(t, e.store, tenant, newTicket(0))
	first := mustComment(t, e.store, tenant, newComment(tk.ID, 0))
	again := newComment(tk.ID, 1)
	again.ID = first.ID
	if err := e.store.CreateComment(t.Context(), tenant, again); !errors.Is(err, support.ErrConflict) {
		t.Fatalf("CreateComment with a taken id = %v, want ErrConflict", err)
	}
	got, _ := mustComments(t, e.store, tenant, tk.ID, support.CommentFilter{Limit: 10})
	checkComments(t, "Comments after a duplicate", got, []support.Comment{first})
}

// testIsolationComments checks that tenant B can neither comment on nor
// read the thread of tenant A's ticket.
func testIsolationComments(t *testing.T, e *env) {
	a, b := e.tenant(t), e.tenant(t)
	tk := mustCreate(t, e.store, a, newTicket(0))
	want := []support.Comment{mustComment(t, e.store, a, newComment(tk.ID, 0))}
	if err := e.store.CreateComment(t.Context(), b, newComment(tk.ID, 1)); !errors.Is(err, support.ErrNotFound) {
		t.Errorf("tenant B commenting on A's ticket = %v, want ErrNotFound", err)
	}
	if cs, _ := mustComments(t, e.store, b, tk.ID, support.CommentFilter{Limit: 10}); len(cs) != 0 {
		t.Errorf("tenant B reads %d comments of A's ticket, want none", len(cs))
	}
	got, _ := mustComments(t, e.store, a, tk.ID, support.CommentFilter{Limit: 10})
	checkComments(t, "A's thread after B's attempts", got, want)
}
