// Package text checks the free text the domains accept (names, memos,
// notes, reasons) by one rule, so that every field says the same thing
// about the same mistake.
package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Check returns what is wrong with s, or "": it must be valid UTF-8 of
// minLen..maxLen characters without control characters other than tab and
// line breaks (a NUL would not even fit a Postgres TEXT column). The
// message is written to follow the field's name ("must have at most 200
// characters"), as the domains' field errors are.
func Check(s string, minLen, maxLen int) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n < minLen && minLen == 1:
		return "is required"
	case n < minLen:
		return fmt.Sprintf("must have at least %d characters", minLen)
	case n > maxLen:
		return fmt.Sprintf("must have at most %d characters", maxLen)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return "must not contain control characters"
		}
	}
	return ""
}

// Clean trims s and checks it with Check.
func Clean(s string, minLen, maxLen int) (string, string) {
	s = strings.TrimSpace(s)
	return s, Check(s, minLen, maxLen)
}

// Truncate shortens s to at most n characters, for error messages.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
