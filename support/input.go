package support

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenantkit/tenantkit/field"
)

// MaxRefLen bounds the ids of requesters, authors and assignees, in
// bytes; tenantkit's own are 30 characters, a host's may be longer. The
// rule is checkRef's, not a tag's: its one code (invalid) covers every way
// an id can be malformed.
const MaxRefLen = 64

// CreateTicketInput is what a requester sends to open a ticket: the body
// of POST /api/tickets, decoded as is. Service.Create checks its tags once
// the subject is trimmed, then each tag with NormalizeTag, and reports
// every failure by its JSON path.
type CreateTicketInput struct {
	// Subject is one line, trimmed before it is checked and kept.
	Subject string `json:"subject" validate:"required,max=200,line"`
	// Description is kept as written (line breaks and indentation matter
	// in pasted logs); a blank one counts as missing.
	Description string `json:"description" validate:"required,max=10000,text"`
	// Priority is one of Priorities; empty means DefaultPriority.
	Priority string `json:"priority,omitempty" validate:"omitempty,oneof=low normal high urgent"`
	// Tags are labels, normalised by NormalizeTag and de-duplicated
	// keeping their order. They are counted as sent, so that eleven copies
	// of one tag are too many even though one would remain.
	Tags []string `json:"tags,omitempty" validate:"max=10,dive,required,max=32"`
}

// newTicket checks a new ticket of requester req and returns its fields
// from the input, normalised, or an *InvalidError listing every failure at
// once.
func newTicket(req Requester, in CreateTicketInput) (Ticket, error) {
	t := Ticket{
		Subject:     strings.TrimSpace(in.Subject),
		Description: in.Description,
		Priority:    DefaultPriority,
		Requester: Requester{
			ID:    strings.TrimSpace(req.ID),
			Email: strings.TrimSpace(req.Email),
			Name:  strings.TrimSpace(req.Name),
		},
	}
	in.Subject, in.Description = t.Subject, unlessBlank(in.Description)
	errs := field.Errors{}
	errs.Merge(field.Check(in))
	t.Tags = normalizeTags(in.Tags, errs)
	checkRef(errs, "requester.id", t.Requester.ID)
	checkUnder(errs, "requester", t.Requester)
	if in.Priority != "" {
		t.Priority = Priority(in.Priority)
	}
	return t, errs.Err()
}

// unlessBlank returns s, or "" when s is only white space, so that a
// `required` tag refuses blank text that is kept as written.
func unlessBlank(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// checkUnder records in errs what field.Check finds in v, a part of the
// input named prefix ("requester"), under paths such as "requester.email".
func checkUnder(errs field.Errors, prefix string, v any) {
	var ie *field.InvalidError
	if errors.As(field.Check(v), &ie) {
		for _, fe := range ie.Errors() {
			errs.Add(prefix+"."+fe.Field, fe.Code, fe.Message)
		}
	}
}

// checkRef records why s is not a usable reference to a person: 1..MaxRefLen
// bytes of valid UTF-8 without spaces or control characters. The ids are
// the host's (agents) or the caller's (requesters), so no tag's id shape
// applies.
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

// join lists statuses or priorities for a message: "low, normal, high, urgent".
func join[T ~string](xs []T) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return strings.Join(out, ", ")
}
