// Package apidoc holds httpapi/openapi.json to the Go input types the
// handlers decode request bodies into: every rule a `validate` tag states
// (what field.Check enforces) must be in the document, and the document
// must state no rule the tags lack. The contract tests of httpapi and
// httpapi/operatorapi run Compare on every operation with a request body.
//
// A tag maps to the document as follows: required (without omitempty) to
// the property's place in the object's required list, and on a string to
// a minLength of at least 1; min, max and len to minLength/maxLength on
// strings, minItems/maxItems on slices, minProperties/maxProperties on
// maps and minimum/maximum on numbers (gt and lt to exclusive bounds);
// oneof to enum; unique to uniqueItems; dive to items (or, on a map,
// additionalProperties, with keys…endkeys to x-propertyNames: OpenAPI 3.0
// has no propertyNames); tenantkit's rules (field/rules.go) to the
// patterns and formats below, and a rule of field.RegisterEnum to the enum
// of its values. Nested structs are compared field by field,
// by their JSON names.
package apidoc

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// The document's spelling of tenantkit's own rules (field/rules.go). The
// patterns are ECMA-262 regular expressions that Go's regexp reads too
// (kin-openapi rewrites \uXXXX).
const (
	// LinePattern is rule line: no control character (Unicode Cc).
	LinePattern = `^[^\u0000-\u001F\u007F-\u009F]*$`
	// TextPattern is rule text: as line, but tab, line feed and carriage
	// return are allowed.
	TextPattern = `^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$`
	// CurrencyPattern is rule currency (which codes are accepted is
	// iso4217's to say; the document states their shape).
	CurrencyPattern = `^[A-Z]{3}$`
	// TokenPattern is rule token: printable ASCII without spaces.
	TokenPattern = `^[!-~]*$`
	// CountryPattern is rule country.
	CountryPattern = `^[A-Z]{2}$`
	// LocalePattern is rule locale, a BCP 47 tag of at most 35 characters.
	LocalePattern = `^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`
	// SlugPattern is rule slug, whose length a max rule bounds.
	SlugPattern = `^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$`
	// DateOrEmptyPattern stands for datetime=2006-01-02 with omitempty,
	// where "" passes too, in place of format date.
	DateOrEmptyPattern = `^([0-9]{4}-[0-9]{2}-[0-9]{2})?$`
	// MaxDateTimeLen bounds every date-time (a time.Time field): RFC 3339
	// with nanoseconds and an offset.
	MaxDateTimeLen = 35
)

// IDPattern is rule id=prefix: the prefix, "_" and a ULID in lower-case
// Crockford base32 (internal/id.Valid).
func IDPattern(prefix string) string {
	return "^" + prefix + "_[0-7][0-9a-hjkmnp-tv-z]{25}$"
}

// idLen is the length of an id with the given prefix.
func idLen(prefix string) uint64 { return uint64(len(prefix) + 1 + 26) }

// Load parses and validates an OpenAPI document, resolving its $refs.
func Load(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("apidoc: load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("apidoc: invalid document: %w", err)
	}
	return doc, nil
}

// Body is an operation's JSON request body.
type Body struct {
	OperationID string
	Tags        []string
	Schema      *openapi3.SchemaRef
}

// RequestBodies returns the JSON request body of every operation that has
// one, by operationId.
func RequestBodies(doc *openapi3.T) []Body {
	var out []Body
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			if mt == nil || mt.Schema == nil {
				continue
			}
			out = append(out, Body{OperationID: op.OperationID, Tags: op.Tags, Schema: mt.Schema})
		}
	}
	slices.SortFunc(out, func(a, b Body) int { return cmp.Compare(a.OperationID, b.OperationID) })
	return out
}

// Compare returns, as sentences, every way the validate tags of t (a
// struct, or a pointer to one) and schema, the document's schema of a
// body of that type, disagree; none when they agree.
func Compare(schema *openapi3.SchemaRef, t reflect.Type) []string {
	return (&comparison{}).run(schema, t)
}

// ComparePatch is Compare for a JSON merge patch of a resource whose
// create body is t: the patch's members follow t's tags, but none is
// required (outside the items of a list, which are sent whole), and the
// fields named in fixed, which cannot change, are not in the patch.
func ComparePatch(schema *openapi3.SchemaRef, t reflect.Type, fixed ...string) []string {
	return (&comparison{patch: true, fixed: fixed}).run(schema, t)
}

// run compares the body schema with struct t (or a pointer to one).
func (c *comparison) run(schema *openapi3.SchemaRef, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if schema == nil || schema.Value == nil {
		return []string{"the document has no schema"}
	}
	c.object("", flatten(schema.Value), t)
	return c.msgs
}

// comparison collects the disagreements of one Compare.
type comparison struct {
	msgs []string
	// patch and fixed are ComparePatch's.
	patch bool
	fixed []string
}

// addf records a disagreement at path (the JSON path, "" for the body).
func (c *comparison) addf(path, format string, args ...any) {
	if path == "" {
		path = "(body)"
	}
	c.msgs = append(c.msgs, path+": "+fmt.Sprintf(format, args...))
}

// differ records that the document and the tags give a keyword different
// values; "none" stands for a keyword one side leaves out.
func (c *comparison) differ(path, keyword, doc, tags string) {
	c.addf(path, "%s is %s in the document but %s by the tags", keyword, doc, tags)
}
