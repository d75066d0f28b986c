package field

import (
	"net/mail"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
	"golang.org/x/text/language"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/internal/iso4217"
)

// tenantkit's own rules, usable in `validate` tags beside validator/v10's
// (required, omitempty, min, max, oneof, datetime, dive, keys, …):
//
//	line      one line of text: valid UTF-8 without NUL or any control
//	          character (names, subjects, references)
//	text      text that may run over lines: as line, but tab, line feed
//	          and carriage return are allowed (memos, descriptions)
//	currency  an upper-case ISO 4217 code of list one with a minor unit
//	id=ten    a tenantkit id with the given prefix (internal/id.Valid)
//	email     a plain address, "ada@example.com": no display name, no
//	          angle brackets, lower case, no control characters
//	token     printable ASCII without spaces (a provider's event id)
//	country   an ISO 3166-1 alpha-2 country code in upper case ("DE")
//	locale    a well-formed BCP 47 language tag ("en", "de-CH", "pt-BR")
//	slug      lower-case letters, digits and inner hyphens, as a DNS label
//	          ("acme", "acme-eu"); its length is max's to bound
//
// A rule says what a value is on its own; none needs the database.
var rules = map[string]rule{
	"line":     {valid: str(func(s string) bool { return textCode(s, false) == "" }), explain: explainText(false)},
	"text":     {valid: str(func(s string) bool { return textCode(s, true) == "" }), explain: explainText(true)},
	"currency": {valid: str(func(s string) bool { return iso4217.Refusal(s) == "" }), explain: explainCurrency},
	"id":       {valid: isID, explain: explainID},
	"email":    {valid: str(isEmail), explain: fixed(Invalid, "must be a valid email address")},
	"token":    {valid: str(isToken), explain: fixed(Invalid, "must be printable ASCII without spaces")},
	"country":  {valid: str(isCountry), explain: fixed(Invalid, "must be an ISO 3166-1 alpha-2 country code in upper case, such as DE")},
	"locale":   {valid: str(isLocale), explain: fixed(Invalid, "must be a BCP 47 language tag such as en or de-CH")},
	"slug":     {valid: str(isSlug), explain: fixed(Invalid, "must be lower-case letters, digits or inner hyphens")},
}

// enums are the values of the rules RegisterEnum made; enumsFrozen is set
// once the validator is made from rules, which is then no longer written.
var (
	enumsMu     sync.Mutex
	enums       = map[string][]string{}
	enumsFrozen bool
)

// rule is one of tenantkit's own rules: the check, and the code and
// message of a value that fails it.
type rule struct {
	valid   validator.Func
	explain func(value any, param string) (code, msg string)
}

// str makes a validator.Func of a check on strings; other kinds fail.
func str(ok func(string) bool) validator.Func {
	return func(fl validator.FieldLevel) bool {
		s, isString := fl.Field().Interface().(string)
		return isString && ok(s)
	}
}

// fixed explains every failure of a rule with one code and message.
func fixed(code, msg string) func(any, string) (string, string) {
	return func(any, string) (string, string) { return code, msg }
}

// textCode returns the code of what keeps s from being text of its kind
// (InvalidUTF8, NulByte, ControlCharacter), or "".
func textCode(s string, multiline bool) string {
	switch {
	case !utf8.ValidString(s):
		return InvalidUTF8
	case strings.IndexByte(s, 0) >= 0:
		return NulByte
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\t' || r == '\n' || r == '\r')) {
			return ControlCharacter
		}
	}
	return ""
}

// explainText says why a value is not text (multiline) or not one line.
func explainText(multiline bool) func(any, string) (string, string) {
	return func(v any, _ string) (string, string) {
		s, _ := v.(string)
		switch code := textCode(s, multiline); code {
		case InvalidUTF8:
			return code, "must be valid UTF-8"
		case NulByte:
			return code, "must not contain NUL (U+0000)"
		}
		if multiline {
			return ControlCharacter, "must not contain control characters other than tab and line breaks"
		}
		return ControlCharacter, "must be a single line without control characters"
	}
}

// explainCurrency says why a value is not a currency amounts can be
// written in (iso4217.Refusal).
func explainCurrency(v any, _ string) (string, string) {
	s, _ := v.(string)
	return Invalid, iso4217.Refusal(s)
}

// isID checks a string against the id shape of the tag's parameter.
func isID(fl validator.FieldLevel) bool {
	s, ok := fl.Field().Interface().(string)
	return ok && id.Valid(fl.Param(), s)
}

// explainID says what an id of the prefix looks like.
func explainID(_ any, prefix string) (string, string) {
	return Invalid, "must be an id like " + prefix + "_ followed by 26 lower-case letters and digits"
}

// isEmail reports whether s is a plain, lower-case address.
func isEmail(s string) bool {
	if textCode(s, false) != "" {
		return false
	}
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s && s == strings.ToLower(s)
}

// isCountry reports whether s is an ISO 3166-1 alpha-2 code that
// golang.org/x/text knows as a country or territory.
func isCountry(s string) bool {
	if len(s) != 2 || s != strings.ToUpper(s) {
		return false
	}
	r, err := language.ParseRegion(s)
	return err == nil && r.IsCountry() && r.String() == s
}

// isLocale reports whether s is a well-formed BCP 47 tag as written
// ("en-US", not "en_US").
func isLocale(s string) bool {
	if s == "" || len(s) > 35 {
		return false
	}
	_, err := language.Parse(s)
	return err == nil && !strings.Contains(s, "_")
}

// isToken reports whether s is printable ASCII without spaces.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// isSlug reports whether s is lower-case letters, digits and hyphens, with
// a letter or digit first and last. A loop, not a regular expression with
// a bounded repetition, which would compile into a program of its copies
// at start.
func isSlug(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
