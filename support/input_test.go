package support_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/support"
)

func TestCreateValidation(t *testing.T) {
	const (
		required    = "is required"
		oneOf       = "must be one of: low, normal, high, urgent"
		singleLine  = "must be a single line without control characters"
		multiline   = "must not contain control characters other than tab and line breaks"
		badUTF8     = "must be valid UTF-8"
		tagRule     = "must be 1-32 characters of a-z, 0-9, '-' or '_' once trimmed and lower-cased (spaces become '-')"
		refRule     = "must be at most 64 characters without spaces or control characters"
		tooManyTags = "must have at most 10 items"
	)
	tests := []struct {
		name   string
		change func(*support.Requester, *support.CreateTicketInput)
		want   []field.Error // in the order found; nil: valid
	}{
		{"OK", func(*support.Requester, *support.CreateTicketInput) {}, nil},
		{"OKMinimal", func(_ *support.Requester, in *support.CreateTicketInput) {
			*in = support.CreateTicketInput{Subject: "x", Description: "y"}
		}, nil},
		{"OKLongest", func(r *support.Requester, in *support.CreateTicketInput) {
			in.Subject = repeat("é", 200) // characters, not bytes
			in.Description = repeat("ü", 10000)
			in.Tags = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", repeat("j", 32)}
			r.ID = repeat("u", 64)
		}, nil},
		{"OKMultilineDescription", func(_ *support.Requester, in *support.CreateTicketInput) {
			in.Description = "line 1\r\n\tindented\nline 3"
		}, nil},
		{"OKNoRequesterEmailOrName", func(r *support.Requester, _ *support.CreateTicketInput) {
			r.Email, r.Name = "", ""
		}, nil},

		{"ErrSubjectRequired", func(_ *support.Requester, in *support.CreateTicketInput) { in.Subject = "" },
			[]field.Error{fe("subject", field.Required, required)}},
		{"ErrSubjectBlank", func(_ *support.Requester, in *support.CreateTicketInput) { in.Subject = " \t " },
			[]field.Error{fe("subject", field.Required, required)}},
		{"ErrSubjectTooLong", func(_ *support.Requester, in *support.CreateTicketInput) { in.Subject = repeat("é", 201) },
			[]field.Error{fe("subject", field.TooLong, "must have at most 200 characters")}},
		{"ErrSubjectTooLongAndBadUTF8", func(_ *support.Requester, in *support.CreateTicketInput) { in.Subject = repeat("é", 200) + "\xff" },
			[]field.Error{fe("subject", field.TooLong, "must have at most 200 characters")}}, // length is checked first
		{"ErrSubjectMultiline", func(_ *support.Requester, in *support.CreateTicketInput) { in.Subject = "one\ntwo" },
			[]field.Error{fe("subject", field.ControlCharacter, singleLine)}},
		{"ErrSubjectBadUTF8", func(_ *support.Requester, in *support.CreateTicketInput) { in.Subject = "bad \xff" },
			[]field.Error{fe("subject", field.InvalidUTF8, badUTF8)}},
		{"ErrDescriptionRequired", func(_ *support.Requester, in *support.CreateTicketInput) { in.Description = "\n\n" },
			[]field.Error{fe("description", field.Required, required)}},
		{"ErrDescriptionTooLong", func(_ *support.Requester, in *support.CreateTicketInput) { in.Description = repeat("a", 10001) },
			[]field.Error{fe("description", field.TooLong, "must have at most 10000 characters")}},
		{"ErrDescriptionNUL", func(_ *support.Requester, in *support.CreateTicketInput) { in.Description = "a\x00b" },
			[]field.Error{fe("description", field.NulByte, "must not contain NUL (U+0000)")}},
		{"ErrDescriptionEscape", func(_ *support.Requester, in *support.CreateTicketInput) { in.Description = "red \x1b[31m" },
			[]field.Error{fe("description", field.ControlCharacter, multiline)}},
		{"ErrPriorityUnknown", func(_ *support.Requester, in *support.CreateTicketInput) { in.Priority = "asap" },
			[]field.Error{fe("priority", field.Invalid, oneOf)}},
		{"ErrPriorityCase", func(_ *support.Requester, in *support.CreateTicketInput) { in.Priority = "HIGH" },
			[]field.Error{fe("priority", field.Invalid, oneOf)}},
		{"ErrTooManyTags", func(_ *support.Requester, in *support.CreateTicketInput) {
			in.Tags = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
		}, []field.Error{fe("tags", field.TooMany, tooManyTags)}},
		{"ErrTooManyTagsBeforeDedup", func(_ *support.Requester, in *support.CreateTicketInput) {
			in.Tags = slices.Repeat([]string{"a"}, 11)
		}, []field.Error{fe("tags", field.TooMany, tooManyTags)}},
		{"ErrTagEmpty", func(_ *support.Requester, in *support.CreateTicketInput) { in.Tags = []string{"ok", "  "} },
			[]field.Error{fe("tags[1]", field.Invalid, tagRule)}},
		{"ErrTagTooLong", func(_ *support.Requester, in *support.CreateTicketInput) { in.Tags = []string{repeat("a", 33)} },
			[]field.Error{fe("tags[0]", field.TooLong, "must have at most 32 characters")}},
		{"ErrTagEmpty", func(_ *support.Requester, in *support.CreateTicketInput) { in.Tags = []string{"ok", ""} },
			[]field.Error{fe("tags[1]", field.Required, required)}},
		{"ErrTagChars", func(_ *support.Requester, in *support.CreateTicketInput) { in.Tags = []string{"ok", "c++", "café"} },
			[]field.Error{fe("tags[1]", field.Invalid, tagRule), fe("tags[2]", field.Invalid, tagRule)}},
		{"ErrRequesterIDRequired", func(r *support.Requester, _ *support.CreateTicketInput) { r.ID = "" },
			[]field.Error{fe("requester.id", field.Required, required)}},
		{"ErrRequesterIDSpace", func(r *support.Requester, _ *support.CreateTicketInput) { r.ID = "usr 1" },
			[]field.Error{fe("requester.id", field.Invalid, refRule)}},
		{"ErrRequesterIDTooLong", func(r *support.Requester, _ *support.CreateTicketInput) { r.ID = repeat("u", 65) },
			[]field.Error{fe("requester.id", field.Invalid, refRule)}},
		{"ErrRequesterEmailTooLong", func(r *support.Requester, _ *support.CreateTicketInput) { r.Email = repeat("a", 250) + "@x.io" },
			[]field.Error{fe("requester.email", field.TooLong, "must have at most 254 characters")}},
		{"ErrRequesterNameTooLong", func(r *support.Requester, _ *support.CreateTicketInput) { r.Name = repeat("é", 201) },
			[]field.Error{fe("requester.name", field.TooLong, "must have at most 200 characters")}},
		{"ErrRequesterNameControl", func(r *support.Requester, _ *support.CreateTicketInput) { r.Name = "Ana\x1b[31m" },
			[]field.Error{fe("requester.name", field.ControlCharacter, singleLine)}},
		{"ErrEverything", func(r *support.Requester, in *support.CreateTicketInput) {
			*in = support.CreateTicketInput{Priority: "p0", Tags: []string{"#1"}}
			r.ID = ""
		}, []field.Error{fe("subject", field.Required, required), fe("description", field.Required, required), fe("priority", field.Invalid, oneOf), fe("tags[0]", field.Invalid, tagRule), fe("requester.id", field.Required, required)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUnit(t)
			req, in := requester(), validInput()
			tt.change(&req, &in)
			_, err := u.svc.Create(context.Background(), unitTenant, req, in)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Create = %v, want nil", err)
				}
				return
			}
			if got := codedErrors(t, err); !slices.Equal(got, tt.want) {
				t.Fatalf("field errors:\n got %+v\nwant %+v", got, tt.want)
			}
			if u.ent.used != 0 {
				t.Errorf("invalid input consumed %d of the allowance, want 0", u.ent.used)
			}
			if ts, _, _ := u.store.ListTickets(context.Background(), unitTenant, support.ListFilter{Limit: 10}); len(ts) != 0 {
				t.Errorf("invalid input stored %d tickets, want 0", len(ts))
			}
		})
	}
}

func TestCreateNormalises(t *testing.T) {
	u := newUnit(t)
	req := support.Requester{ID: " usr_1 ", Email: " ana@example.com ", Name: " Ana "}
	in := support.CreateTicketInput{
		Subject:     "  Export fails  ",
		Description: "  keep my\n  indentation  ",
		Tags:        []string{"Export", " billing  issue ", "export", "EXPORT", "billing-issue", "a_b"},
	}
	got, err := u.svc.Create(context.Background(), unitTenant, req, in)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if want := "Export fails"; got.Subject != want {
		t.Errorf("Subject = %q, want %q", got.Subject, want)
	}
	if got.Description != in.Description {
		t.Errorf("Description = %q, want it verbatim: %q", got.Description, in.Description)
	}
	if want := []string{"export", "billing-issue", "a_b"}; !slices.Equal(got.Tags, want) {
		t.Errorf("Tags = %q, want %q", got.Tags, want)
	}
	if want := (support.Requester{ID: "usr_1", Email: "ana@example.com", Name: "Ana"}); got.Requester != want {
		t.Errorf("Requester = %+v, want %+v", got.Requester, want)
	}
	if got.Priority != support.PriorityNormal {
		t.Errorf("Priority = %q, want the default %q", got.Priority, support.PriorityNormal)
	}
}

// fe is a field.Error, for tables.
func fe(path, code, message string) field.Error {
	return field.Error{Field: path, Code: code, Message: message}
}

// codedErrors returns the field errors of err in the order found, failing
// unless err is a *support.InvalidError that matches support.ErrInvalid.
func codedErrors(tb testing.TB, err error) []field.Error {
	tb.Helper()
	var ie *support.InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, support.ErrInvalid) {
		tb.Fatalf("error = %v, want a *support.InvalidError", err)
	}
	return ie.Errors()
}
