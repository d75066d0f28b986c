package support

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of a ticket's text, in characters (Unicode code points, as the
// HTTP layer's validator counts them).
const (
	MaxSubjectLen     = 200
	MaxDescriptionLen = 10000
	// MaxRefLen bounds the ids of requesters and assignees; tenantkit's own
	// are 30 characters, a host's may be longer.
	MaxRefLen = 64
	// MaxEmailLen and MaxNameLen bound the requester snapshot.
	MaxEmailLen = 254
	MaxNameLen  = 200
)

// CreateTicketInput is what a requester sends to open a ticket. The
// validate tags state the shape rules for the HTTP layer's validator
// (go-playground/validator/v10); Service.Create checks the same rules and
// more (control characters, tag normalisation) whoever calls it.
type CreateTicketInput struct {
	// Subject is one line, 1-200 characters once trimmed.
	Subject string `json:"subject" validate:"required,max=200"`
	// Description is 1-10000 characters, kept as written (line breaks and
	// indentation matter in pasted logs).
	Description string `json:"description" validate:"required,max=10000"`
	// Priority is one of Priorities; empty means DefaultPriority.
	Priority string `json:"priority,omitempty" validate:"omitempty,oneof=low normal high urgent"`
	// Tags are at most 10 labels, normalised by NormalizeTag and
	// de-duplicated keeping their order.
	Tags []string `json:"tags,omitempty" validate:"max=10,dive,required,max=32"`
}

// ticketFields is a CreateTicketInput that passed validation, normalised.
type ticketFields struct {
	subject, description string
	priority             Priority
	requester            Requester
	tags                 []string
}

// validateCreate checks every field of a new ticket and returns it
// normalised, or an *InvalidError listing every failure at once.
func validateCreate(req Requester, in CreateTicketInput) (ticketFields, error) {
	errs := fieldErrors{}
	f := ticketFields{
		subject:     strings.TrimSpace(in.Subject),
		description: in.Description,
		priority:    DefaultPriority,
	}
	checkText(errs, "subject", f.subject, MaxSubjectLen, false)
	checkText(errs, "description", f.description, MaxDescriptionLen, true)
	if in.Priority != "" {
		f.priority = Priority(in.Priority)
		if !f.priority.Valid() {
			errs.add("priority", "must be one of: "+join(Priorities()))
		}
	}
	f.tags = normalizeTags(in.Tags, errs)
	f.requester = Requester{
		ID:    strings.TrimSpace(req.ID),
		Email: strings.TrimSpace(req.Email),
		Name:  strings.TrimSpace(req.Name),
	}
	checkRef(errs, "requester.id", f.requester.ID)
	checkOptional(errs, "requester.email", f.requester.Email, MaxEmailLen)
	checkOptional(errs, "requester.name", f.requester.Name, MaxNameLen)
	return f, errs.err()
}

// checkText records why s is not acceptable text of 1..max characters:
// valid UTF-8, not blank, no control characters except, when multiline,
// tab and line breaks. Postgres refuses NUL and invalid UTF-8 outright, so
// letting them through would turn a client's mistake into a 500.
func checkText(errs fieldErrors, field, s string, max int, multiline bool) {
	switch {
	case strings.TrimSpace(s) == "":
		errs.add(field, "is required")
	case !utf8.ValidString(s):
		errs.add(field, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		errs.add(field, fmt.Sprintf("must have at most %d characters", max))
	case hasControl(s, multiline):
		if multiline {
			errs.add(field, "must not contain control characters other than tab and line breaks")
		} else {
			errs.add(field, "must be a single line without control characters")
		}
	}
}

// checkRef records why s is not a usable reference to a person: 1..MaxRefLen
// printable characters without spaces.
func checkRef(errs fieldErrors, field, s string) {
	switch {
	case s == "":
		errs.add(field, "is required")
	case !utf8.ValidString(s) || len(s) > MaxRefLen || strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) >= 0:
		errs.add(field, fmt.Sprintf("must be at most %d characters without spaces or control characters", MaxRefLen))
	}
}

// checkOptional records why s, which may be empty, is not a single line of
// at most max characters.
func checkOptional(errs fieldErrors, field, s string, max int) {
	if s != "" {
		checkText(errs, field, s, max, false)
	}
}

// hasControl reports whether s holds a control character; multiline text
// may hold tab, line feed and carriage return.
func hasControl(s string, multiline bool) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		if multiline && (r == '\t' || r == '\n' || r == '\r') {
			return false
		}
		return unicode.IsControl(r)
	}) >= 0
}

// join lists statuses or priorities for a message: "low, normal, high, urgent".
func join[T ~string](xs []T) string {
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = string(x)
	}
	return strings.Join(names, ", ")
}
