package httpapi

// What a request's JSON text tells beyond its decoded value: the path of
// the value an error is about (line_items[1].quantity), keys that match a
// field only when case is ignored, and strings that do not decode to
// valid text.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tenantkit/tenantkit/field"
)

// jsonPathAt returns the path ("line_items[1].quantity") of the value that
// ends at offset in body, the offset a json.UnmarshalTypeError reports, or ""
// when the value is the whole body. encoding/json's own Field has no array
// indices, which are what a client needs to find the bad line.
func jsonPathAt(body []byte, offset int64) string {
	path, _ := jsonPathOf(body, false, func(end int64) bool { return end >= offset })
	return path
}

// jsonPathOf walks the tokens of body and returns the path of the first one
// for which stop(its end offset) holds: a value's own path, or for an
// object key (considered only when keys is set) the path of its object,
// with isKey set. It returns "" when no token stops the walk or the
// token is the whole body.
func jsonPathOf(body []byte, keys bool, stop func(end int64) bool) (path string, isKey bool) {
	type frame struct {
		array   bool
		index   int    // arrays: index of the next element
		key     string // objects: key of the current member
		wantKey bool   // objects: the next string token is a key
	}
	var stack []frame
	// valueDone moves the enclosing container past a finished value.
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].wantKey = true
			}
		}
	}
	// pathOf writes the path of the first n frames.
	pathOf := func(n int) string {
		var b strings.Builder
		for i, f := range stack[:n] {
			switch {
			case f.array:
				fmt.Fprintf(&b, "[%d]", f.index)
			case i == 0:
				b.WriteString(f.key)
			default:
				b.WriteString("." + f.key)
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			valueDone()
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if keys && stop(dec.InputOffset()) {
				// The object's path: its last frame names the member
				// before this key, which is not where the key is.
				return pathOf(n - 1), true
			}
			stack[n-1].key, _ = tok.(string)
			stack[n-1].wantKey = false
			continue
		}
		if stop(dec.InputOffset()) {
			return pathOf(len(stack)), false
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: d == '[', wantKey: d == '{'})
			continue
		}
		valueDone()
	}
}

// inexactKey returns the path of the first object key in body that names a
// struct field of t only when case is ignored ("Currency" for "currency"),
// or "". encoding/json matches keys case-insensitively, so such a body
// decodes; the API's field names are exact, as in any other JSON API, and
// a key that is not one is an unknown field. body must have decoded into
// a value of type t.
func inexactKey(body []byte, t reflect.Type) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	path, _ := inexactKeyIn(dec, t, "")
	return path
}

// unmarshalerType is what types decoding themselves implement.
var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// inexactKeyIn reads one value from dec, of type t (nil: not ours to
// check), whose path is path, and returns the path of the first key in it
// that is not one of its struct's exact field names.
func inexactKeyIn(dec *json.Decoder, t reflect.Type, path string) (string, error) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return "", nil // a scalar
	}
	if t == nil || reflect.PointerTo(t).Implements(unmarshalerType) {
		t = nil // decodes itself, or not ours to check: skip the value
	}
	var fields map[string]reflect.Type
	if t != nil && t.Kind() == reflect.Struct && d == '{' {
		fields = jsonFields(t, nil)
	}
	for i := 0; dec.More(); i++ {
		elem, elemPath := reflect.Type(nil), path
		switch {
		case d == '[':
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				elem = t.Elem()
			}
			elemPath = path + "[" + strconv.Itoa(i) + "]"
		default:
			tok, err := dec.Token()
			if err != nil {
				return "", err
			}
			key, _ := tok.(string)
			if path != "" {
				elemPath = path + "." + key
			} else {
				elemPath = key
			}
			switch {
			case fields != nil:
				ft, ok := fields[key]
				if !ok {
					return elemPath, nil
				}
				elem = ft
			case t != nil && t.Kind() == reflect.Map:
				elem = t.Elem()
			}
		}
		if found, err := inexactKeyIn(dec, elem, elemPath); found != "" || err != nil {
			return found, err
		}
	}
	_, err = dec.Token() // the closing delimiter
	return "", err
}

// jsonFields adds to m (made when nil) the JSON names of t's fields, with
// their types, as encoding/json sees them: tag names, else Go names,
// and the fields of untagged embedded structs.
func jsonFields(t reflect.Type, m map[string]reflect.Type) map[string]reflect.Type {
	if m == nil {
		m = map[string]reflect.Type{}
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			jsonFields(ft, m)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}

// checkJSONText finds the first string literal of a well-formed JSON body
// that does not decode to valid text and answers it with a 422 naming its
// field: raw bytes that are not UTF-8 and escaped lone surrogates
// ("\ud800"), both of which encoding/json silently replaces with U+FFFD,
// and NUL ("\u0000"), which Postgres refuses. A bad object key names the
// object it is in.
func checkJSONText(body []byte) error {
	start, code := findBadString(body)
	if code == "" {
		return nil
	}
	path, isKey := jsonPathOf(body, true, func(end int64) bool { return end > int64(start) })
	msg := textMessages[code]
	if isKey {
		msg = keyTextMessages[code]
	}
	if path == "" {
		return InvalidRequest("request body " + msg)
	}
	return ValidationProblem([]FieldError{{Field: path, Code: code, Message: msg}})
}

// findBadString returns the offset of the opening quote of the first
// string literal in body whose text is not valid (see checkJSONText),
// with the FieldError code that says why, or code "" when every string
// is valid. body must be syntactically valid JSON; the scan
// still never reads past its end.
func findBadString(body []byte) (start int, code string) {
	invalid := func() (int, string) { return start, field.InvalidUTF8 }
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		start = i
		for i++; i < len(body) && body[i] != '"'; i++ {
			switch c := body[i]; {
			case c == '\\':
				i++
				if i >= len(body) || body[i] != 'u' {
					continue // a one-letter escape; the loop steps past it
				}
				r, ok := hex4(body, i+1)
				if !ok {
					return invalid()
				}
				i += 4
				switch {
				case r == 0:
					return start, field.NulByte
				case 0xdc00 <= r && r <= 0xdfff:
					return invalid() // a low surrogate with no high one before it
				case 0xd800 <= r && r <= 0xdbff:
					low, ok := rune(0), false
					if i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
						low, ok = hex4(body, i+3)
					}
					if !ok || low < 0xdc00 || low > 0xdfff {
						return invalid()
					}
					i += 6
				}
			case c >= utf8.RuneSelf:
				r, size := utf8.DecodeRune(body[i:])
				if r == utf8.RuneError && size <= 1 {
					return invalid()
				}
				i += size - 1
			}
		}
	}
	return 0, ""
}

// hex4 reads the four hex digits of a \u escape at body[i:].
func hex4(body []byte, i int) (rune, bool) {
	if i+4 > len(body) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(body[i:i+4]), 16, 32)
	return rune(n), err == nil
}
