package support_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/support"
)

// TestEnumTags keeps the oneof tags of the inputs equal to Statuses and
// Priorities, in their order, which is the order of the message.
func TestEnumTags(t *testing.T) {
	want := map[string][]string{"Status": nil, "Priority": nil}
	for _, s := range support.Statuses() {
		want["Status"] = append(want["Status"], string(s))
	}
	for _, p := range support.Priorities() {
		want["Priority"] = append(want["Priority"], string(p))
	}
	checked := 0
	for _, v := range []any{support.CreateTicketInput{}, support.UpdateTicketInput{}, support.ListFilter{}, support.AgentFilter{}, support.AgentChange{}} {
		typ := reflect.TypeOf(v)
		for name, list := range want {
			sf, ok := typ.FieldByName(name)
			if !ok {
				continue
			}
			checked++
			_, oneof, _ := strings.Cut(sf.Tag.Get("validate"), "oneof=")
			if got := strings.Fields(oneof); !slices.Equal(got, list) {
				t.Errorf("%s.%s: oneof %q, want %q", typ.Name(), name, got, list)
			}
		}
	}
	if checked != 9 {
		t.Errorf("checked %d enum fields, want 9", checked)
	}
}

// TestRatingInput checks the bounds of a rating and their messages.
func TestRatingInput(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tests := []struct {
		name string
		in   support.RatingInput
		want []field.Error // nil: rated
	}{
		{"OKLowest", support.RatingInput{Score: support.MinScore}, nil},
		{"OKHighestWithLongestComment", support.RatingInput{Score: support.MaxScore, Comment: ptr(repeat("é", support.MaxRatingCommentLen))}, nil},
		{"OKCommentKeepsLines", support.RatingInput{Score: 3, Comment: ptr("good\r\n\tfast")}, nil},
		{"ErrScoreAbsent", support.RatingInput{}, []field.Error{fe("score", field.OutOfRange, "must be between 1 and 5")}},
		{"ErrScoreSix", support.RatingInput{Score: 6}, []field.Error{fe("score", field.OutOfRange, "must be between 1 and 5")}},
		{"ErrCommentTooLong", support.RatingInput{Score: 3, Comment: ptr(repeat("x", support.MaxRatingCommentLen+1))},
			[]field.Error{fe("comment", field.TooLong, "must have at most 2000 characters")}},
		{"ErrCommentBell", support.RatingInput{Score: 3, Comment: ptr("a\ab")},
			[]field.Error{fe("comment", field.ControlCharacter, "must not contain control characters other than tab and line breaks")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := mustTransition(t, u.svc, unitTenant, mustCreate(t, u.svc, unitTenant, validInput()).ID, support.StatusSolved)
			got, err := u.svc.Rate(ctx, unitTenant, tk.ID, asRequester(), tt.in)
			if tt.want == nil {
				if err != nil || got.Score != tt.in.Score || !reflect.DeepEqual(got.Comment, tt.in.Comment) {
					t.Fatalf("Rate = %+v, %v; want the rating as sent", got, err)
				}
				return
			}
			if got := codedErrors(t, err); !slices.Equal(got, tt.want) {
				t.Fatalf("field errors:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestUpdateInput checks what the tags of UpdateTicketInput refuse: an
// empty string is not an absent field.
func TestUpdateInput(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())
	tests := []struct {
		name string
		in   support.UpdateTicketInput
		want []field.Error // nil: updated
	}{
		{"OKNoTags", support.UpdateTicketInput{Tags: &[]string{}}, nil},
		{"OKEveryField", support.UpdateTicketInput{Status: ptr("pending"), Priority: ptr("low"), Tags: &[]string{"a"}}, nil},
		{"ErrEmptyStatus", support.UpdateTicketInput{Status: ptr("")},
			[]field.Error{fe("status", field.Invalid, "must be one of: open, pending, on_hold, solved, closed")}},
		{"ErrEmptyPriority", support.UpdateTicketInput{Priority: ptr("")},
			[]field.Error{fe("priority", field.Invalid, "must be one of: low, normal, high, urgent")}},
		{"ErrTooManyTagsNoItems", support.UpdateTicketInput{Tags: &[]string{"!", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}},
			[]field.Error{fe("tags", field.TooMany, "must have at most 10 items")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := u.svc.Update(ctx, unitTenant, tk.ID, tt.in)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Update = %v, want nil", err)
				}
				return
			}
			if got := codedErrors(t, err); !slices.Equal(got, tt.want) {
				t.Fatalf("field errors:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestAuthorInput checks the comment's author as the caller gave it.
func TestAuthorInput(t *testing.T) {
	u := newUnit(t)
	tk := mustCreate(t, u.svc, unitTenant, validInput())
	by := requester()
	by.ID, by.Name = "", repeat("a", 201)
	_, err := u.svc.AddComment(context.Background(), unitTenant, tk.ID, by, support.CommentInput{Body: " "})
	want := []field.Error{fe("body", field.Required, "is required"),
		fe("author.id", field.Required, "is required"),
		fe("author.name", field.TooLong, "must have at most 200 characters")}
	if got := codedErrors(t, err); !slices.Equal(got, want) {
		t.Fatalf("field errors:\n got %+v\nwant %+v", got, want)
	}
}

// TestDeskFilter checks the filters of the agents' list, every one at
// once, in the order of AgentFilter's fields.
func TestDeskFilter(t *testing.T) {
	desk := support.NewDesk(newUnit(t).svc, nil) // refused before the store is asked
	_, _, err := desk.Tickets(context.Background(), support.AgentFilter{
		TenantID: "ten_x", Status: "done", Priority: "p1", AssigneeID: "two words", Before: "nope",
	})
	want := []field.Error{
		fe("tenant_id", field.Invalid, "must be an id like ten_ followed by 26 lower-case letters and digits"),
		fe("status", field.Invalid, "must be one of: open, pending, on_hold, solved, closed"),
		fe("priority", field.Invalid, "must be one of: low, normal, high, urgent"),
		fe("assignee", field.Invalid, "must be at most 64 characters without spaces or control characters"),
		fe("cursor", field.Invalid, "must point at a ticket of an earlier page"),
	}
	if got := codedErrors(t, err); !slices.Equal(got, want) {
		t.Fatalf("field errors:\n got %+v\nwant %+v", got, want)
	}
}
