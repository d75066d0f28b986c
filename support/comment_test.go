package support_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestAddCommentStatus checks what the tenant's comment does to each
// status: pending and solved reopen, closed refuses, the others stay.
func TestAddCommentStatus(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		from, want support.Status
		conflict   bool
	}{
		{support.StatusOpen, support.StatusOpen, false},
		{support.StatusPending, support.StatusOpen, false},
		{support.StatusOnHold, support.StatusOnHold, false},
		{support.StatusSolved, support.StatusOpen, false},
		{support.StatusClosed, support.StatusClosed, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.from), func(t *testing.T) {
			u := newUnit(t)
			tk := mustCreate(t, u.svc, unitTenant, validInput())
			before := setStatus(t, u, tk.ID, tt.from)
			u.clock.Advance(time.Minute)
			c, err := u.svc.AddComment(ctx, unitTenant, tk.ID, requester(), support.CommentInput{Body: "Any news?"})
			stored, _ := u.store.Ticket(ctx, unitTenant, tk.ID)
			thread, _, _ := u.svc.Comments(ctx, unitTenant, tk.ID, support.CommentFilter{})
			if tt.conflict {
				if !errors.Is(err, support.ErrConflict) || currentStatus(err) != string(tt.from) {
					t.Fatalf("AddComment = %v, want ErrConflict with status %s", err, tt.from)
				}
				if !reflect.DeepEqual(stored, before) || len(thread) != 0 {
					t.Fatalf("after a refused comment: ticket %+v, %d comments; want unchanged, none", stored, len(thread))
				}
				return
			}
			if err != nil {
				t.Fatalf("AddComment: %v", err)
			}
			want := support.Comment{ID: c.ID, TicketID: tk.ID,
				Author: support.Author{Type: support.AuthorRequester, ID: requester().ID, Name: requester().Name},
				Body:   "Any news?", CreatedAt: before.UpdatedAt.Add(time.Minute)}
			if !id.Valid(id.Comment, c.ID) || c != want {
				t.Errorf("comment = %+v, want %+v", c, want)
			}
			if stored.Status != tt.want || !stored.UpdatedAt.Equal(c.CreatedAt) || stored.FirstRespondedAt != nil {
				t.Errorf("ticket: status %s, updated %v, responded %v; want %s, %v, nil", stored.Status, stored.UpdatedAt, stored.FirstRespondedAt, tt.want, c.CreatedAt)
			}
			if len(thread) != 1 || thread[0] != c {
				t.Errorf("thread = %+v, want the comment", thread)
			}
		})
	}
}

// TestCommentInput checks the body rules; a refused comment stores
// nothing and changes no ticket.
func TestCommentInput(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := setStatus(t, u, mustCreate(t, u.svc, unitTenant, validInput()).ID, support.StatusPending)
	tests := []struct {
		name, body, code string
	}{
		{"Empty", "", "required"},
		{"Blank", " \n\t", "required"},
		{"TooLong", strings.Repeat("é", support.MaxCommentLen+1), "too_long"},
		{"Nul", "a\x00b", "nul_byte"},
		{"InvalidUTF8", "a\xffb", "invalid_utf8"},
		{"Control", "a\x07b", "control_character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := u.svc.AddComment(ctx, unitTenant, tk.ID, requester(), support.CommentInput{Body: tt.body})
			var ie *support.InvalidError
			if !errors.As(err, &ie) || len(ie.Errors()) != 1 || ie.Errors()[0].Field != "body" || ie.Errors()[0].Code != tt.code {
				t.Fatalf("AddComment = %v, want one %s error on body", err, tt.code)
			}
			if _, err := u.svc.AgentReply(ctx, unitTenant, tk.ID, "agent-1", tt.body); fieldErrors(t, err)["body"] == "" {
				t.Fatalf("AgentReply = %v, want an error on body", err)
			}
		})
	}
	if stored, _ := u.store.Ticket(ctx, unitTenant, tk.ID); !reflect.DeepEqual(stored, tk) {
		t.Errorf("after refused comments the ticket is %+v, want it unchanged", stored)
	}
	if thread, _, _ := u.svc.Comments(ctx, unitTenant, tk.ID, support.CommentFilter{}); len(thread) != 0 {
		t.Errorf("refused comments stored %d", len(thread))
	}
	longest := strings.Repeat("é", support.MaxCommentLen)
	if c, err := u.svc.AddComment(ctx, unitTenant, tk.ID, requester(), support.CommentInput{Body: longest}); err != nil || c.Body != longest {
		t.Errorf("AddComment(%d characters) = %v, want it kept as written", support.MaxCommentLen, err)
	}
}

func TestAgentReply(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())
	mustComment := func(c support.Comment, err error) support.Comment {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	mustComment(u.svc.AddComment(ctx, unitTenant, tk.ID, requester(), support.CommentInput{Body: "Hello?"}))
	u.clock.Advance(20 * time.Minute)
	first := mustComment(u.svc.AgentReply(ctx, unitTenant, tk.ID, " agent-7 ", "Looking into it."))
	if first.Author != (support.Author{Type: support.AuthorAgent, ID: "agent-7"}) {
		t.Errorf("author = %+v, want agent agent-7 without a name", first.Author)
	}
	got, _ := u.svc.Get(ctx, unitTenant, tk.ID)
	if got.FirstRespondedAt == nil || !got.FirstRespondedAt.Equal(first.CreatedAt) || got.Status != support.StatusOpen {
		t.Fatalf("after the first reply: responded %v, status %s; want %v, open", got.FirstRespondedAt, got.Status, first.CreatedAt)
	}
	u.clock.Advance(time.Hour)
	second := mustComment(u.svc.AgentReply(ctx, unitTenant, tk.ID, "agent-8", "Fixed."))
	got, _ = u.svc.Get(ctx, unitTenant, tk.ID)
	if !got.FirstRespondedAt.Equal(first.CreatedAt) || !got.UpdatedAt.Equal(second.CreatedAt) {
		t.Errorf("after a second reply: responded %v, updated %v; want %v (the first), %v", got.FirstRespondedAt, got.UpdatedAt, first.CreatedAt, second.CreatedAt)
	}
	thread, more, err := u.svc.Comments(ctx, unitTenant, tk.ID, support.CommentFilter{})
	if err != nil || more || len(thread) != 3 || thread[1] != first || thread[2] != second {
		t.Errorf("thread = %+v, %v, %v; want the 3 comments oldest first", thread, more, err)
	}

	t.Run("ModuleOff", func(t *testing.T) {
		u.ent.setModule(catalog.ModuleTickets, false)
		defer u.ent.setModule(catalog.ModuleTickets, true)
		if _, err := u.svc.AgentReply(ctx, unitTenant, tk.ID, "agent-1", "Still here."); err != nil {
			t.Errorf("AgentReply with support.tickets off = %v, want success (agents wind tickets down)", err)
		}
		if _, err := u.svc.AddComment(ctx, unitTenant, tk.ID, requester(), support.CommentInput{Body: "x"}); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("AddComment with support.tickets off = %v, want ErrModuleDisabled", err)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		closed := setStatus(t, u, mustCreate(t, u.svc, unitTenant, validInput()).ID, support.StatusClosed)
		if _, err := u.svc.AgentReply(ctx, unitTenant, closed.ID, "agent-1", "Too late"); !errors.Is(err, support.ErrConflict) {
			t.Errorf("AgentReply on a closed ticket = %v, want ErrConflict", err)
		}
		if stored, _ := u.store.Ticket(ctx, unitTenant, closed.ID); stored.FirstRespondedAt != nil {
			t.Errorf("a refused reply set FirstRespondedAt")
		}
		for _, agent := range []string{"", "two words", strings.Repeat("a", support.MaxRefLen+1)} {
			if _, err := u.svc.AgentReply(ctx, unitTenant, tk.ID, agent, "Hi"); fieldErrors(t, err)["agent_id"] == "" {
				t.Errorf("AgentReply(agent %q) = %v, want an error on agent_id", agent, err)
			}
		}
		for _, ticket := range []string{id.New(id.Ticket), "tkt_x", ""} {
			if _, err := u.svc.AgentReply(ctx, unitTenant, ticket, "agent-1", "Hi"); !errors.Is(err, support.ErrNotFound) {
				t.Errorf("AgentReply(ticket %q) = %v, want ErrNotFound", ticket, err)
			}
		}
		if _, err := u.svc.AgentReply(ctx, "ten_other", tk.ID, "agent-1", "Hi"); !errors.Is(err, support.ErrNotFound) {
			t.Errorf("AgentReply on another tenant's ticket = %v, want ErrNotFound", err)
		}
	})
}

func TestComments(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())
	var want []string
	for range 45 {
		c, err := u.svc.AddComment(ctx, unitTenant, tk.ID, requester(), support.CommentInput{Body: "x"})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, c.ID)
	}
	var (
		got   []string
		after string
		sizes []int
	)
	for {
		page, more, err := u.svc.Comments(ctx, unitTenant, tk.ID, support.CommentFilter{After: after})
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page))
		for _, c := range page {
			got = append(got, c.ID)
		}
		if !more {
			break
		}
		after = page[len(page)-1].ID
	}
	if !reflect.DeepEqual(sizes, []int{20, 20, 5}) || !reflect.DeepEqual(got, want) {
		t.Fatalf("pages of %v holding %v; want 20, 20, 5 holding every comment oldest first", sizes, got)
	}
	if _, _, err := u.svc.Comments(ctx, unitTenant, tk.ID, support.CommentFilter{After: tk.ID}); fieldErrors(t, err)["cursor"] == "" {
		t.Errorf("Comments(after a ticket id) = %v, want an error on cursor", err)
	}
	for _, tenant := range []string{"ten_other"} {
		if _, _, err := u.svc.Comments(ctx, tenant, tk.ID, support.CommentFilter{}); !errors.Is(err, support.ErrNotFound) {
			t.Errorf("Comments of another tenant's ticket = %v, want ErrNotFound", err)
		}
		if _, err := u.svc.AddComment(ctx, tenant, tk.ID, requester(), support.CommentInput{Body: "x"}); !errors.Is(err, support.ErrNotFound) {
			t.Errorf("AddComment on another tenant's ticket = %v, want ErrNotFound", err)
		}
	}
}
