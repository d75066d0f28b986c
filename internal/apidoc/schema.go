package apidoc

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// flatten returns s with its allOf merged in: properties and required
// lists joined, every other keyword taken from the first schema that has
// it (s itself first). $refs are resolved already (Load).
func flatten(s *openapi3.Schema) *openapi3.Schema {
	if s == nil || len(s.AllOf) == 0 {
		return s
	}
	out := *s
	out.AllOf = nil
	out.Properties = maps.Clone(s.Properties)
	out.Required = slices.Clone(s.Required)
	out.Extensions = maps.Clone(s.Extensions)
	for _, ref := range s.AllOf {
		if ref == nil || ref.Value == nil {
			continue
		}
		merge(&out, flatten(ref.Value))
	}
	return &out
}

// merge fills out's keywords that are unset from sub.
func merge(out, sub *openapi3.Schema) {
	if out.Type == nil || out.Type.IsEmpty() {
		out.Type = sub.Type
	}
	out.Format = firstSet(out.Format, sub.Format)
	out.Pattern = firstSet(out.Pattern, sub.Pattern)
	if out.Enum == nil {
		out.Enum = sub.Enum
	}
	out.MinLength = max(out.MinLength, sub.MinLength)
	out.MaxLength = firstPtr(out.MaxLength, sub.MaxLength)
	out.Min = firstPtr(out.Min, sub.Min)
	out.Max = firstPtr(out.Max, sub.Max)
	if !out.ExclusiveMin.IsSet() {
		out.ExclusiveMin = sub.ExclusiveMin
	}
	if !out.ExclusiveMax.IsSet() {
		out.ExclusiveMax = sub.ExclusiveMax
	}
	out.MinItems = max(out.MinItems, sub.MinItems)
	out.MaxItems = firstPtr(out.MaxItems, sub.MaxItems)
	out.UniqueItems = out.UniqueItems || sub.UniqueItems
	out.Items = firstPtr(out.Items, sub.Items)
	out.MinProps = max(out.MinProps, sub.MinProps)
	out.MaxProps = firstPtr(out.MaxProps, sub.MaxProps)
	if out.AdditionalProperties.Has == nil && out.AdditionalProperties.Schema == nil {
		out.AdditionalProperties = sub.AdditionalProperties
	}
	for name, p := range sub.Properties {
		if out.Properties == nil {
			out.Properties = openapi3.Schemas{}
		}
		if _, ok := out.Properties[name]; !ok {
			out.Properties[name] = p
		}
	}
	for _, name := range sub.Required {
		if !slices.Contains(out.Required, name) {
			out.Required = append(out.Required, name)
		}
	}
	for k, v := range sub.Extensions {
		if out.Extensions == nil {
			out.Extensions = map[string]any{}
		}
		if _, ok := out.Extensions[k]; !ok {
			out.Extensions[k] = v
		}
	}
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func firstPtr[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// keySchema returns the schema of a map's keys: x-propertyNames, the
// extension standing for JSON Schema's propertyNames (OpenAPI 3.1), or
// propertyNames itself. nil when the document states none.
func keySchema(s *openapi3.Schema) (*openapi3.Schema, error) {
	if s.PropertyNames != nil {
		return flatten(s.PropertyNames.Value), nil
	}
	raw, ok := s.Extensions["x-propertyNames"]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var k openapi3.Schema
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("x-propertyNames is not a schema: %w", err)
	}
	return &k, nil
}

// excludesEmpty reports whether s refuses "" by its pattern, format or
// enum, whatever its minLength.
func excludesEmpty(s *openapi3.Schema) bool {
	switch s.Format {
	case "email", "date", "date-time", "uri", "uuid":
		return true
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(goRegexp(s.Pattern))
		if err == nil && !re.MatchString("") {
			return true
		}
	}
	return len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(v any) bool { return v == "" })
}

// codepoint is an ECMA-262 \uXXXX escape, which Go's regexp spells \x{XXXX}.
var codepoint = regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`)

// goRegexp rewrites an ECMA-262 pattern for Go's regexp, as kin-openapi does.
func goRegexp(p string) string { return codepoint.ReplaceAllString(p, `\x{$1}`) }

// typeOf names the document's type of s, "none" when it has none.
func typeOf(s *openapi3.Schema) string {
	if s.Type == nil || s.Type.IsEmpty() {
		return "none"
	}
	return strings.Join(s.Type.Slice(), "|")
}

// enumStrings returns s's enum as sorted strings.
func enumStrings(enum []any) []string {
	out := make([]string, 0, len(enum))
	for _, v := range enum {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case float64:
			out = append(out, strconv.FormatFloat(x, 'f', -1, 64))
		case nil:
			// null, of a nullable enum: not a value a tag names
		default:
			out = append(out, fmt.Sprint(x))
		}
	}
	slices.Sort(out)
	return out
}

// show writes an optional count for a message.
func show(n *uint64) string {
	if n == nil {
		return "none"
	}
	return strconv.FormatUint(*n, 10)
}

// showNum writes an optional number for a message.
func showNum(f *float64) string {
	if f == nil {
		return "none"
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

// showStr writes an optional string keyword for a message.
func showStr(s string) string {
	if s == "" {
		return "none"
	}
	return strconv.Quote(s)
}
