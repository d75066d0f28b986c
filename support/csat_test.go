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

// asRequester is the ticket's own requester, with the least role.
func asRequester() support.Rater {
	return support.Rater{UserID: requester().ID, Role: tenancy.RoleMember}
}

func TestRate(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())
	mustTransition(t, u.svc, unitTenant, tk.ID, support.StatusSolved)
	u.clock.Advance(time.Hour)

	got, err := u.svc.Rate(ctx, unitTenant, tk.ID, asRequester(), support.RatingInput{Score: 5, Comment: ptr("Fast and kind.")})
	if err != nil {
		t.Fatalf("Rate: %v", err)
	}
	want := support.Satisfaction{Score: 5, Comment: ptr("Fast and kind."), RatedBy: requester().ID,
		RatedAt: u.clock.Now().UTC().Truncate(time.Microsecond)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Rate = %+v, want %+v", got, want)
	}
	stored, _ := u.svc.Get(ctx, unitTenant, tk.ID)
	if stored.Satisfaction == nil || !reflect.DeepEqual(*stored.Satisfaction, want) || !stored.UpdatedAt.Equal(want.RatedAt) {
		t.Errorf("ticket after Rate: satisfaction %+v, updated %v; want %+v", stored.Satisfaction, stored.UpdatedAt, want)
	}
	_, err = u.svc.Rate(ctx, unitTenant, tk.ID, asRequester(), support.RatingInput{Score: 1})
	if !errors.Is(err, support.ErrConflict) || currentStatus(err) != "solved" {
		t.Errorf("second Rate = %v, want ErrConflict with status solved", err)
	}
	// Reopened, the ticket keeps its one rating.
	mustTransition(t, u.svc, unitTenant, tk.ID, support.StatusOpen)
	if stored, _ := u.svc.Get(ctx, unitTenant, tk.ID); stored.Satisfaction == nil || stored.Satisfaction.Score != 5 {
		t.Errorf("reopened ticket's satisfaction = %+v, want the rating kept", stored.Satisfaction)
	}
}

// TestRateRefusals: each refusal changes nothing.
func TestRateRefusals(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	solved := mustCreate(t, u.svc, unitTenant, validInput())
	solved = mustTransition(t, u.svc, unitTenant, solved.ID, support.StatusSolved)
	tests := []struct {
		name       string
		status     support.Status // of the ticket rated; "" = solved
		by         support.Rater
		in         support.RatingInput
		wantFields []string
		wantErr    error
	}{
		{"ScoreZero", "", asRequester(), support.RatingInput{Score: 0}, []string{"score"}, nil},
		{"ScoreSix", "", asRequester(), support.RatingInput{Score: 6}, []string{"score"}, nil},
		{"ScoreNegative", "", asRequester(), support.RatingInput{Score: -1}, []string{"score"}, nil},
		{"CommentTooLong", "", asRequester(), support.RatingInput{Score: 3, Comment: ptr(strings.Repeat("x", support.MaxRatingCommentLen+1))}, []string{"comment"}, nil},
		{"CommentNul", "", asRequester(), support.RatingInput{Score: 0, Comment: ptr("a\x00")}, []string{"score", "comment"}, nil},
		{"OtherMember", "", support.Rater{UserID: "usr_other", Role: tenancy.RoleMember}, support.RatingInput{Score: 3}, nil, support.ErrForbidden},
		{"OtherBilling", "", support.Rater{UserID: "usr_other", Role: tenancy.RoleBilling}, support.RatingInput{Score: 3}, nil, support.ErrForbidden},
		{"Open", support.StatusOpen, asRequester(), support.RatingInput{Score: 3}, nil, support.ErrConflict},
		{"Pending", support.StatusPending, asRequester(), support.RatingInput{Score: 3}, nil, support.ErrConflict},
		{"Closed", support.StatusClosed, asRequester(), support.RatingInput{Score: 3}, nil, support.ErrConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := solved
			if tt.status != "" {
				tk = setStatus(t, u, mustCreate(t, u.svc, unitTenant, validInput()).ID, tt.status)
			}
			_, err := u.svc.Rate(ctx, unitTenant, tk.ID, tt.by, tt.in)
			if tt.wantFields != nil {
				fields := fieldErrors(t, err)
				if len(fields) != len(tt.wantFields) {
					t.Errorf("field errors %v, want exactly %v", fields, tt.wantFields)
				}
				for _, f := range tt.wantFields {
					if fields[f] == "" {
						t.Errorf("field errors %v lack %q", fields, f)
					}
				}
			} else if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Rate = %v, want %v", err, tt.wantErr)
			}
			if errors.Is(err, support.ErrConflict) && currentStatus(err) != string(tt.status) {
				t.Errorf("conflict reports %q, want %q", currentStatus(err), tt.status)
			}
			if stored, _ := u.store.Ticket(ctx, unitTenant, tk.ID); !reflect.DeepEqual(stored, tk) {
				t.Errorf("after a refused rating the ticket is %+v, want it unchanged", stored)
			}
		})
	}
	t.Run("NotFound", func(t *testing.T) {
		for _, c := range []struct{ tenant, ticket string }{{"ten_other", solved.ID}, {unitTenant, id.New(id.Ticket)}, {unitTenant, "nope"}} {
			if _, err := u.svc.Rate(ctx, c.tenant, c.ticket, asRequester(), support.RatingInput{Score: 3}); !errors.Is(err, support.ErrNotFound) {
				t.Errorf("Rate(%s, %s) = %v, want ErrNotFound", c.tenant, c.ticket, err)
			}
		}
	})
	t.Run("Modules", func(t *testing.T) {
		for _, m := range []string{catalog.ModuleCSAT, catalog.ModuleTickets} {
			u.ent.setModule(m, false)
			if _, err := u.svc.Rate(ctx, unitTenant, solved.ID, asRequester(), support.RatingInput{Score: 3}); !errors.Is(err, tenancy.ErrModuleDisabled) {
				t.Errorf("Rate with %s off = %v, want ErrModuleDisabled", m, err)
			}
			u.ent.setModule(m, true)
		}
	})
	t.Run("OwnerAndAdminRateAnyTicket", func(t *testing.T) {
		for _, role := range []tenancy.Role{tenancy.RoleOwner, tenancy.RoleAdmin} {
			tk := mustTransition(t, u.svc, unitTenant, mustCreate(t, u.svc, unitTenant, validInput()).ID, support.StatusSolved)
			got, err := u.svc.Rate(ctx, unitTenant, tk.ID, support.Rater{UserID: "usr_boss", Role: role}, support.RatingInput{Score: 2, Comment: ptr("  ")})
			if err != nil || got.RatedBy != "usr_boss" || got.Comment != nil {
				t.Errorf("Rate as %s = %+v, %v; want rated by usr_boss, no comment (blank is none)", role, got, err)
			}
		}
	})
}
