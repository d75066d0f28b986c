package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// decodeTestInput resembles a create-invoice body.
type decodeTestInput struct {
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Customer struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"customer"`
	LineItems []struct {
		Description string `json:"description"`
		Quantity    int    `json:"quantity"`
	} `json:"line_items"`
	Metadata map[string]string `json:"metadata"`
	DueDate  *time.Time        `json:"due_date"`
}

// strings returns every string dst holds.
func (dst *decodeTestInput) strings() []string {
	out := []string{dst.Status, dst.Currency, dst.Customer.Name, dst.Customer.Email}
	for _, l := range dst.LineItems {
		out = append(out, l.Description)
	}
	for k, v := range dst.Metadata {
		out = append(out, k, v)
	}
	return out
}

const validDecodeBody = `{"currency":"USD","customer":{"name":"Ada","email":"ada@example.com"},"line_items":[{"description":"Seat","quantity":2}]}`

// newJSONRequest builds a POST with the given Content-Type and body.
func newJSONRequest(contentType, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

func TestDecodeJSON(t *testing.T) {
	const ct = "application/json"
	tests := []struct {
		name        string
		contentType string
		body        string
		wantStatus  int // 0: success
		wantCode    string
		wantErrors  []FieldError
		wantDetail  string // substring
	}{
		{name: "OK", contentType: ct, body: validDecodeBody},
		{name: "OKCharsetParam", contentType: "application/json; charset=utf-8", body: validDecodeBody},
		{name: "OKUpperCaseType", contentType: "Application/JSON", body: validDecodeBody},
		{name: "OKTrailingWhitespace", contentType: ct, body: validDecodeBody + "\n\t "},
		{name: "MissingContentType", contentType: "", body: validDecodeBody, wantStatus: 415, wantCode: CodeUnsupportedMediaType},
		{name: "TextPlain", contentType: "text/plain", body: validDecodeBody, wantStatus: 415, wantCode: CodeUnsupportedMediaType},
		{name: "FormContentType", contentType: "application/x-www-form-urlencoded", body: "a=b", wantStatus: 415, wantCode: CodeUnsupportedMediaType},
		{name: "BadContentType", contentType: "application/json; =", body: validDecodeBody, wantStatus: 415, wantCode: CodeUnsupportedMediaType},
		{name: "EmptyBody", contentType: ct, body: "", wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "empty"},
		{name: "WhitespaceBody", contentType: ct, body: "  \n", wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "empty"},
		{name: "Syntax", contentType: ct, body: `{"currency":"USD",}`, wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "offset 19"},
		{name: "Truncated", contentType: ct, body: `{"currency":"USD"`, wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "unexpected end"},
		{name: "TrailingData", contentType: ct, body: validDecodeBody + `{}`, wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "single JSON value"},
		{name: "TrailingGarbage", contentType: ct, body: validDecodeBody + `x`, wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "single JSON value"},
		{
			name: "UnknownField", contentType: ct, body: `{"currency":"USD","color":"red"}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "color", Code: "unknown_field", Message: "is not a known field"}},
		},
		{
			name: "UnknownNestedField", contentType: ct, body: `{"customer":{"phone":"1"}}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "phone", Code: "unknown_field", Message: "is not a known field"}},
		},
		{
			name: "KeyInOtherCase", contentType: ct, body: `{"currency":"USD","Customer":{"name":"A"}}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "Customer", Code: "unknown_field", Message: "is not a known field (names are case-sensitive)"}},
		},
		{
			name: "NestedKeyInOtherCase", contentType: ct, body: `{"line_items":[{"description":"a"},{"QUANTITY":1}]}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "line_items[1].QUANTITY", Code: "unknown_field", Message: "is not a known field (names are case-sensitive)"}},
		},
		{name: "OKMapKeysAnyCase", contentType: ct, body: strings.Replace(validDecodeBody, `"currency"`, `"metadata":{"Currency":"x"},"currency"`, 1)},
		{
			name: "FractionForInt", contentType: ct, body: `{"line_items":[{"quantity":1},{"quantity":1.5}]}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "line_items[1].quantity", Code: "invalid_type", Message: "must be an integer"}},
		},
		{
			name: "StringForNumber", contentType: ct, body: `{"line_items":[{"quantity":"3"}]}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "line_items[0].quantity", Code: "invalid_type", Message: "must be an integer"}},
		},
		{
			name: "NumberForString", contentType: ct, body: `{"customer":{"name":"A","email":5}}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "customer.email", Code: "invalid_type", Message: "must be a string"}},
		},
		{
			name: "ArrayForObject", contentType: ct, body: `{"customer":[1]}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "customer", Code: "invalid_type", Message: "must be an object"}},
		},
		{
			name: "MapValueType", contentType: ct, body: `{"metadata":{"a":"b","c":1}}`,
			wantStatus: 400, wantCode: CodeInvalidRequest,
			wantErrors: []FieldError{{Field: "metadata.c", Code: "invalid_type", Message: "must be a string"}},
		},
		{name: "RootArray", contentType: ct, body: `[1,2]`, wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "must be an object"},
		{name: "BadTime", contentType: ct, body: `{"due_date":"tomorrow"}`, wantStatus: 400, wantCode: CodeInvalidRequest, wantDetail: "invalid value"},
		{
			name: "InvalidUTF8", contentType: ct, body: `{"customer":{"name":"A` + "\xff" + `B"}}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "customer.name", Code: "invalid_utf8", Message: "must be valid UTF-8 text"}},
		},
		{
			name: "OverlongUTF8", contentType: ct, body: `{"currency":"` + "\xc0\x80" + `"}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "currency", Code: "invalid_utf8", Message: "must be valid UTF-8 text"}},
		},
		{
			name: "SurrogateInUTF8", contentType: ct, body: `{"line_items":[{"description":"` + "\xed\xa0\x80" + `"}]}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "line_items[0].description", Code: "invalid_utf8", Message: "must be valid UTF-8 text"}},
		},
		{
			name: "NulEscape", contentType: ct, body: `{"line_items":[{"description":"a"},{"description":"b\u0000"}]}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "line_items[1].description", Code: "nul_byte", Message: "must not contain NUL (U+0000)"}},
		},
		{
			name: "LoneHighSurrogate", contentType: ct, body: `{"status":"\ud800"}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "status", Code: "invalid_utf8", Message: "must be valid UTF-8 text"}},
		},
		{
			name: "HighSurrogateThenLetter", contentType: ct, body: `{"status":"\uD800\u0041"}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "status", Code: "invalid_utf8", Message: "must be valid UTF-8 text"}},
		},
		{
			name: "LoneLowSurrogate", contentType: ct, body: `{"status":"x\\\udc00"}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "status", Code: "invalid_utf8", Message: "must be valid UTF-8 text"}},
		},
		{
			name: "MetadataKeyInvalidUTF8", contentType: ct, body: `{"metadata":{"ok":"1","a` + "\xff" + `":"b"}}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "metadata", Code: "invalid_utf8", Message: "has a key that is not valid UTF-8 text"}},
		},
		{
			name: "MetadataKeyNul", contentType: ct, body: `{"metadata":{"\u0000":"b"}}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "metadata", Code: "nul_byte", Message: "has a key that contains NUL (U+0000)"}},
		},
		{
			name: "MetadataValueNul", contentType: ct, body: `{"metadata":{"k":"v\u0000"}}`,
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantErrors: []FieldError{{Field: "metadata.k", Code: "nul_byte", Message: "must not contain NUL (U+0000)"}},
		},
		{name: "OKSurrogatePair", contentType: ct, body: strings.Replace(validDecodeBody, `"Ada"`, `"\ud83d\ude00 Ada"`, 1)},
		{name: "OKReplacementCharacterSent", contentType: ct, body: strings.Replace(validDecodeBody, `"Seat"`, `"\ufffd \\u0000 `+"\uFFFD"+`"`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst decodeTestInput
			err := DecodeJSON(newJSONRequest(tt.contentType, tt.body), &dst)
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("DecodeJSON: %v", err)
				}
				if dst.Currency != "USD" || dst.Customer.Email != "ada@example.com" || len(dst.LineItems) != 1 || dst.LineItems[0].Quantity != 2 {
					t.Errorf("decoded %+v", dst)
				}
				return
			}
			p := mustProblem(t, err, tt.wantStatus, tt.wantCode)
			if tt.wantErrors != nil && !reflect.DeepEqual(p.Errors, tt.wantErrors) {
				t.Errorf("errors =\n%+v\nwant\n%+v", p.Errors, tt.wantErrors)
			}
			if !strings.Contains(p.Detail, tt.wantDetail) {
				t.Errorf("detail = %q, want it to contain %q", p.Detail, tt.wantDetail)
			}
		})
	}
}

func TestDecodeJSONNonStruct(t *testing.T) {
	var m map[string]int
	if err := DecodeJSON(newJSONRequest("application/json", `{"a":1}`), &m); err != nil {
		t.Fatalf("DecodeJSON into a map: %v", err)
	}
	if m["a"] != 1 {
		t.Errorf("m = %v, want a:1", m)
	}
}

func TestDecodeJSONNotPointer(t *testing.T) {
	var dst decodeTestInput
	err := DecodeJSON(newJSONRequest("application/json", validDecodeBody), dst)
	var p *Problem
	if err == nil || errors.As(err, &p) {
		t.Fatalf("error = %v, want a plain (500) error for a programming mistake", err)
	}
}

// TestDecodeJSONLeavesValuesToTheDomain checks that DecodeJSON judges the
// JSON only: values a service refuses (an unknown status, a short
// currency, a long name, an empty list) decode as sent, for the service
// to answer with its own field errors.
func TestDecodeJSONLeavesValuesToTheDomain(t *testing.T) {
	body := `{"status":"paid","currency":"US","customer":{"name":"` + strings.Repeat("n", 201) + `","email":"nope"},"line_items":[],"metadata":{"a":"1","b":"2","c":"3"}}`
	var dst decodeTestInput
	if err := DecodeJSON(newJSONRequest("application/json", body), &dst); err != nil {
		t.Fatalf("DecodeJSON: %v", err)
	}
	if dst.Status != "paid" || dst.Currency != "US" || len(dst.Customer.Name) != 201 || dst.LineItems == nil || len(dst.Metadata) != 3 {
		t.Errorf("decoded %+v, want the body as sent", dst)
	}
}

func TestJSONPathAt(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		offset int64
		want   string
	}{
		{name: "Root", body: `[1]`, offset: 1, want: ""},
		{name: "TopLevel", body: `{"a":1,"b":"x"}`, offset: 14, want: "b"},
		{name: "Nested", body: `{"a":{"b":{"c":true}}}`, offset: 18, want: "a.b.c"},
		{name: "ArrayIndex", body: `{"a":[1,2,{"b":3}]}`, offset: 16, want: "a[2].b"},
		{name: "ArrayOfArrays", body: `{"a":[[1],[2,3]]}`, offset: 14, want: "a[1][1]"},
		{name: "AfterNestedObject", body: `{"a":{"x":1},"b":2}`, offset: 18, want: "b"},
		{name: "Garbage", body: `{"a":`, offset: 100, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsonPathAt([]byte(tt.body), tt.offset); got != tt.want {
				t.Errorf("jsonPathAt(%s, %d) = %q, want %q", tt.body, tt.offset, got, tt.want)
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	const max = 64
	tests := []struct {
		name        string
		max         int64
		body        string
		chunked     bool // hide the length, so only MaxBytesReader can catch it
		wantStatus  int
		wantHandler bool
	}{
		{name: "UnderLimit", max: max, body: strings.Repeat("x", max), wantStatus: 200, wantHandler: true},
		{name: "DeclaredTooLarge", max: max, body: strings.Repeat("x", max+1), wantStatus: 413},
		{name: "ChunkedTooLarge", max: max, body: strings.Repeat("x", max+1), chunked: true, wantStatus: 413, wantHandler: true},
		{name: "NoLimit", max: 0, body: strings.Repeat("x", 10*max), wantStatus: 200, wantHandler: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			limit := bodyLimit(tt.max)
			h := HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				if err := limit.check(r); err != nil {
					return err
				}
				r = limit.bound(w, r)
				called = true
				if _, err := io.ReadAll(r.Body); err != nil {
					return err // *http.MaxBytesError: 413 through problemFor
				}
				w.WriteHeader(http.StatusOK)
				return nil
			})
			r := newJSONRequest("application/json", tt.body)
			if tt.chunked {
				r.ContentLength = -1
				r.Body = io.NopCloser(strings.NewReader(tt.body))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d (%s)", rec.Code, tt.wantStatus, rec.Body)
			}
			if called != tt.wantHandler {
				t.Errorf("handler called = %v, want %v", called, tt.wantHandler)
			}
			if tt.wantStatus == 413 {
				if p := mustDecodeProblem(t, rec); p.Code != CodePayloadTooLarge {
					t.Errorf("code = %q, want %q", p.Code, CodePayloadTooLarge)
				}
			}
		})
	}
}

// FuzzDecodeJSON checks that no body, however broken, panics the decoder or
// gets anything but a client-error problem.
func FuzzDecodeJSON(f *testing.F) {
	f.Add("application/json", validDecodeBody)
	f.Add("application/json", `{"line_items":[{"quantity":1.5}]}`)
	f.Add("application/json", `{"customer":{"email":5}}`)
	f.Add("application/json", `{"unknown":1}`)
	f.Add("application/json", `[{"a":[[[]]]}]`)
	f.Add("application/json", `{"due_date":"2024-13-01T00:00:00Z"}`)
	f.Add("application/json", `{"metadata":{"k":"v"}} trailing`)
	f.Add("application/json", `"\ud800"`)
	f.Add("application/json", `{"metadata":{"k\ud83d\ude00":"\udc00"}}`)
	f.Add("application/json", `{"currency":"`+"\xff"+`"}`)
	f.Add("application/json", ``)
	f.Add("text/plain", `{}`)
	f.Add("application/json; charset=utf-8", `{"currency":"USD","line_items":[]}`)
	f.Add("application/json", `{"currency":"`+strings.Repeat("x", 300)+`"}`)

	f.Fuzz(func(t *testing.T, contentType, body string) {
		r := newJSONRequest(contentType, body)
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 256)
		var dst decodeTestInput
		err := DecodeJSON(r, &dst)
		if err == nil {
			// What decodes is the client's text: nothing a database
			// refuses, and no U+FFFD the client did not send.
			sentFFFD := strings.Contains(body, "\uFFFD") || strings.Contains(strings.ToLower(body), `\ufffd`)
			for _, s := range dst.strings() {
				if textProblem(s) != "" || (!sentFFFD && strings.ContainsRune(s, '\uFFFD')) {
					t.Fatalf("DecodeJSON(%q) accepted the string %q", body, s)
				}
			}
			return
		}
		var p *Problem
		if !errors.As(err, &p) {
			t.Fatalf("DecodeJSON(%q, %q) = %v (%T), want a *Problem", contentType, body, err, err)
		}
		switch p.Status {
		case 400, 413, 415, 422:
		default:
			t.Fatalf("DecodeJSON(%q, %q) status = %d, want 400, 413, 415 or 422", contentType, body, p.Status)
		}
	})
}

func TestDecodeJSONTooLarge(t *testing.T) {
	r := newJSONRequest("application/json", `{"currency":"`+strings.Repeat("x", 100)+`"}`)
	r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 32)
	var dst decodeTestInput
	mustProblem(t, DecodeJSON(r, &dst), 413, CodePayloadTooLarge)
}
