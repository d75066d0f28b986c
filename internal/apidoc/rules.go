package apidoc

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tenantkit/tenantkit/field"
)

// stringRules is what the tags say of a string, in the document's terms.
type stringRules struct {
	minLen, maxLen *uint64 // min, max, len
	impliedMax     *uint64 // the longest value a shape rule (id, currency, oneof, …) lets through
	nonEmpty       bool    // "" fails: required, or a shape rule
	pattern        string
	orPattern      string // accepted instead of format (a date that may be "")
	format         string
	enum           []string
}

// stringRulesOf reads the rules of a string; unknown ones are recorded.
func (c *comparison) stringRulesOf(path string, rules []rule) stringRules {
	var w stringRules
	omit := omitted(rules)
	setPattern := func(r rule, p string) {
		if w.pattern != "" {
			c.addf(path, "the tags hold two rules of shape (%s and another); the comparison takes the last", r.name)
		}
		w.pattern = p
	}
	for _, r := range rules {
		n, isNum := parseCount(r.param)
		switch r.name {
		case "required":
			w.nonEmpty = w.nonEmpty || !omit
		case "min", "gte":
			w.minLen = num(n, isNum)
		case "max", "lte":
			w.maxLen = num(n, isNum)
		case "len":
			w.minLen, w.maxLen = num(n, isNum), num(n, isNum)
		case "oneof":
			w.enum = oneOf(r.param)
			slices.Sort(w.enum)
			longest := uint64(0)
			for _, v := range w.enum {
				longest = max(longest, uint64(len([]rune(v))))
			}
			w.impliedMax, w.nonEmpty = &longest, !slices.Contains(w.enum, "")
		case "line":
			setPattern(r, LinePattern)
		case "text":
			setPattern(r, TextPattern)
		case "currency":
			setPattern(r, CurrencyPattern)
			w.impliedMax, w.nonEmpty = ptr(3), true
		case "country":
			setPattern(r, CountryPattern)
			w.impliedMax, w.nonEmpty = ptr(2), true
		case "locale":
			setPattern(r, LocalePattern)
			w.impliedMax, w.nonEmpty = ptr(35), true
		case "slug":
			setPattern(r, SlugPattern)
			w.nonEmpty = true
		case "id":
			setPattern(r, IDPattern(r.param))
			w.impliedMax, w.nonEmpty = ptr(idLen(r.param)), true
		case "email":
			w.format, w.nonEmpty = "email", true
		case "token":
			setPattern(r, TokenPattern)
		case "datetime":
			if r.param != "2006-01-02" {
				c.addf(path, "the comparison does not know layout %q of rule datetime", r.param)
				continue
			}
			w.format, w.impliedMax, w.nonEmpty = "date", ptr(10), true
			if omit {
				w.orPattern = DateOrEmptyPattern
			}
		case "url", "uri", "http_url":
			w.format, w.nonEmpty = "uri", true
		case "uuid":
			w.format, w.nonEmpty = "uuid", true
		default:
			if values, ok := field.Enum(r.name); ok {
				w.enum = values // sorted
				longest := uint64(0)
				for _, v := range values {
					longest = max(longest, uint64(len([]rune(v))))
				}
				w.impliedMax, w.nonEmpty = &longest, true
				continue
			}
			if !structural(r.name) {
				c.addf(path, "the comparison does not know rule %q on a string", r.name)
			}
		}
	}
	return w
}

// str compares a string's rules with its schema.
func (c *comparison) str(path string, s *openapi3.Schema, tg tag) {
	c.strRules(path, s, c.stringRulesOf(path, tg.rules))
}

func (c *comparison) strRules(path string, s *openapi3.Schema, w stringRules) {
	// A date that may be "" is either format date or the pattern that
	// lets "" through.
	if w.orPattern != "" && s.Format == "" && s.Pattern == w.orPattern {
		w.format, w.pattern, w.nonEmpty = "", w.orPattern, false
	}
	if s.Pattern != w.pattern {
		c.differ(path, "pattern", showStr(s.Pattern), showStr(w.pattern))
	}
	if s.Format != w.format {
		c.differ(path, "format", showStr(s.Format), showStr(w.format))
	}
	if got := enumStrings(s.Enum); !slices.Equal(got, w.enum) {
		c.differ(path, "enum", listOrNone(got), listOrNone(w.enum))
	}
	switch {
	case w.maxLen != nil:
		if !equal(s.MaxLength, w.maxLen) {
			c.differ(path, "maxLength", show(s.MaxLength), show(w.maxLen))
		}
	case w.impliedMax != nil:
		// The rule bounds the length; the document may say it too.
		if s.MaxLength != nil && *s.MaxLength != *w.impliedMax {
			c.differ(path, "maxLength", show(s.MaxLength), show(w.impliedMax)+" (the longest value the rule takes)")
		}
	case s.MaxLength != nil:
		c.differ(path, "maxLength", show(s.MaxLength), "none")
	}
	// Compare the shortest value each side takes: minLength, or 1 when
	// the pattern, format or enum refuses "" (the tags: required).
	tagMin := uint64(0)
	if w.minLen != nil {
		tagMin = *w.minLen
	}
	if w.nonEmpty {
		tagMin = max(tagMin, 1)
	}
	docMin := s.MinLength
	if excludesEmpty(s) {
		docMin = max(docMin, 1)
	}
	if docMin != tagMin {
		c.differ(path, "the shortest length (minLength, or 1 for a required or shaped string)",
			strconv.FormatUint(docMin, 10), strconv.FormatUint(tagMin, 10))
	}
}

// number compares an integer's or a number's rules with its schema. The
// Go type's own range needs no tag: the document may state it or not.
func (c *comparison) number(path string, s *openapi3.Schema, t reflect.Type, tg tag) {
	var lo, hi *float64
	var exclLo, exclHi bool
	var enum []string
	for _, r := range tg.rules {
		f, err := strconv.ParseFloat(r.param, 64)
		switch r.name {
		case "min", "gte", "gt":
			if err == nil {
				lo, exclLo = &f, r.name == "gt"
			}
		case "max", "lte", "lt":
			if err == nil {
				hi, exclHi = &f, r.name == "lt"
			}
		case "oneof":
			enum = oneOf(r.param)
			slices.Sort(enum)
		default:
			if !structural(r.name) {
				c.addf(path, "the comparison does not know rule %q on a number", r.name)
			}
		}
	}
	typeLo, typeHi := rangeOf(t)
	if lo == nil && equal(s.Min, typeLo) {
		lo = typeLo
	}
	if hi == nil && equal(s.Max, typeHi) {
		hi = typeHi
	}
	if !equal(s.Min, lo) || s.ExclusiveMin.IsTrue() != exclLo {
		c.differ(path, "minimum", bound(s.Min, s.ExclusiveMin.IsTrue()), bound(lo, exclLo))
	}
	if !equal(s.Max, hi) || s.ExclusiveMax.IsTrue() != exclHi {
		c.differ(path, "maximum", bound(s.Max, s.ExclusiveMax.IsTrue()), bound(hi, exclHi))
	}
	if got := enumStrings(s.Enum); !slices.Equal(got, enum) {
		c.differ(path, "enum", listOrNone(got), listOrNone(enum))
	}
}

// array compares a slice's rules, and its items', with its schema.
func (c *comparison) array(path string, s *openapi3.Schema, t reflect.Type, tg tag) {
	var lo, hi *uint64
	unique := false
	for _, r := range tg.rules {
		n, isNum := parseCount(r.param)
		switch r.name {
		case "min", "gte":
			lo = num(n, isNum)
		case "max", "lte":
			hi = num(n, isNum)
		case "len":
			lo, hi = num(n, isNum), num(n, isNum)
		case "unique":
			unique = true
		default:
			if !structural(r.name) {
				c.addf(path, "the comparison does not know rule %q on a list", r.name)
			}
		}
	}
	if s.MinItems != deref(lo) {
		c.differ(path, "minItems", strconv.FormatUint(s.MinItems, 10), strconv.FormatUint(deref(lo), 10))
	}
	if !equal(s.MaxItems, hi) {
		c.differ(path, "maxItems", show(s.MaxItems), show(hi))
	}
	if s.UniqueItems != unique {
		c.differ(path, "uniqueItems", strconv.FormatBool(s.UniqueItems), strconv.FormatBool(unique))
	}
	if s.Items == nil || s.Items.Value == nil {
		c.addf(path, "the document does not say what the items are")
		return
	}
	elem := t.Elem()
	items := tag{}
	if tg.items != nil {
		items = *tg.items
	} else if unwrap(elem).Kind() == reflect.Struct && unwrap(elem) != timeType {
		c.addf(path, "the tag does not dive, so the items' own rules are not checked")
	}
	c.value(path+"[]", flatten(s.Items.Value), elem, items)
}

// dict compares a map's rules, its keys' and its values', with its schema.
func (c *comparison) dict(path string, s *openapi3.Schema, t reflect.Type, tg tag) {
	var lo, hi *uint64
	for _, r := range tg.rules {
		n, isNum := parseCount(r.param)
		switch r.name {
		case "min", "gte":
			lo = num(n, isNum)
		case "max", "lte":
			hi = num(n, isNum)
		default:
			if !structural(r.name) {
				c.addf(path, "the comparison does not know rule %q on a map", r.name)
			}
		}
	}
	// A patch's map is merged key by key: its count rules bound the
	// result, not the patch, which may remove keys too.
	counted := !(c.patch && !strings.Contains(path, "["))
	if counted && s.MinProps != deref(lo) {
		c.differ(path, "minProperties", strconv.FormatUint(s.MinProps, 10), strconv.FormatUint(deref(lo), 10))
	}
	if counted && !equal(s.MaxProps, hi) {
		c.differ(path, "maxProperties", show(s.MaxProps), show(hi))
	}
	keys, err := keySchema(s)
	if err != nil {
		c.addf(path, "%v", err)
	}
	if t.Key().Kind() == reflect.String {
		if keys == nil {
			keys = &openapi3.Schema{Type: &openapi3.Types{"string"}}
		}
		c.strRules(path+"{key}", keys, c.stringRulesOf(path+"{key}", tg.keys))
	}
	values := s.AdditionalProperties.Schema
	if values == nil || values.Value == nil {
		c.addf(path, "the document does not say what the values are (additionalProperties)")
		return
	}
	items := tag{}
	if tg.items != nil {
		items = *tg.items
	}
	c.value(path+"{}", flatten(values.Value), t.Elem(), items)
}

func parseCount(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func num(n uint64, ok bool) *uint64 {
	if !ok {
		return nil
	}
	return &n
}

func ptr(n uint64) *uint64 { return &n }

func deref(n *uint64) uint64 {
	if n == nil {
		return 0
	}
	return *n
}

func equal[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func bound(f *float64, exclusive bool) string {
	if f != nil && exclusive {
		return showNum(f) + " (exclusive)"
	}
	return showNum(f)
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return "[" + strings.Join(xs, " ") + "]"
}

// rangeOf returns the least and greatest values of integer type t; nil
// for floating-point types.
func rangeOf(t reflect.Type) (lo, hi *float64) {
	var l, h float64
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		l, h = -math.Exp2(float64(bits-1)), math.Exp2(float64(bits-1))-1
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		l, h = 0, math.Exp2(float64(t.Bits()))-1
	default:
		return nil, nil
	}
	return &l, &h
}
