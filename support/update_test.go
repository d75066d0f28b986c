package support_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// currentStatus returns the status a conflict reports, "" when none.
func currentStatus(err error) string {
	var cs interface{ CurrentStatus() string }
	if errors.As(err, &cs) {
		return cs.CurrentStatus()
	}
	return ""
}

// setStatus puts the ticket in status st, past the rules, as a test setup.
func setStatus(tb testing.TB, u *unit, ticketID string, st support.Status) support.Ticket {
	tb.Helper()
	t, err := u.store.UpdateTicket(context.Background(), unitTenant, ticketID, func(t *support.Ticket) error {
		t.Status = st
		return nil
	})
	if err != nil {
		tb.Fatalf("set status %s: %v", st, err)
	}
	return t
}

// TestUpdateStatus walks every from/to pair through Service.Update: a move
// the table allows changes the status and UpdatedAt, the same status
// changes nothing, and any other move is a conflict that reports the
// current status and leaves the ticket as it was.
func TestUpdateStatus(t *testing.T) {
	ctx := context.Background()
	for _, from := range support.Statuses() {
		for _, to := range support.Statuses() {
			t.Run(fmt.Sprintf("%s→%s", from, to), func(t *testing.T) {
				u := newUnit(t)
				tk := mustCreate(t, u.svc, unitTenant, validInput())
				before := setStatus(t, u, tk.ID, from)
				u.clock.Advance(time.Minute)
				got, err := u.svc.Update(ctx, unitTenant, tk.ID, support.UpdateTicketInput{Status: ptr(string(to))})
				switch {
				case from == to:
					if err != nil || !reflect.DeepEqual(got, before) {
						t.Fatalf("Update to the current status = %+v, %v; want the ticket unchanged", got, err)
					}
				case allowed[[2]support.Status{from, to}]:
					if err != nil {
						t.Fatalf("Update = %v, want success", err)
					}
					if got.Status != to || !got.UpdatedAt.Equal(before.UpdatedAt.Add(time.Minute)) {
						t.Errorf("Update: status %s, updated %v; want %s, a minute later", got.Status, got.UpdatedAt, to)
					}
				default:
					if !errors.Is(err, support.ErrConflict) {
						t.Fatalf("Update = %v, want ErrConflict", err)
					}
					if cs := currentStatus(err); cs != string(from) {
						t.Errorf("conflict reports current status %q, want %q", cs, from)
					}
					stored, _ := u.store.Ticket(ctx, unitTenant, tk.ID)
					if !reflect.DeepEqual(stored, before) {
						t.Errorf("after a refused move the ticket is %+v, want %+v", stored, before)
					}
				}
			})
		}
	}
}

func TestUpdateFields(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput()) // high, [export], with targets
	u.clock.Advance(time.Hour)

	got, err := u.svc.Update(ctx, unitTenant, tk.ID, support.UpdateTicketInput{
		Priority: ptr("urgent"),
		Tags:     &[]string{" Billing Issue ", "export", "billing issue"},
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got.Priority != support.PriorityUrgent || !slices.Equal(got.Tags, []string{"billing-issue", "export"}) {
		t.Errorf("Update: priority %s, tags %v; want urgent, [billing-issue export]", got.Priority, got.Tags)
	}
	// The targets are the new priority's, counted from creation.
	target := support.Targets(support.PriorityUrgent)
	if !got.FirstResponseDueAt.Equal(tk.CreatedAt.Add(target.FirstResponse)) || !got.ResolutionDueAt.Equal(tk.CreatedAt.Add(target.Resolution)) {
		t.Errorf("due times %v, %v; want urgent's from creation (%v)", got.FirstResponseDueAt, got.ResolutionDueAt, tk.CreatedAt)
	}
	if !got.UpdatedAt.Equal(tk.UpdatedAt.Add(time.Hour)) {
		t.Errorf("UpdatedAt = %v, want an hour after creation", got.UpdatedAt)
	}

	t.Run("NoOp", func(t *testing.T) {
		u.clock.Advance(time.Hour)
		again, err := u.svc.Update(ctx, unitTenant, tk.ID, support.UpdateTicketInput{
			Priority: ptr("urgent"), Tags: &[]string{"billing-issue", "Export"}, Status: ptr("open"),
		})
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("Update with what the ticket has = %+v, %v; want it unchanged, UpdatedAt too", again, err)
		}
		if empty, err := u.svc.Update(ctx, unitTenant, tk.ID, support.UpdateTicketInput{}); err != nil || !reflect.DeepEqual(empty, got) {
			t.Fatalf("empty Update = %+v, %v; want the ticket unchanged", empty, err)
		}
	})
	t.Run("ClearTags", func(t *testing.T) {
		cleared, err := u.svc.Update(ctx, unitTenant, tk.ID, support.UpdateTicketInput{Tags: &[]string{}})
		if err != nil || cleared.Tags == nil || len(cleared.Tags) != 0 {
			t.Fatalf("Update(tags []) = %v, %v; want no tags", cleared.Tags, err)
		}
	})
	t.Run("WithoutTargets", func(t *testing.T) {
		u := newUnit(t)
		u.ent.setModule(catalog.ModuleSLA, false)
		tk := mustCreate(t, u.svc, unitTenant, validInput())
		got, err := u.svc.Update(ctx, unitTenant, tk.ID, support.UpdateTicketInput{Priority: ptr("low")})
		if err != nil || got.FirstResponseDueAt != nil || got.ResolutionDueAt != nil || got.SLABreached != nil {
			t.Fatalf("Update of a ticket without targets = %+v, %v; want it still without", got, err)
		}
	})
}

// TestUpdateRefusals checks that bad input and closed tickets change
// nothing: every field or none.
func TestUpdateRefusals(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())
	closed := mustCreate(t, u.svc, unitTenant, validInput())
	closed = setStatus(t, u, closed.ID, support.StatusClosed)

	tests := []struct {
		name       string
		ticket     support.Ticket
		in         support.UpdateTicketInput
		wantFields []string // validation failure on these fields
		wantErr    error    // else this error
	}{
		{"UnknownStatus", tk, support.UpdateTicketInput{Status: ptr("archived"), Tags: &[]string{"new"}}, []string{"status"}, nil},
		{"UnknownPriority", tk, support.UpdateTicketInput{Priority: ptr("whenever")}, []string{"priority"}, nil},
		{"BadTags", tk, support.UpdateTicketInput{Tags: &[]string{"ok", "no/slash", ""}}, []string{"tags[1]", "tags[2]"}, nil},
		{"TooManyTags", tk, support.UpdateTicketInput{Tags: &[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}}, []string{"tags"}, nil},
		{"EveryField", tk, support.UpdateTicketInput{Status: ptr("x"), Priority: ptr("y"), Tags: &[]string{"!"}}, []string{"status", "priority", "tags[0]"}, nil},
		{"ForbiddenMoveWithOtherChanges", setStatus(t, u, mustCreate(t, u.svc, unitTenant, validInput()).ID, support.StatusSolved),
			support.UpdateTicketInput{Status: ptr("pending"), Priority: ptr("low"), Tags: &[]string{"new"}}, nil, support.ErrConflict},
		{"ClosedPriority", closed, support.UpdateTicketInput{Priority: ptr("low")}, nil, support.ErrConflict},
		{"ClosedTags", closed, support.UpdateTicketInput{Tags: &[]string{"new"}}, nil, support.ErrConflict},
		{"ClosedReopen", closed, support.UpdateTicketInput{Status: ptr("open")}, nil, support.ErrConflict},
		{"NotFound", tk, support.UpdateTicketInput{Priority: ptr("low")}, nil, support.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tenant, ticketID := unitTenant, tt.ticket.ID
			if tt.name == "NotFound" {
				tenant = "ten_other"
			}
			_, err := u.svc.Update(ctx, tenant, ticketID, tt.in)
			if tt.wantFields != nil {
				fields := fieldErrors(t, err)
				for _, f := range tt.wantFields {
					if fields[f] == "" {
						t.Errorf("field errors %v lack %q", fields, f)
					}
				}
			} else if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Update = %v, want %v", err, tt.wantErr)
			}
			if errors.Is(err, support.ErrConflict) && currentStatus(err) != string(tt.ticket.Status) {
				t.Errorf("conflict reports status %q, want %q", currentStatus(err), tt.ticket.Status)
			}
			stored, _ := u.store.Ticket(ctx, unitTenant, ticketID)
			if !reflect.DeepEqual(stored, tt.ticket) {
				t.Errorf("after a refused update the ticket is\n%+v\nwant\n%+v", stored, tt.ticket)
			}
		})
	}
	t.Run("ModuleDisabled", func(t *testing.T) {
		u.ent.setModule(catalog.ModuleTickets, false)
		defer u.ent.setModule(catalog.ModuleTickets, true)
		if _, err := u.svc.Update(ctx, unitTenant, tk.ID, support.UpdateTicketInput{Priority: ptr("low")}); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Fatalf("Update with support.tickets off = %v, want ErrModuleDisabled", err)
		}
	})
}
