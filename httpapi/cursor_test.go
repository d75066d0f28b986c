package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, id := range []string{"inv_01jd3k8v9w2x4y5z6a7b8c9d0e", "a", "evt_1QbX.Live:A", strings.Repeat("z", maxCursorIDLen)} {
		t.Run(id, func(t *testing.T) {
			c := encodeCursor(id)
			if strings.ContainsAny(c, "=+/") {
				t.Errorf("cursor %q is not unpadded base64url", c)
			}
			got, err := decodeCursor(c)
			if err != nil {
				t.Fatalf("decodeCursor(%q): %v", c, err)
			}
			if got != id {
				t.Errorf("decodeCursor(encodeCursor(%q)) = %q", id, got)
			}
		})
	}
}

func TestDecodeCursorInvalid(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	tests := []struct {
		name   string
		cursor string
	}{
		{name: "NotBase64", cursor: "!!!"},
		{name: "Padded", cursor: base64.URLEncoding.EncodeToString([]byte("v1:inv_1"))},
		{name: "StdAlphabet", cursor: base64.RawStdEncoding.EncodeToString([]byte("v1:inv_1??>"))},
		{name: "NoVersion", cursor: b64([]byte("inv_1"))},
		{name: "OtherVersion", cursor: b64([]byte("v2:inv_1"))},
		{name: "EmptyID", cursor: b64([]byte("v1:"))},
		{name: "Space", cursor: b64([]byte("v1:inv 1"))},
		{name: "NotASCII", cursor: b64([]byte("v1:inv_é"))},
		{name: "Control", cursor: b64([]byte("v1:inv_\x01"))},
		{name: "TooLongID", cursor: b64([]byte("v1:" + strings.Repeat("a", maxCursorIDLen+1)))},
		{name: "TooLongCursor", cursor: strings.Repeat("A", 10000)},
		{name: "Empty", cursor: ""},
		{name: "LineBreak", cursor: b64([]byte("v1:inv_1"))[:4] + "\n" + b64([]byte("v1:inv_1"))[4:]},
		{name: "NonCanonicalTrailingBits", cursor: "djE6aW52XzF"}, // canonical: djE6aW52XzE
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := decodeCursor(tt.cursor)
			if id != "" {
				t.Errorf("id = %q, want \"\"", id)
			}
			p := mustProblem(t, err, http.StatusBadRequest, CodeInvalidRequest)
			if len(p.Errors) != 1 || p.Errors[0].Field != "cursor" {
				t.Errorf("errors = %+v, want one for field cursor", p.Errors)
			}
		})
	}
}

func TestParseListParams(t *testing.T) {
	cursor := encodeCursor("inv_01jd")
	tests := []struct {
		name       string
		query      string
		wantLimit  int
		wantBefore string
		wantField  string // "" means success
	}{
		{name: "Defaults", query: "", wantLimit: 20},
		{name: "Limit", query: "limit=5", wantLimit: 5},
		{name: "LimitMin", query: "limit=1", wantLimit: 1},
		{name: "LimitMax", query: "limit=100", wantLimit: 100},
		{name: "Cursor", query: "cursor=" + cursor, wantLimit: 20, wantBefore: "inv_01jd"},
		{name: "Both", query: "limit=50&cursor=" + cursor, wantLimit: 50, wantBefore: "inv_01jd"},
		{name: "EmptyValuesAreDefaults", query: "limit=&cursor=", wantLimit: 20},
		{name: "LimitZero", query: "limit=0", wantField: "limit"},
		{name: "LimitTooLarge", query: "limit=101", wantField: "limit"},
		{name: "LimitNegative", query: "limit=-1", wantField: "limit"},
		{name: "LimitNotNumber", query: "limit=ten", wantField: "limit"},
		{name: "LimitFraction", query: "limit=2.5", wantField: "limit"},
		{name: "LimitHuge", query: "limit=99999999999999999999", wantField: "limit"},
		{name: "BadCursor", query: "cursor=nope", wantField: "cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/?"+tt.query, nil)
			limit, before, err := ParseListParams(r)
			if tt.wantField != "" {
				p := mustProblem(t, err, http.StatusBadRequest, CodeInvalidRequest)
				if len(p.Errors) != 1 || p.Errors[0].Field != tt.wantField {
					t.Errorf("errors = %+v, want one for field %s", p.Errors, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseListParams(%q): %v", tt.query, err)
			}
			if limit != tt.wantLimit || before != tt.wantBefore {
				t.Errorf("got (%d, %q), want (%d, %q)", limit, before, tt.wantLimit, tt.wantBefore)
			}
		})
	}
}

func TestNewListResponse(t *testing.T) {
	type item struct {
		ID string `json:"id"`
	}
	idOf := func(i item) string { return i.ID }
	tests := []struct {
		name     string
		items    []item
		hasMore  bool
		wantJSON string
	}{
		{name: "Nil", items: nil, wantJSON: `{"data":[],"has_more":false,"next_cursor":null}`},
		{name: "LastPage", items: []item{{"inv_2"}, {"inv_1"}}, wantJSON: `{"data":[{"id":"inv_2"},{"id":"inv_1"}],"has_more":false,"next_cursor":null}`},
		{
			name: "MorePages", items: []item{{"inv_3"}, {"inv_2"}}, hasMore: true,
			wantJSON: `{"data":[{"id":"inv_3"},{"id":"inv_2"}],"has_more":true,"next_cursor":"` + encodeCursor("inv_2") + `"}`,
		},
		{name: "HasMoreButEmpty", items: []item{}, hasMore: true, wantJSON: `{"data":[],"has_more":true,"next_cursor":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(NewListResponse(tt.items, tt.hasMore, idOf))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.wantJSON {
				t.Errorf("JSON = %s, want %s", b, tt.wantJSON)
			}
		})
	}
}

// FuzzDecodeCursor checks that any ?cursor= value either decodes to a
// well-formed id or is refused with a 400 problem, without panicking.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor("inv_01jd3k8v9w2x4y5z6a7b8c9d0e"))
	f.Add(encodeCursor(""))
	f.Add("")
	f.Add("djE6")
	f.Add("djE6SU5W")
	f.Add("====")
	f.Add(url.QueryEscape("v1:inv_1"))
	f.Add(strings.Repeat("A", 200))
	f.Fuzz(func(t *testing.T, s string) {
		id, err := decodeCursor(s)
		if err != nil {
			var p *Problem
			if !errors.As(err, &p) || p.Status != http.StatusBadRequest {
				t.Fatalf("decodeCursor(%q) error = %v, want a 400 problem", s, err)
			}
			return
		}
		if id == "" || len(id) > maxCursorIDLen || strings.IndexFunc(id, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
			t.Fatalf("decodeCursor(%q) = %q, not a well-formed id", s, id)
		}
		if encodeCursor(id) != s {
			t.Fatalf("decodeCursor(%q) = %q, which encodes to another cursor", s, id)
		}
	})
}
