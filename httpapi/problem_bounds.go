package httpapi

import (
	"unicode/utf8"

	"github.com/tenantkit/tenantkit/field"
)

// Bounds of a problem document. A detail or a field error may quote what
// the client sent (the name of an unknown parameter, a value that does not
// parse), and no request may make its answer grow without limit;
// httpapi/openapi.json states the same bounds (Problem, FieldError).
const (
	maxProblemDetail   = 2000 // characters of detail
	maxProblemErrors   = 1000 // entries of errors
	maxFieldPathLen    = 256  // characters of a field error's field
	maxFieldMessageLen = 1000 // characters of a field error's message
)

// bound holds p's detail and field errors to the bounds above, cutting
// what is longer with "…". It modifies p.Errors in place: call it on the
// copy writeProblem owns.
func (p *Problem) bound() {
	p.Detail = clip(p.Detail, maxProblemDetail)
	if len(p.Errors) > maxProblemErrors {
		p.Errors = p.Errors[:maxProblemErrors]
	}
	for i := range p.Errors {
		p.Errors[i].Field = clip(p.Errors[i].Field, maxFieldPathLen)
		p.Errors[i].Message = clip(p.Errors[i].Message, maxFieldMessageLen)
	}
}

// clip returns s when it has at most n characters, else its first n-1 and
// "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return field.Truncate(s, n-1)
}
