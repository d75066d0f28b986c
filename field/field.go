// Package field is the one vocabulary of refused input shared by every
// tenantkit domain and the HTTP edge: an Error names a field, the rule it
// broke (a code from the list below) and a message for people; an
// *InvalidError carries them all, in the order they were found.
//
// Input rules are declared once, as `validate` tags on the input types
// (validator/v10's rules and tenantkit's own, rules.go); Check turns what
// they refuse into an *InvalidError. The domains add the rules that need
// state and answer the same type (billing.InvalidError, support.InvalidError
// and tenancy.InvalidError are this type); httpapi turns it into a 422 whose
// errors[] are these Errors. The package imports no tenantkit domain, so
// every package may use it, and hosts may match it with errors.As:
//
//	var ie *field.InvalidError
//	if errors.As(err, &ie) {
//		for _, fe := range ie.Errors() { … fe.Field, fe.Code, fe.Message … }
//	}
package field

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Codes of the rules a field can break. A client may branch on them; a
// code once published keeps its meaning. The same rule has the same code
// wherever it is checked.
const (
	// Required: the field is missing, empty or blank.
	Required = "required"
	// TooLong: text over its most characters (Unicode code points).
	TooLong = "too_long"
	// TooMany: a list or object with more items than allowed.
	TooMany = "too_many"
	// OutOfRange: a number outside its bounds.
	OutOfRange = "out_of_range"
	// Invalid: not an accepted value (one of a list, an existing plan, …)
	// or not in the accepted form (an email address, a date, an id).
	Invalid = "invalid"
	// InvalidUTF8: text that is not valid UTF-8.
	InvalidUTF8 = "invalid_utf8"
	// NulByte: text holding NUL (U+0000), which no field may hold.
	NulByte = "nul_byte"
	// ControlCharacter: text holding a control character the field does
	// not take (most take none; long text takes tab and line breaks).
	ControlCharacter = "control_character"
)

// Error is one field that broke one rule.
type Error struct {
	// Field locates the value: a JSON path ("line_items[0].quantity",
	// "customer.email"), a query parameter or a header name.
	Field string `json:"field"`
	// Code names the rule: Required, TooLong, … (the constants above), or
	// one of the HTTP edge's own ("unknown_field", "invalid_type", …).
	Code string `json:"code"`
	// Message says what is wrong for people. It is usually written to
	// follow the field's name ("must have at most 200 characters"), else
	// it is a sentence of its own (`unknown plan "gold"`).
	Message string `json:"message"`
}

// ErrInvalid is what every *InvalidError matches with errors.Is; the
// domains' ErrInvalid are this error.
var ErrInvalid = errors.New("invalid input")

// InvalidError says that input failed validation, field by field. It
// matches ErrInvalid with errors.Is.
//
// Errors and NewInvalidError make it with codes, in the order the fields
// were checked. It may also be written as a literal, &InvalidError{Fields:
// …}, whose fields then all have code Invalid and come in path order.
// Treat it as read-only once made.
type InvalidError struct {
	// Fields maps each refused field to its message (Error.Message).
	Fields map[string]string

	// errs is Fields with codes, in the order found; nil for a literal.
	errs []Error
}

// NewInvalidError returns an *InvalidError about one field.
func NewInvalidError(path, code, message string) *InvalidError {
	return &InvalidError{
		Fields: map[string]string{path: message},
		errs:   []Error{{Field: path, Code: code, Message: message}},
	}
}

// Errors returns the refused fields with their codes and messages, in the
// order they were found (path order for a literal).
func (e *InvalidError) Errors() []Error {
	if e.errs != nil {
		return slices.Clone(e.errs)
	}
	out := make([]Error, 0, len(e.Fields))
	for path, msg := range e.Fields {
		out = append(out, Error{Field: path, Code: Invalid, Message: msg})
	}
	slices.SortFunc(out, func(a, b Error) int { return cmp.Compare(a.Field, b.Field) })
	return out
}

// Error implements error: "invalid input: subject: is required; …".
func (e *InvalidError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalid.Error() + ":")
	for _, fe := range e.Errors() {
		b.WriteString(" " + fe.Field + ": " + fe.Message + ";")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// FieldErrors returns Fields: field → message.
func (e *InvalidError) FieldErrors() map[string]string { return e.Fields }

// Errors collects the fields that break a rule while an input is checked.
// The first error of a field is kept and later ones are dropped, so check
// the rules of a field from the most basic on. Make it with Errors{}; a
// copy shares its contents, as a map does.
type Errors map[string]found

// found is an Error with its place in the order of an Errors.
type found struct {
	Error
	seq int
}

// Add records that path broke the rule code, unless path has an error
// already.
func (l Errors) Add(path, code, message string) {
	if _, ok := l[path]; !ok {
		l[path] = found{Error{Field: path, Code: code, Message: message}, len(l)}
	}
}

// Addf is Add with a formatted message.
func (l Errors) Addf(path, code, format string, args ...any) {
	l.Add(path, code, fmt.Sprintf(format, args...))
}

// Required records that path is missing: "is required".
func (l Errors) Required(path string) { l.Add(path, Required, "is required") }

// Merge adds the fields of the *InvalidError in err's chain, if any, with
// their codes.
func (l Errors) Merge(err error) {
	var ie *InvalidError
	if errors.As(err, &ie) {
		for _, fe := range ie.Errors() {
			l.Add(fe.Field, fe.Code, fe.Message)
		}
	}
}

// Err returns the collected errors as an *InvalidError, or nil when there
// are none (an untyped nil, so that err != nil means a failure).
func (l Errors) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l.InvalidError()
}

// InvalidError returns the collected errors as an *InvalidError, or nil
// when there are none.
func (l Errors) InvalidError() *InvalidError {
	if len(l) == 0 {
		return nil
	}
	errs := make([]Error, len(l))
	fields := make(map[string]string, len(l))
	for path, f := range l {
		errs[f.seq] = f.Error
		fields[path] = f.Message
	}
	return &InvalidError{Fields: fields, errs: errs}
}

// Truncate shortens s to at most n characters, marking the cut with "…",
// for quoting client text in messages.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
