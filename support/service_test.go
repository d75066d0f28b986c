package support_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/examples/memstore"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestCreate(t *testing.T) {
	u := newUnit(t)
	in := validInput()
	in.Priority = ""
	got := mustCreate(t, u.svc, unitTenant, in)

	if !id.Valid(id.Ticket, got.ID) {
		t.Errorf("ID = %q, want a tkt_ id", got.ID)
	}
	wantAt := time.Date(2026, 11, 21, 9, 0, 0, 123456000, time.UTC) // UTC, to the microsecond
	checks := []struct {
		name      string
		got, want any
	}{
		{"Number", got.Number, int64(1)},
		{"Status", got.Status, support.StatusOpen},
		{"Priority", got.Priority, support.PriorityNormal},
		{"Requester", got.Requester, requester()},
		{"AssigneeID", got.AssigneeID, (*string)(nil)},
		{"CreatedAt", got.CreatedAt, wantAt},
		{"UpdatedAt", got.UpdatedAt, wantAt},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if u.ent.used != 1 {
		t.Errorf("allowance used = %d, want 1", u.ent.used)
	}
	stored, err := u.svc.Get(context.Background(), unitTenant, got.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if stored.ID != got.ID || stored.Subject != got.Subject {
		t.Errorf("Get = %+v, want what Create returned: %+v", stored, got)
	}
}

func TestCreateNumbersPerTenant(t *testing.T) {
	u := newUnit(t)
	steps := []struct {
		tenant string
		want   int64
	}{{"ten_a", 1}, {"ten_a", 2}, {"ten_b", 1}, {"ten_a", 3}, {"ten_b", 2}}
	for i, st := range steps {
		if got := mustCreate(t, u.svc, st.tenant, validInput()).Number; got != st.want {
			t.Errorf("step %d: ticket of %s got number %d, want %d", i, st.tenant, got, st.want)
		}
	}
}

func TestModuleAndAllowanceErrorsPassThrough(t *testing.T) {
	ctx := context.Background()
	t.Run("ModuleDisabled", func(t *testing.T) {
		u := newUnit(t)
		tk := mustCreate(t, u.svc, unitTenant, validInput())
		u.ent.disabled = true
		_, err := u.svc.Create(ctx, unitTenant, requester(), validInput())
		if !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("Create = %v, want tenancy.ErrModuleDisabled", err)
		}
		if _, err := u.svc.Get(ctx, unitTenant, tk.ID); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("Get = %v, want tenancy.ErrModuleDisabled", err)
		}
		if _, _, err := u.svc.List(ctx, unitTenant, support.ListFilter{}); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("List = %v, want tenancy.ErrModuleDisabled", err)
		}
		// Agents can still wind tickets down.
		if _, err := u.svc.Transition(ctx, unitTenant, tk.ID, support.StatusClosed); err != nil {
			t.Errorf("Transition with the module off = %v, want nil", err)
		}
		if u.ent.used != 1 {
			t.Errorf("allowance used = %d, want 1 (only the ticket made while on)", u.ent.used)
		}
	})
	t.Run("LimitExceeded", func(t *testing.T) {
		u := newUnit(t)
		u.ent.limit = 2
		mustCreate(t, u.svc, unitTenant, validInput())
		mustCreate(t, u.svc, unitTenant, validInput())
		_, err := u.svc.Create(ctx, unitTenant, requester(), validInput())
		if !errors.Is(err, tenancy.ErrLimitExceeded) {
			t.Fatalf("third Create with a limit of 2 = %v, want tenancy.ErrLimitExceeded", err)
		}
		if ts, _, _ := u.svc.List(ctx, unitTenant, support.ListFilter{}); len(ts) != 2 {
			t.Errorf("stored %d tickets, want 2", len(ts))
		}
	})
}

func TestGet(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())
	tests := []struct {
		name, tenant, id string
	}{
		{"OtherTenant", "ten_other", tk.ID},
		{"Unknown", unitTenant, id.New(id.Ticket)},
		{"Malformed", unitTenant, "tkt_x"},
		{"OtherPrefix", unitTenant, id.New(id.Invoice)},
		{"Empty", unitTenant, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := u.svc.Get(ctx, tt.tenant, tt.id); !errors.Is(err, support.ErrNotFound) {
				t.Fatalf("Get(%s, %q) = %v, want ErrNotFound", tt.tenant, tt.id, err)
			}
		})
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	for range 105 {
		mustCreate(t, u.svc, unitTenant, validInput())
	}
	t.Run("Limit", func(t *testing.T) {
		tests := []struct {
			limit, want int
		}{{0, 20}, {-5, 20}, {1, 1}, {37, 37}, {100, 100}, {101, 100}, {1000, 100}}
		for _, tt := range tests {
			ts, more, err := u.svc.List(ctx, unitTenant, support.ListFilter{Limit: tt.limit})
			if err != nil {
				t.Fatalf("List(limit %d): %v", tt.limit, err)
			}
			if len(ts) != tt.want || !more {
				t.Errorf("List(limit %d) = %d tickets, more=%v; want %d, true", tt.limit, len(ts), more, tt.want)
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		ts, more, err := u.svc.List(ctx, "ten_empty", support.ListFilter{})
		if err != nil || ts == nil || len(ts) != 0 || more {
			t.Fatalf("List(new tenant) = %#v, %v, %v; want [], false, nil", ts, more, err)
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		tests := []struct {
			name  string
			f     support.ListFilter
			field string
		}{
			{"ErrStatus", support.ListFilter{Status: "done"}, "status"},
			{"ErrPriority", support.ListFilter{Priority: "p1"}, "priority"},
			{"ErrCursor", support.ListFilter{Before: "inv_01jd0000000000000000000000"}, "cursor"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, _, err := u.svc.List(ctx, unitTenant, tt.f)
				if got := fieldErrors(t, err); len(got) != 1 || got[tt.field] == "" {
					t.Fatalf("field errors = %v, want exactly one for %s", got, tt.field)
				}
			})
		}
	})
}

func TestAssign(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())

	u.clock.Advance(time.Minute)
	got, err := u.svc.Assign(ctx, unitTenant, tk.ID, ptr(" agent-7 "))
	if err != nil {
		t.Fatalf("Assign: %v", err)
	}
	if got.AssigneeID == nil || *got.AssigneeID != "agent-7" || !got.UpdatedAt.After(tk.UpdatedAt) {
		t.Fatalf("after Assign: assignee %v, updated %v; want agent-7, later than %v", got.AssigneeID, got.UpdatedAt, tk.UpdatedAt)
	}
	u.clock.Advance(time.Minute)
	again, err := u.svc.Assign(ctx, unitTenant, tk.ID, ptr("agent-7"))
	if err != nil || !again.UpdatedAt.Equal(got.UpdatedAt) {
		t.Errorf("assigning the same agent = updated %v, %v; want a no-op (updated %v)", again.UpdatedAt, err, got.UpdatedAt)
	}
	got, err = u.svc.Assign(ctx, unitTenant, tk.ID, nil)
	if err != nil || got.AssigneeID != nil {
		t.Fatalf("unassign = %v, %v; want nil assignee", got.AssigneeID, err)
	}

	for _, bad := range []string{"", "  ", "agent 7", repeat("a", 65)} {
		_, err := u.svc.Assign(ctx, unitTenant, tk.ID, &bad)
		if got := fieldErrors(t, err); got["assignee_id"] == "" {
			t.Errorf("Assign(%q): field errors %v, want one for assignee_id", bad, got)
		}
	}
	if _, err := u.svc.Assign(ctx, "ten_other", tk.ID, ptr("agent-1")); !errors.Is(err, support.ErrNotFound) {
		t.Errorf("Assign in another tenant = %v, want ErrNotFound", err)
	}
	mustTransition(t, u.svc, unitTenant, tk.ID, support.StatusClosed)
	if _, err := u.svc.Assign(ctx, unitTenant, tk.ID, ptr("agent-1")); !errors.Is(err, support.ErrConflict) {
		t.Errorf("Assign on a closed ticket = %v, want ErrConflict", err)
	}
	if _, err := u.svc.Assign(ctx, unitTenant, tk.ID, nil); err != nil {
		t.Errorf("unassigning a closed, unassigned ticket = %v, want a no-op success", err)
	}
}

func TestSetPriority(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput()) // high

	u.clock.Advance(time.Minute)
	got, err := u.svc.SetPriority(ctx, unitTenant, tk.ID, support.PriorityUrgent)
	if err != nil || got.Priority != support.PriorityUrgent || !got.UpdatedAt.After(tk.UpdatedAt) {
		t.Fatalf("SetPriority(urgent) = %s, updated %v, %v; want urgent, later", got.Priority, got.UpdatedAt, err)
	}
	_, err = u.svc.SetPriority(ctx, unitTenant, tk.ID, "critical")
	if got := fieldErrors(t, err); got["priority"] == "" {
		t.Errorf("SetPriority(critical): field errors %v, want one for priority", got)
	}
	if _, err := u.svc.SetPriority(ctx, "ten_other", tk.ID, support.PriorityLow); !errors.Is(err, support.ErrNotFound) {
		t.Errorf("SetPriority in another tenant = %v, want ErrNotFound", err)
	}
	mustTransition(t, u.svc, unitTenant, tk.ID, support.StatusClosed)
	if _, err := u.svc.SetPriority(ctx, unitTenant, tk.ID, support.PriorityLow); !errors.Is(err, support.ErrConflict) {
		t.Errorf("SetPriority on a closed ticket = %v, want ErrConflict", err)
	}
	if _, err := u.svc.SetPriority(ctx, unitTenant, tk.ID, support.PriorityUrgent); err != nil {
		t.Errorf("SetPriority to the closed ticket's own priority = %v, want a no-op success", err)
	}
}

// TestTicketJSON: a ticket's JSON, tags as [] when there are none, and an
// agent's view of it (TenantTicket): the same fields after "tenant_id".
func TestTicketJSON(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	tk := support.Ticket{
		ID: "tkt_1", Number: 7, Subject: "S", Description: "D",
		Status: support.StatusOnHold, Priority: support.PriorityLow,
		Requester: support.Requester{ID: "usr_1", Email: "a@b.c", Name: "A"},
		CreatedAt: at, UpdatedAt: at,
	}
	tagged := tk
	tagged.Tags = support.Tags{"billing", "vip"}
	fields := func(tags string) string {
		return `"id":"tkt_1","number":7,"subject":"S","description":"D","status":"on_hold","priority":"low",` +
			`"requester":{"id":"usr_1","email":"a@b.c","name":"A"},"assignee_id":null,"tags":` + tags + `,` +
			`"created_at":"2026-11-21T09:00:00Z","updated_at":"2026-11-21T09:00:00Z",` +
			`"first_response_due_at":null,"resolution_due_at":null,"first_responded_at":null,"sla_breached":null,"satisfaction":null}`
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"Ticket", tk, `{` + fields(`[]`)},
		{"TicketWithTags", tagged, `{` + fields(`["billing","vip"]`)},
		{"TenantTicket", support.TenantTicket{TenantID: "ten_1", Ticket: tk}, `{"tenant_id":"ten_1",` + fields(`[]`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("json.Marshal =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestInvalidError(t *testing.T) {
	err := &support.InvalidError{Fields: map[string]string{"tags[1]": "is bad", "subject": "is required"}}
	if want := "invalid input: subject: is required; tags[1]: is bad;"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, support.ErrInvalid) {
		t.Error("InvalidError does not match ErrInvalid")
	}
}

// TestNewServiceNeedsTransactor: without a Transactor, spending the
// allowance, numbering and inserting would not commit as one, so the
// configuration is refused rather than run.
func TestNewServiceNeedsTransactor(t *testing.T) {
	got := func() (p any) {
		defer func() { p = recover() }()
		support.NewService(memstore.New(), &fakeEntitlements{limit: -1}, &fakeNotifier{}, nil)
		return nil
	}()
	if msg, _ := got.(string); !strings.Contains(msg, "needs a Transactor") {
		t.Fatalf("NewService with a nil Transactor: recovered %v, want a panic saying it needs one", got)
	}
}
