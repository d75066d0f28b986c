package support_test

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/tenantkit/tenantkit/support"
)

// validateTag returns the `validate` struct tag of a CreateTicketInput field.
func validateTag(tb testing.TB, field string) string {
	tb.Helper()
	f, ok := reflect.TypeFor[support.CreateTicketInput]().FieldByName(field)
	if !ok {
		tb.Fatalf("CreateTicketInput has no field %s", field)
	}
	return f.Tag.Get("validate")
}

// shapeErrors runs the HTTP layer's validator over in, configured as
// httpapi configures it (fields named by their JSON names), and returns
// the paths of the fields it refuses.
func shapeErrors(tb testing.TB, in support.CreateTicketInput) []string {
	tb.Helper()
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	err := v.Struct(in)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		tb.Fatalf("validator: %v", err)
	}
	var out []string
	for _, fe := range verrs {
		_, path, _ := strings.Cut(fe.Namespace(), ".")
		out = append(out, path)
	}
	slices.Sort(out)
	return out
}

// TestValidateTagsAgreeWithService checks that the shape rules a handler
// applies first flag the same fields as the service, for every input the
// shape rules can judge. (The service refuses more: control characters,
// tags that do not normalise.)
func TestValidateTagsAgreeWithService(t *testing.T) {
	tests := []struct {
		name   string
		change func(*support.CreateTicketInput)
	}{
		{"OK", func(*support.CreateTicketInput) {}},
		{"NoPriority", func(in *support.CreateTicketInput) { in.Priority = "" }},
		{"NoTags", func(in *support.CreateTicketInput) { in.Tags = nil }},
		{"SubjectMissing", func(in *support.CreateTicketInput) { in.Subject = "" }},
		{"SubjectLongest", func(in *support.CreateTicketInput) { in.Subject = repeat("é", 200) }},
		{"SubjectTooLong", func(in *support.CreateTicketInput) { in.Subject = repeat("é", 201) }},
		{"DescriptionMissing", func(in *support.CreateTicketInput) { in.Description = "" }},
		{"DescriptionTooLong", func(in *support.CreateTicketInput) { in.Description = repeat("a", 10001) }},
		{"PriorityUnknown", func(in *support.CreateTicketInput) { in.Priority = "asap" }},
		{"TooManyTags", func(in *support.CreateTicketInput) { in.Tags = slices.Repeat([]string{"a"}, 11) }},
		{"TagEmpty", func(in *support.CreateTicketInput) { in.Tags = []string{"a", ""} }},
		{"TagTooLong", func(in *support.CreateTicketInput) { in.Tags = []string{repeat("a", 33)} }},
		{"Several", func(in *support.CreateTicketInput) { *in = support.CreateTicketInput{Priority: "x"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validInput()
			tt.change(&in)
			shape := shapeErrors(t, in)

			u := newUnit(t)
			_, err := u.svc.Create(context.Background(), unitTenant, requester(), in)
			var service []string
			if err != nil {
				service = slices.Sorted(maps.Keys(fieldErrors(t, err)))
			}
			if !slices.Equal(shape, service) {
				t.Fatalf("validator flags %v, service flags %v; want the same fields", shape, service)
			}
		})
	}
}
