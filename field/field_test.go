package field_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/field"
)

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		collect func(f field.Errors)
		want    []field.Error // nil: no error
	}{
		{"None", func(field.Errors) {}, nil},
		{"InOrderFound", func(f field.Errors) {
			f.Required("subject")
			f.Add("description", field.TooLong, "must have at most 10000 characters")
			f.Add("line_items[0].quantity", field.OutOfRange, "must be between 1 and 1000000")
			f.Add("priority", field.Invalid, "must be one of: low, high")
			f.Add("tags", field.TooMany, "must have at most 10 items")
			f.Addf("metadata", field.TooLong, "key %q: must have at most %d characters", "k", 40)
		}, []field.Error{
			{Field: "subject", Code: "required", Message: "is required"},
			{Field: "description", Code: "too_long", Message: "must have at most 10000 characters"},
			{Field: "line_items[0].quantity", Code: "out_of_range", Message: "must be between 1 and 1000000"},
			{Field: "priority", Code: "invalid", Message: "must be one of: low, high"},
			{Field: "tags", Code: "too_many", Message: "must have at most 10 items"},
			{Field: "metadata", Code: "too_long", Message: `key "k": must have at most 40 characters`},
		}},
		{"FirstPerFieldWins", func(f field.Errors) {
			f.Required("name")
			f.Add("name", field.TooLong, "must have at most 200 characters")
			f.Required("email")
		}, []field.Error{
			{Field: "name", Code: "required", Message: "is required"},
			{Field: "email", Code: "required", Message: "is required"},
		}},
		{"SharedByCopies", func(f field.Errors) {
			addTo := func(g field.Errors) { g.Required("currency") }
			addTo(f)
		}, []field.Error{{Field: "currency", Code: "required", Message: "is required"}}},
		{"MergeKeepsCodesAndOrder", func(f field.Errors) {
			f.Required("name")
			inner := field.Errors{}
			inner.Add("currency", field.Invalid, "must be a three-letter ISO 4217 currency code such as USD")
			inner.Required("name") // name has an error already
			f.Merge(fmt.Errorf("billing: lookup: %w", inner.Err()))
			f.Merge(errors.New("not a validation error"))
		}, []field.Error{
			{Field: "name", Code: "required", Message: "is required"},
			{Field: "currency", Code: "invalid", Message: "must be a three-letter ISO 4217 currency code such as USD"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := field.Errors{}
			tt.collect(f)
			err := f.Err()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				if f.InvalidError() != nil {
					t.Fatal("InvalidError() is not nil")
				}
				return
			}
			var ie *field.InvalidError
			if !errors.As(err, &ie) || !errors.Is(err, field.ErrInvalid) {
				t.Fatalf("Err() = %v, want an *InvalidError matching ErrInvalid", err)
			}
			if got := ie.Errors(); !slices.Equal(got, tt.want) {
				t.Errorf("Errors() =\n%+v\nwant\n%+v", got, tt.want)
			}
			for _, fe := range tt.want {
				if ie.Fields[fe.Field] != fe.Message {
					t.Errorf("Fields[%q] = %q, want %q", fe.Field, ie.Fields[fe.Field], fe.Message)
				}
			}
			if len(ie.Fields) != len(tt.want) {
				t.Errorf("Fields = %v, want %d entries", ie.Fields, len(tt.want))
			}
		})
	}
}

func TestInvalidError(t *testing.T) {
	tests := []struct {
		name      string
		err       *field.InvalidError
		wantErrs  []field.Error
		wantError string
	}{
		{
			name:      "Literal",
			err:       &field.InvalidError{Fields: map[string]string{"tags[1]": "is bad", "plan_id": `unknown plan "gold"`}},
			wantErrs:  []field.Error{{Field: "plan_id", Code: "invalid", Message: `unknown plan "gold"`}, {Field: "tags[1]", Code: "invalid", Message: "is bad"}},
			wantError: `invalid input: plan_id: unknown plan "gold"; tags[1]: is bad;`,
		},
		{
			name:      "New",
			err:       field.NewInvalidError("amount", field.OutOfRange, "must be between 1 and 10"),
			wantErrs:  []field.Error{{Field: "amount", Code: "out_of_range", Message: "must be between 1 and 10"}},
			wantError: "invalid input: amount: must be between 1 and 10;",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Errors(); !slices.Equal(got, tt.wantErrs) {
				t.Errorf("Errors() = %+v, want %+v", got, tt.wantErrs)
			}
			if got := tt.err.Error(); got != tt.wantError {
				t.Errorf("Error() = %q, want %q", got, tt.wantError)
			}
			if !errors.Is(fmt.Errorf("ctx: %w", tt.err), field.ErrInvalid) {
				t.Error("does not match ErrInvalid")
			}
			if got := tt.err.FieldErrors(); len(got) != len(tt.wantErrs) {
				t.Errorf("FieldErrors() = %v", got)
			}
		})
	}
	// Errors returns a copy: changing it leaves the error as it was.
	ie := field.NewInvalidError("a", field.Required, "is required")
	ie.Errors()[0].Code = "changed"
	if ie.Errors()[0].Code != field.Required {
		t.Error("Errors() shares its slice with the error")
	}
}
