package apidoc

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tkfield "github.com/tenantkit/tenantkit/field"
)

// The document of a small API, with one body schema per operation.
const testDoc = `{
  "openapi": "3.0.3",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/a": {"post": {"operationId": "postA", "tags": ["A"],
      "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}},
      "responses": {"204": {"description": "done"}}}},
    "/b": {"get": {"operationId": "getB", "responses": {"204": {"description": "done"}}}}
  },
  "components": {"schemas": {
    "Currency": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3},
    "A": {"type": "object", "required": ["name", "currency", "lines"], "properties": {
      "name": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"},
      "currency": {"allOf": [{"$ref": "#/components/schemas/Currency"}]},
      "tenant_id": {"type": "string", "pattern": "^ten_[0-7][0-9a-hjkmnp-tv-z]{25}$", "maxLength": 30},
      "status": {"type": "string", "enum": ["draft", "open"]},
      "due": {"type": "string", "format": "date", "maxLength": 10},
      "at": {"type": "string", "format": "date-time", "maxLength": 35},
      "lines": {"type": "array", "minItems": 1, "maxItems": 100, "items": {
        "type": "object", "required": ["quantity"], "properties": {
          "quantity": {"type": "integer", "format": "int64", "minimum": 1, "maximum": 1000000}}}},
      "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "minLength": 1, "maxLength": 32}},
      "metadata": {"type": "object", "maxProperties": 50,
        "x-propertyNames": {"type": "string", "minLength": 1, "maxLength": 40},
        "additionalProperties": {"type": "string", "maxLength": 500}},
      "memo": {"type": "string", "nullable": true, "maxLength": 2000},
      "raw": {},
      "amount": {"type": "integer", "format": "int64", "minimum": -9223372036854775808, "maximum": 9223372036854775807}
    }}
  }}
}`

type line struct {
	Quantity int64 `json:"quantity" validate:"required,min=1,max=1000000"`
}

type common struct {
	Memo *string `json:"memo,omitempty" validate:"omitempty,max=2000"`
}

type patch[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// agreeing is the Go type the document above describes.
type agreeing struct {
	common
	Name     string            `json:"name" validate:"required,max=200,line"`
	Currency string            `json:"currency" validate:"required,currency"`
	TenantID string            `json:"tenant_id,omitempty" validate:"omitempty,id=ten"`
	Status   string            `json:"status,omitempty" validate:"omitempty,oneof=open draft"`
	Due      patch[string]     `json:"due,omitzero" validate:"omitempty,datetime=2006-01-02"`
	At       *time.Time        `json:"at,omitempty"`
	Lines    []line            `json:"lines" validate:"required,min=1,max=100,dive"`
	Tags     []string          `json:"tags,omitempty" validate:"max=10,dive,min=1,max=32"`
	Metadata map[string]string `json:"metadata,omitempty" validate:"max=50,dive,keys,min=1,max=40,endkeys,max=500"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Amount   int64             `json:"amount"` // the type's own range
	ignored  string
}

// disagreeing breaks the document in every way Compare reports.
type disagreeing struct {
	Name     string            `json:"name" validate:"max=100,text"`
	Currency string            `json:"currency" validate:"required"`
	TenantID string            `json:"tenant_id" validate:"required,id=usr"`
	Status   string            `json:"status" validate:"oneof=open draft paid"`
	Due      string            `json:"due" validate:"datetime=2006-01-02"`
	At       time.Time         `json:"at"`
	Lines    []line            `json:"lines" validate:"required,max=100"`
	Tags     []string          `json:"tags" validate:"max=10,unique,dive,max=32"`
	Metadata map[string]string `json:"metadata" validate:"dive,keys,max=40,endkeys,max=500"`
	Extra    int               `json:"extra"`
}

func mustBody(t *testing.T) Body {
	t.Helper()
	doc, err := Load([]byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	bodies := RequestBodies(doc)
	if len(bodies) != 1 || bodies[0].OperationID != "postA" || !slices.Equal(bodies[0].Tags, []string{"A"}) {
		t.Fatalf("RequestBodies = %+v, want postA's alone", bodies)
	}
	return bodies[0]
}

func TestCompareAgreeing(t *testing.T) {
	b := mustBody(t)
	for _, typ := range []reflect.Type{reflect.TypeFor[agreeing](), reflect.TypeFor[*agreeing]()} {
		if msgs := Compare(b.Schema, typ); len(msgs) > 0 {
			t.Errorf("Compare(%s) = \n%s\nwant no disagreement", typ, strings.Join(msgs, "\n"))
		}
	}
}

func TestCompareDisagreeing(t *testing.T) {
	msgs := Compare(mustBody(t).Schema, reflect.TypeFor[disagreeing]())
	want := []string{
		"name: the document lists it as required but the tags do not require it",
		"name: pattern is", // line in the document, text in the tags
		"name: maxLength is 200 in the document but 100",
		"name: the shortest length", // minLength 1, not required
		"currency: pattern is",      // the tags lack currency
		"tenant_id: the tags require it but the document does not list it as required",
		`tenant_id: pattern is "^ten_`, // id=usr
		"status: enum is [draft open] in the document but [draft open paid]",
		"lines: the tag does not dive",
		"lines: minItems is 1 in the document but 0",
		"tags: uniqueItems is false",
		"tags[]: the shortest length",
		"metadata: maxProperties is 50 in the document but none",
		"metadata{key}: the shortest length",
		"memo: the document has this property",
		"raw: the document has this property",
		"extra: the type has field Extra",
		// datetime without omitempty refuses a body without due
		"due: the tags require it but the document does not list it",
	}
	for _, w := range want {
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, w) }) {
			t.Errorf("no disagreement starting %q in\n%s", w, strings.Join(msgs, "\n"))
		}
	}
	// due: datetime is format date, which the document has; at: a
	// time.Time is a date-time either way.
	for _, m := range msgs {
		if strings.HasPrefix(m, "due:") && !strings.Contains(m, "require") || strings.HasPrefix(m, "at:") {
			t.Errorf("unexpected disagreement %q", m)
		}
	}
}

func TestParseTag(t *testing.T) {
	tg := parseTag("max=50,dive,keys,min=1,max=40,endkeys,required,max=500")
	if len(tg.rules) != 1 || tg.rules[0] != (rule{"max", "50"}) {
		t.Errorf("rules = %v", tg.rules)
	}
	if want := []rule{{"min", "1"}, {"max", "40"}}; !slices.Equal(tg.keys, want) {
		t.Errorf("keys = %v, want %v", tg.keys, want)
	}
	if tg.items == nil || !slices.Equal(tg.items.rules, []rule{{"required", ""}, {"max", "500"}}) {
		t.Errorf("items = %+v", tg.items)
	}
	if got := oneOf("a 'b c' d"); !slices.Equal(got, []string{"a", "b c", "d"}) {
		t.Errorf("oneOf = %q", got)
	}
}

// TestSlugPatternIsTheRule: SlugPattern takes what field's rule slug takes.
func TestSlugPatternIsTheRule(t *testing.T) {
	re := regexp.MustCompile(goRegexp(SlugPattern))
	for _, s := range []string{"", "a", "9", "acme", "acme-eu", "a--b", "-", "-a", "a-", "Acme", "a_b", "a b", "é"} {
		ruled := tkfield.Check(struct {
			S string `validate:"slug"`
		}{s}) == nil
		if re.MatchString(s) != ruled {
			t.Errorf("%q: SlugPattern matches %v, rule slug takes %v", s, re.MatchString(s), ruled)
		}
	}
}

// TestComparePatch: a merge patch of A takes A's rules for each member,
// none required (the items of a list still are: a list is sent whole);
// count rules of a map bound the merged result, not the patch; a member
// that cannot change must be absent.
func TestComparePatch(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(testDoc), &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	a := schemas["A"].(map[string]any)
	props := a["properties"].(map[string]any)
	delete(a, "required")
	delete(props, "currency") // fixed: an A's currency never changes
	delete(props["metadata"].(map[string]any), "maxProperties")
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	body := func(data []byte) Body {
		d, err := Load(data)
		if err != nil {
			t.Fatal(err)
		}
		return RequestBodies(d)[0]
	}
	if msgs := ComparePatch(body(data).Schema, reflect.TypeFor[agreeing](), "currency"); len(msgs) > 0 {
		t.Errorf("ComparePatch = \n%s\nwant no disagreement", strings.Join(msgs, "\n"))
	}

	// The same patch that requires a member and keeps the fixed one.
	a["required"] = []string{"name"}
	props["currency"] = map[string]any{"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	msgs := ComparePatch(body(data).Schema, reflect.TypeFor[agreeing](), "currency")
	for _, w := range []string{"name: a patch's members are optional", "currency: cannot change"} {
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, w) }) {
			t.Errorf("no disagreement starting %q in\n%s", w, strings.Join(msgs, "\n"))
		}
	}
	// Items of a list keep their required members.
	lineProps := props["lines"].(map[string]any)["items"].(map[string]any)
	lineProps["required"] = []string{}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	msgs = ComparePatch(body(data).Schema, reflect.TypeFor[agreeing](), "currency")
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "lines[].quantity: the tags require it") }) {
		t.Errorf("a line's quantity is required in a patch too; got\n%s", strings.Join(msgs, "\n"))
	}
}
