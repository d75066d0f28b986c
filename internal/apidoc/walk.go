package apidoc

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tenantkit/tenantkit/field"
)

var (
	rawJSONType = reflect.TypeFor[json.RawMessage]()
	timeType    = reflect.TypeFor[time.Time]()
)

// member is a struct field as JSON sees it.
type member struct {
	name string // the JSON name
	sf   reflect.StructField
}

// jsonFields returns t's fields by their JSON names, embedded structs
// without a name of their own inlined, as encoding/json decodes them.
func jsonFields(t reflect.Type) []member {
	var out []member
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && name == "" {
			et := sf.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, jsonFields(et)...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, member{name: name, sf: sf})
	}
	return out
}

// object compares struct t with object schema s, property by property.
func (c *comparison) object(path string, s *openapi3.Schema, t reflect.Type) {
	if !s.Type.Is("object") {
		c.addf(path, "the type is a struct (%s) but the document's type is %s", t, typeOf(s))
		return
	}
	fields := jsonFields(t)
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		names = append(names, f.name)
		p := join(path, f.name)
		ref := s.Properties[f.name]
		if path == "" && slices.Contains(c.fixed, f.name) {
			if ref != nil {
				c.addf(p, "cannot change, yet the patch has this property")
			}
			continue
		}
		if ref == nil || ref.Value == nil {
			c.addf(p, "the type has field %s, the document no such property", f.sf.Name)
			continue
		}
		tg := parseTag(f.sf.Tag.Get("validate"))
		inDoc, byTags := slices.Contains(s.Required, f.name), refusesAbsence(f.sf.Type, tg)
		if c.patch && !strings.Contains(path, "[") {
			if inDoc {
				c.addf(p, "a patch's members are optional, yet the document requires it")
			}
			inDoc, byTags = false, false
		}
		switch {
		case inDoc && !byTags:
			c.addf(p, "the document lists it as required but the tags do not require it")
		case !inDoc && byTags:
			c.addf(p, "the tags require it but the document does not list it as required")
		}
		c.value(p, flatten(ref.Value), f.sf.Type, tg)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if !slices.Contains(names, name) {
			c.addf(join(path, name), "the document has this property, the type (%s) no such field", t)
		}
	}
}

// refusesAbsence reports whether the tags refuse a body without the
// field, which decodes to its zero value: `required`, or, unless the
// tags skip the zero value (omitempty), a rule the zero value breaks — a
// number whose minimum is above 0, a string that must have a shape or a
// length, a struct with such a field.
func refusesAbsence(t reflect.Type, tg tag) bool {
	if required(tg.rules) {
		return true
	}
	if omitted(tg.rules) || t.Kind() == reflect.Pointer || isPatch(t) {
		return false
	}
	for _, r := range tg.rules {
		switch r.name {
		case "min", "gte", "gt":
			if n, err := strconv.ParseFloat(r.param, 64); err == nil && (n > 0 || r.name == "gt" && n == 0) {
				return true
			}
		case "currency", "id", "email", "country", "locale", "slug", "datetime", "oneof":
			return t.Kind() == reflect.String
		}
		if _, ok := field.Enum(r.name); ok {
			return t.Kind() == reflect.String
		}
	}
	if t.Kind() == reflect.Struct {
		for _, f := range jsonFields(t) {
			if refusesAbsence(f.sf.Type, parseTag(f.sf.Tag.Get("validate"))) {
				return true
			}
		}
	}
	return false
}

// join appends a property name to a path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// value compares a value of type t, validated by tg, with schema s.
func (c *comparison) value(path string, s *openapi3.Schema, t reflect.Type, tg tag) {
	t = unwrap(t)
	switch {
	case t == rawJSONType:
		return // any JSON, which the handler reads itself
	case t == timeType:
		c.dateTime(path, s, tg)
		return
	}
	switch t.Kind() {
	case reflect.String:
		c.want(path, s, "string")
		c.str(path, s, tg)
	case reflect.Bool:
		c.want(path, s, "boolean")
		c.plain(path, s, tg)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		c.want(path, s, "integer")
		c.number(path, s, t, tg)
	case reflect.Float32, reflect.Float64:
		c.want(path, s, "number")
		c.number(path, s, t, tg)
	case reflect.Slice, reflect.Array:
		c.want(path, s, "array")
		c.array(path, s, t, tg)
	case reflect.Map:
		c.want(path, s, "object")
		c.dict(path, s, t, tg)
	case reflect.Struct:
		c.unknownRules(path, tg.rules)
		c.object(path, s, t)
	default:
		c.addf(path, "the comparison does not know Go kind %s", t.Kind())
	}
}

// unwrap strips pointers and Patch-like wrappers (a struct of Set, Null
// and Value, such as billing.Patch) down to the JSON value's type.
func unwrap(t reflect.Type) reflect.Type {
	for {
		switch {
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		case isPatch(t):
			t = t.Field(2).Type
		default:
			return t
		}
	}
}

// isPatch reports whether t is a struct {Set, Null bool; Value T}: a
// member that may be absent, null or a T, which the tags on the member
// constrain as a T.
func isPatch(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() == 3 &&
		t.Field(0).Name == "Set" && t.Field(1).Name == "Null" && t.Field(2).Name == "Value"
}

// want records a document type other than typ.
func (c *comparison) want(path string, s *openapi3.Schema, typ string) {
	if !s.Type.Is(typ) {
		c.addf(path, "the type is a %s but the document's type is %s", typ, typeOf(s))
	}
}

// plain compares a value the tags can only require (a boolean).
func (c *comparison) plain(path string, s *openapi3.Schema, tg tag) {
	c.unknownRules(path, tg.rules)
	if len(s.Enum) > 0 {
		c.addf(path, "the document has an enum the tags do not state")
	}
}

// unknownRules records the rules that say more than presence, which the
// caller does not compare.
func (c *comparison) unknownRules(path string, rules []rule) {
	for _, r := range rules {
		if !structural(r.name) {
			c.addf(path, "the comparison does not know rule %q on this kind of value", r.name)
		}
	}
}

// dateTime compares a time.Time: an RFC 3339 string, which no tag bounds.
func (c *comparison) dateTime(path string, s *openapi3.Schema, tg tag) {
	c.want(path, s, "string")
	c.unknownRules(path, tg.rules)
	if s.Format != "date-time" {
		c.differ(path, "format", showStr(s.Format), `"date-time" (a time.Time)`)
	}
	if s.MaxLength == nil || *s.MaxLength != MaxDateTimeLen {
		c.differ(path, "maxLength", show(s.MaxLength), "35 (a time.Time)")
	}
}
