package field

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// Check validates v, a struct or a pointer to one, against the `validate`
// tags of its fields (the rules of validator/v10 and tenantkit's own,
// listed in rules.go), and answers an *InvalidError naming every field that
// breaks a rule by its JSON path ("line_items[0].quantity"), with the codes
// and messages of this package. It answers nil when every rule holds.
//
// Tags declare what a value must be on its own: present, within bounds,
// one of a list, of a format. Rules that need state (a status transition,
// a plan that exists, a limit of the tenant's contract) stay in the
// services, which call Check first and add their own findings after.
func Check(v any) error {
	err := validate().Struct(v)
	if err == nil {
		return nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		// Only a program error gets here: v is not a struct.
		panic("field.Check: " + err.Error())
	}
	root := reflect.TypeOf(v)
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	found := make([]finding, len(ves))
	// validator walks a map in random order: of a map's bad entries, the
	// one with the first key (its key's rule before its value's) speaks
	// for the map, so that one input gets one answer.
	first := map[string]finding{}
	for i, fe := range ves {
		found[i] = explain(root, fe)
		if e := found[i]; e.entry {
			if prev, ok := first[e.Field]; !ok || e.before(prev) {
				first[e.Field] = e
			}
		}
	}
	f := Errors{}
	for _, e := range found {
		if e.entry {
			e = first[e.Field]
		}
		f.Add(e.Field, e.Code, e.Message)
	}
	return f.Err()
}

// finding is a validator error explained; entry marks an entry of a map,
// reported on the map under key.
type finding struct {
	Error
	entry, keyRule bool
	key            string
}

// before orders the findings of one map: by key, a key's rule first.
func (e finding) before(o finding) bool {
	if e.key != o.key {
		return e.key < o.key
	}
	return e.keyRule && !o.keyRule
}

// validate is the one validator/v10 instance: it caches what it learns of
// each type, so it is made once.
var validate = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(jsonName)
	enumsMu.Lock()
	defer enumsMu.Unlock()
	enumsFrozen = true
	for tag, r := range rules {
		if err := v.RegisterValidation(tag, r.valid); err != nil {
			panic("field: rule " + tag + ": " + err.Error())
		}
	}
	return v
})

// jsonName names a struct field as its JSON encoding does, so that paths
// are the ones clients send.
func jsonName(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
	if name == "" || name == "-" {
		return sf.Name
	}
	return name
}

// explain translates one validator error into the Error clients see.
func explain(root reflect.Type, fe validator.FieldError) finding {
	path := jsonPath(root, fe)
	code, msg := describe(root, fe)
	// An entry of a map (metadata) is reported on the map, naming the key.
	if parent, key, ok := mapEntry(root, path, fe.StructNamespace()); ok {
		e := finding{entry: true, key: key}
		if s, isString := fe.Value().(string); isString && s == key && isKeyRule(root, fe) {
			e.keyRule = true
			e.Error = Error{parent, code, fmt.Sprintf("key %q: %s", Truncate(key, 40), msg)}
		} else {
			e.Error = Error{parent, code, fmt.Sprintf("value of %q: %s", key, msg)}
		}
		return e
	}
	return finding{Error: Error{path, code, msg}}
}

// describe returns the code and message of the rule fe broke.
func describe(root reflect.Type, fe validator.FieldError) (code, msg string) {
	if r, ok := rules[fe.Tag()]; ok {
		return r.explain(fe.Value(), fe.Param())
	}
	kind := fe.Kind()
	p := fe.Param()
	switch fe.Tag() {
	case "required":
		return Required, "is required"
	case "oneof":
		return Invalid, "must be one of: " + strings.Join(strings.Fields(p), ", ")
	case "datetime":
		return Invalid, "must be a date in the layout " + layoutName(p)
	case "min", "gte":
		switch {
		case isNumber(kind):
			return rangeOf(root, fe)
		case kind == reflect.String && p == "1":
			return Required, "is required"
		case kind == reflect.String:
			return Invalid, "must have at least " + p + " characters"
		case p == "1":
			return Required, "must have at least 1 item"
		}
		return Invalid, "must have at least " + p + " items"
	case "max", "lte":
		switch {
		case isNumber(kind):
			return rangeOf(root, fe)
		case kind == reflect.String:
			return TooLong, "must have at most " + p + " characters"
		case kind == reflect.Map:
			return TooMany, "must have at most " + p + " keys"
		}
		return TooMany, "must have at most " + p + " items"
	}
	// A tag without a translation is a program error the tests catch.
	return Invalid, "is not valid (" + fe.Tag() + ")"
}

// rangeOf is the message of a number outside its bounds: both bounds when
// the field's tag gives both, else the one it broke.
func rangeOf(root reflect.Type, fe validator.FieldError) (code, msg string) {
	lo, hi := bounds(root, fe)
	switch {
	case lo != "" && hi != "":
		return OutOfRange, "must be between " + lo + " and " + hi
	case fe.Tag() == "min" || fe.Tag() == "gte":
		return OutOfRange, "must be at least " + fe.Param()
	}
	return OutOfRange, "must be at most " + fe.Param()
}

// bounds returns the min and max a number's tag sets, found by following
// fe's Go path from root. Only the rules after the last dive apply to an
// element of a list.
func bounds(root reflect.Type, fe validator.FieldError) (lo, hi string) {
	tag := tagOf(root, fe.StructNamespace())
	if i := strings.LastIndex(tag, "dive"); i >= 0 && strings.HasSuffix(fe.StructNamespace(), "]") {
		tag = tag[i:]
	}
	for _, rule := range strings.Split(tag, ",") {
		name, param, _ := strings.Cut(rule, "=")
		switch name {
		case "min", "gte":
			lo = param
		case "max", "lte":
			hi = param
		}
	}
	return lo, hi
}

// tagOf returns the validate tag of the field at the Go path ns
// ("CreateInvoiceInput.LineItems[0].Quantity") below root, or "".
func tagOf(root reflect.Type, ns string) string {
	sf, ok := fieldAt(root, ns)
	if !ok {
		return ""
	}
	return sf.Tag.Get("validate")
}

// fieldAt returns the struct field at the Go path ns below root.
func fieldAt(root reflect.Type, ns string) (reflect.StructField, bool) {
	var sf reflect.StructField
	t := root
	for _, name := range segments(ns)[1:] {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return reflect.StructField{}, false
		}
		var ok bool
		if sf, ok = t.FieldByName(name); !ok {
			return reflect.StructField{}, false
		}
		t = sf.Type
	}
	return sf, true
}

// segments splits a path at the dots outside brackets and drops the
// indexes: "A.Items[0].Metadata[a.b]" is A, Items, Metadata.
func segments(ns string) []string {
	parts := split(ns)
	for i, p := range parts {
		parts[i], _, _ = strings.Cut(p, "[")
	}
	return parts
}

// split splits a path at the dots outside brackets, keeping the indexes:
// "A.Items[0].Metadata[a.b]" is A, Items[0], Metadata[a.b].
func split(ns string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(ns); i++ {
		switch ns[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, ns[start:i])
				start = i + 1
			}
		}
	}
	return append(out, ns[start:])
}

// jsonPath is fe's path as clients write it: the JSON names, without the
// root type and without embedded structs, whose fields encoding/json
// flattens into their parent ("user_id", not "userRef.user_id").
func jsonPath(root reflect.Type, fe validator.FieldError) string {
	names, goNames := split(fe.Namespace()), segments(fe.StructNamespace())
	if len(names) != len(goNames) {
		return fe.Namespace() // not expected: both paths walk the same fields
	}
	var out []string
	t := root
	for i := 1; i < len(names); i++ {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct {
			if sf, ok := t.FieldByName(goNames[i]); ok {
				t = sf.Type
				if sf.Anonymous {
					continue
				}
			}
		}
		out = append(out, names[i])
	}
	return strings.Join(out, ".")
}

// isKeyRule reports whether fe broke a rule between keys and endkeys of
// its map's tag, rather than a rule of the values.
func isKeyRule(root reflect.Type, fe validator.FieldError) bool {
	tag := tagOf(root, fe.StructNamespace())
	start, end := strings.Index(tag, "keys,"), strings.Index(tag, ",endkeys")
	if start < 0 || end < start {
		return false
	}
	for _, rule := range strings.Split(tag[start+len("keys,"):end], ",") {
		if name, param, _ := strings.Cut(rule, "="); name == fe.Tag() && param == fe.Param() {
			return true
		}
	}
	return false
}

// mapEntry splits "metadata[plan]" into "metadata" and "plan" when ns,
// the same path in Go names, ends at an entry of a map.
func mapEntry(root reflect.Type, path, ns string) (parent, key string, ok bool) {
	if !strings.HasSuffix(path, "]") {
		return "", "", false
	}
	sf, found := fieldAt(root, ns)
	t := sf.Type
	for found && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !found || t.Kind() != reflect.Map {
		return "", "", false
	}
	open, depth := -1, 0
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '[':
			if depth == 0 {
				open = i
			}
			depth++
		case ']':
			depth--
		}
	}
	if open < 0 {
		return "", "", false
	}
	return path[:open], path[open+1 : len(path)-1], true
}

// isNumber reports whether k is an integer or floating-point kind.
func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// layoutName writes a Go time layout as people read it: "YYYY-MM-DD".
func layoutName(layout string) string {
	return strings.NewReplacer("2006", "YYYY", "01", "MM", "02", "DD").Replace(layout)
}
