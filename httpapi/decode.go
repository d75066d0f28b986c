package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// DecodeJSON reads the request body as exactly one JSON value into dst,
// strictly. It judges only the JSON; whether the values make sense is for
// the service the handler calls, whose *field.InvalidError problemFor
// answers with 422. Every way the JSON can be wrong is answered with a
// *Problem:
//
//   - Content-Type not application/json: 415 unsupported_media_type;
//   - body over the endpoint's bodyLimit: 413 payload_too_large;
//   - empty body, malformed JSON, trailing data, unknown field ("unknown_field",
//     also a known name in other case, which encoding/json would take)
//     or a value of the wrong type ("invalid_type"): 400 invalid_request;
//   - a string (value or object key) that is not valid UTF-8 or holds a
//     NUL, which encoding/json would otherwise turn into U+FFFD or pass on
//     to a database that refuses it: 422 validation_failed naming the
//     field, code "invalid_utf8" or "nul_byte".
//
// Other errors are programming errors (dst not a pointer) and end as 500s.
func DecodeJSON(r *http.Request, dst any) error {
	if err := checkJSONContentType(r); err != nil {
		return err
	}
	if r.Body == nil || r.Body == http.NoBody {
		return InvalidRequest("request body is empty")
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeJSONBody(body, dst)
}

// readBody reads r's body whole (bodyLimit bounds it), so that a type
// error's offset can be turned into the JSON path of the offending value.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, problemFor(tooLarge)
		}
		return nil, InvalidRequest("could not read request body")
	}
	return body, nil
}

// decodeJSONBody decodes body, a request's JSON, into dst as DecodeJSON
// describes.
func decodeJSONBody(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return InvalidRequest("request body is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeProblem(err, body)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return InvalidRequest("request body must contain a single JSON value")
	}
	if path := inexactKey(body, reflect.TypeOf(dst)); path != "" {
		return InvalidRequest("request body has an unknown field",
			FieldError{Field: path, Code: "unknown_field", Message: "is not a known field (names are case-sensitive)"})
	}
	return checkJSONText(body)
}

// checkJSONContentType refuses a request whose body is not declared JSON
// with 415.
func checkJSONContentType(r *http.Request) error {
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		return NewProblem(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType,
			"Content-Type must be application/json")
	}
	return nil
}

// isJSONContentType reports whether a Content-Type header names JSON;
// parameters such as charset are allowed.
func isJSONContentType(ct string) bool {
	switch ct {
	case "":
		return false
	case "application/json":
		return true // what nearly every client sends, without parsing it
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// decodeProblem explains a json.Decoder error to the client.
func decodeProblem(err error, body []byte) error {
	var (
		syntaxErr  *json.SyntaxError
		typeErr    *json.UnmarshalTypeError
		invalidErr *json.InvalidUnmarshalError
	)
	switch {
	case errors.As(err, &invalidErr):
		return fmt.Errorf("httpapi: decode JSON: %w", err)
	case errors.As(err, &syntaxErr):
		return InvalidRequest(fmt.Sprintf("malformed JSON at offset %d: %s", syntaxErr.Offset, syntaxErr.Error()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return InvalidRequest("malformed JSON: unexpected end of input")
	case errors.As(err, &typeErr):
		path := jsonPathAt(body, typeErr.Offset)
		if path == "" {
			path = typeErr.Field
		}
		msg := "must be " + describeJSONType(typeErr.Type)
		if path == "" {
			return InvalidRequest("request body " + msg)
		}
		return InvalidRequest("a field has the wrong type", FieldError{Field: path, Code: "invalid_type", Message: msg})
	}
	// encoding/json reports unknown fields only through this message.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if unq, uerr := strconv.Unquote(name); uerr == nil {
			name = unq
		}
		return InvalidRequest("request body has an unknown field",
			FieldError{Field: name, Code: "unknown_field", Message: "is not a known field"})
	}
	// What is left comes from the UnmarshalJSON of a field's type (a time
	// that is not RFC 3339, say); its message describes the client's value.
	return InvalidRequest("request body has an invalid value: " + err.Error())
}

// describeJSONType names, in JSON terms, what a Go type accepts.
func describeJSONType(t reflect.Type) string {
	if t == nil {
		return "of another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "of another type"
}

// bodyLimit caps an endpoint's request bodies at so many bytes: a
// declared Content-Length over the cap is refused with 413 before anything
// else runs (check), and reading past the cap a body that declares no
// length fails with *http.MaxBytesError (capBody), which DecodeJSON and
// problemFor answer with 413. Zero or less means no limit.
type bodyLimit int64

// check refuses a request whose declared Content-Length is over the limit.
func (l bodyLimit) check(r *http.Request) error {
	if l > 0 && r.ContentLength > int64(l) {
		return problemFor(&http.MaxBytesError{Limit: int64(l)})
	}
	return nil
}

// capBody caps r's body in place. Handlers must not modify the request
// they were given, so r must be the caller's own copy (chain's, which
// carries the request's context).
func (l bodyLimit) capBody(w http.ResponseWriter, r *http.Request) {
	if l.applies(r) {
		r.Body = http.MaxBytesReader(w, r.Body, int64(l))
	}
}

// bound returns r with its body capped, copying r when it has a body: for
// the public endpoints, which copy no request otherwise.
func (l bodyLimit) bound(w http.ResponseWriter, r *http.Request) *http.Request {
	if !l.applies(r) {
		return r
	}
	r = r.WithContext(r.Context())
	l.capBody(w, r)
	return r
}

// applies reports whether there is a limit and a body for it to cap.
func (l bodyLimit) applies(r *http.Request) bool {
	return l > 0 && r.Body != nil && r.Body != http.NoBody
}

// decodeOptionalJSON is DecodeJSON for an endpoint whose body may be left
// out: no body, or one of only white space, leaves dst as it is (as {}
// would); any other body is decoded as DecodeJSON does.
func decodeOptionalJSON(r *http.Request, dst any) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := checkJSONContentType(r); err != nil {
		return err
	}
	return decodeJSONBody(body, dst)
}
