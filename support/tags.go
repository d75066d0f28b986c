package support

import (
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/field"
)

// MaxTagLen is the longest tag, in characters, after normalisation. How
// many tags a ticket takes is the `max` tag of the inputs' Tags.
const MaxTagLen = 32

// tagRule is the message for a tag that cannot be normalised; it follows
// the field name ("tags[2] must be …"). The 32 is MaxTagLen, which a test
// keeps in step.
const tagRule = "must be 1-32 characters of a-z, 0-9, '-' or '_' once trimmed and lower-cased (spaces become '-')"

// NormalizeTag returns the canonical form of a tag: surrounding space
// trimmed, lower-cased, each inner run of white space replaced by one '-'.
// ok is false when the result is empty, longer than MaxTagLen or holds
// anything but a-z, 0-9, '-' and '_'. Filters and agent UIs should pass
// user-typed tags through it too, so that "Billing Issue" finds
// "billing-issue".
func NormalizeTag(raw string) (tag string, ok bool) {
	tag = strings.Join(strings.Fields(strings.ToLower(raw)), "-")
	if tag == "" || len(tag) > MaxTagLen {
		return "", false
	}
	for i := 0; i < len(tag); i++ {
		if c := tag[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return "", false
		}
	}
	return tag, true
}

// normalizeTags normalises every tag and drops repeats, keeping the first
// occurrence's place. Failures are recorded under "tags[i]" (i indexes the
// input); none are looked for when errs holds one for "tags" already (too
// many), so that a long list does not turn into as many errors. The result
// is never nil.
func normalizeTags(raw []string, errs field.Errors) []string {
	out := []string{}
	if _, tooMany := errs["tags"]; tooMany {
		return out
	}
	seen := make(map[string]bool, len(raw))
	for i, r := range raw {
		tag, ok := NormalizeTag(r)
		if !ok {
			errs.Add(fmt.Sprintf("tags[%d]", i), field.Invalid, tagRule)
			continue
		}
		if !seen[tag] {
			seen[tag] = true
			out = append(out, tag)
		}
	}
	return out
}
