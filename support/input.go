package support

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenantkit/tenantkit/field"
)

// Bounds of a ticket's text, in characters (Unicode code points).
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

// CreateTicketInput is what a requester sends to open a ticket: the body
// of POST /api/tickets, decoded as is. Service.Create checks every field
// (validateCreate is the one place its rules live) and answers an
// *InvalidError naming each field by its JSON path.
type CreateTicketInput struct {
	// Subject is one line, 1..MaxSubjectLen characters once trimmed.
	Subject string `json:"subject"`
	// Description is 1..MaxDescriptionLen characters, kept as written
	// (line breaks and indentation matter in pasted logs).
	Description string `json:"description"`
	// Priority is one of Priorities; empty means DefaultPriority.
	Priority string `json:"priority,omitempty"`
	// Tags are at most MaxTags labels, normalised by NormalizeTag and
	// de-duplicated keeping their order.
	Tags []string `json:"tags,omitempty"`
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
	errs := field.Errors{}
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
			errs.OneOf("priority", names(Priorities())...)
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
	return f, errs.Err()
}

// checkText records why s is not acceptable text of 1..max characters:
// valid UTF-8, not blank, no control characters except, when multiline,
// tab and line breaks. Postgres refuses NUL and invalid UTF-8 outright, so
// letting them through would turn a client's mistake into a 500.
func checkText(errs field.Errors, path, s string, max int, multiline bool) {
	switch {
	case strings.TrimSpace(s) == "":
		errs.Required(path)
	case !utf8.ValidString(s):
		errs.Add(path, field.InvalidUTF8, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		errs.TooLong(path, max)
	case strings.IndexByte(s, 0) >= 0:
		errs.Add(path, field.NulByte, "must not contain NUL (U+0000)")
	case hasControl(s, multiline) && multiline:
		errs.Add(path, field.ControlCharacter, "must not contain control characters other than tab and line breaks")
	case hasControl(s, multiline):
		errs.Add(path, field.ControlCharacter, "must be a single line without control characters")
	}
}

// checkRef records why s is not a usable reference to a person: 1..MaxRefLen
// printable characters without spaces.
func checkRef(errs field.Errors, path, s string) {
	switch {
	case s == "":
		errs.Required(path)
	case !utf8.ValidString(s) || len(s) > MaxRefLen || strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) >= 0:
		errs.Addf(path, field.Invalid, "must be at most %d characters without spaces or control characters", MaxRefLen)
	}
}

// checkOptional records why s, which may be empty, is not a single line of
// at most max characters.
func checkOptional(errs field.Errors, path, s string, max int) {
	if s != "" {
		checkText(errs, path, s, max, false)
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
func join[T ~string](xs []T) string { return strings.Join(names(xs), ", ") }

// names returns statuses or priorities as strings.
func names[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
