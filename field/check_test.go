package field_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/field"
)

type sampleLine struct {
	Quantity int    `json:"quantity" validate:"min=1,max=1000"`
	Name     string `json:"name" validate:"required,max=5,line"`
}

func init() { field.RegisterEnum("colour", []string{"red", "green"}, "colour") }

type sample struct {
	Colour   string            `json:"colour,omitempty" validate:"omitempty,colour"`
	Name     string            `json:"name" validate:"required,max=10,line"`
	Memo     string            `json:"memo,omitempty" validate:"omitempty,max=20,text"`
	Status   string            `json:"status,omitempty" validate:"omitempty,oneof=draft open"`
	Currency string            `json:"currency" validate:"required,currency"`
	Due      string            `json:"due_date,omitempty" validate:"omitempty,datetime=2006-01-02"`
	Email    string            `json:"email,omitempty" validate:"omitempty,max=254,email"`
	Tenant   string            `json:"tenant_id,omitempty" validate:"omitempty,id=ten"`
	Event    string            `json:"event_id,omitempty" validate:"omitempty,max=128,token"`
	Country  string            `json:"country,omitempty" validate:"omitempty,country"`
	Locale   string            `json:"locale,omitempty" validate:"omitempty,locale"`
	Slug     string            `json:"slug,omitempty" validate:"omitempty,max=63,slug"`
	Seats    *int              `json:"seats,omitempty" validate:"omitempty,min=1,max=100"`
	Lines    []sampleLine      `json:"lines" validate:"required,min=1,max=2,dive"`
	Tags     []string          `json:"tags,omitempty" validate:"max=3,dive,max=4,line"`
	Metadata map[string]string `json:"metadata,omitempty" validate:"max=2,dive,keys,min=1,max=40,line,endkeys,max=3,text"`
}

func valid() sample {
	return sample{Name: "Ada", Currency: "USD", Lines: []sampleLine{{Quantity: 1, Name: "x"}}}
}

func TestCheck(t *testing.T) {
	seats := 0
	tests := []struct {
		name        string
		edit        func(*sample)
		field, code string
		message     string
	}{
		{"valid", func(*sample) {}, "", "", ""},
		{"missing", func(s *sample) { s.Name = "" }, "name", field.Required, "is required"},
		{"too long counts characters", func(s *sample) { s.Name = strings.Repeat("é", 11) }, "name", field.TooLong, "must have at most 10 characters"},
		{"ten characters fit", func(s *sample) { s.Name = strings.Repeat("é", 10) }, "", "", ""},
		{"line refuses a tab", func(s *sample) { s.Name = "a\tb" }, "name", field.ControlCharacter, "must be a single line without control characters"},
		{"text takes a tab", func(s *sample) { s.Memo = "a\tb\r\nc" }, "", "", ""},
		{"text refuses bell", func(s *sample) { s.Memo = "a\ab" }, "memo", field.ControlCharacter, "must not contain control characters other than tab and line breaks"},
		{"nul", func(s *sample) { s.Memo = "a\x00" }, "memo", field.NulByte, "must not contain NUL (U+0000)"},
		{"invalid utf-8", func(s *sample) { s.Name = "a\xff" }, "name", field.InvalidUTF8, "must be valid UTF-8"},
		{"oneof", func(s *sample) { s.Status = "paid" }, "status", field.Invalid, "must be one of: draft, open"},
		{"retired currency", func(s *sample) { s.Currency = "HRK" }, "currency", field.Invalid, "HRK is not an active ISO 4217 currency"},
		{"lower-case currency", func(s *sample) { s.Currency = "usd" }, "currency", field.Invalid, "currency codes are upper case: USD"},
		{"no minor unit", func(s *sample) { s.Currency = "XAU" }, "currency", field.Invalid, "XAU (Gold) has no minor unit"},
		{"date", func(s *sample) { s.Due = "2026-02-30" }, "due_date", field.Invalid, "must be a date in the layout YYYY-MM-DD"},
		{"date ok", func(s *sample) { s.Due = "2026-02-28" }, "", "", ""},
		{"email with a name", func(s *sample) { s.Email = "Ada <ada@example.com>" }, "email", field.Invalid, "must be a valid email address"},
		{"email upper case", func(s *sample) { s.Email = "Ada@example.com" }, "email", field.Invalid, "must be a valid email address"},
		{"email with a newline", func(s *sample) { s.Email = "ada@example.com\n" }, "email", field.Invalid, "must be a valid email address"},
		{"token with a space", func(s *sample) { s.Event = "evt 1" }, "event_id", field.Invalid, "must be printable ASCII without spaces"},
		{"token not ascii", func(s *sample) { s.Event = "évt" }, "event_id", field.Invalid, "must be printable ASCII without spaces"},
		{"token ok", func(s *sample) { s.Event = "evt_1:a.b-c" }, "", "", ""},
		{"email ok", func(s *sample) { s.Email = "ada@example.com" }, "", "", ""},
		{"id of another kind", func(s *sample) { s.Tenant = "usr_01hzy3k8x4w2v9q6r5t7m3n0pb" }, "tenant_id", field.Invalid, "must be an id like ten_"},
		{"id ok", func(s *sample) { s.Tenant = "ten_01hzy3k8x4w2v9q6r5t7m3n0pb" }, "", "", ""},
		{"country lower case", func(s *sample) { s.Country = "de" }, "country", field.Invalid, "ISO 3166-1 alpha-2"},
		{"country unknown", func(s *sample) { s.Country = "QQ" }, "country", field.Invalid, "ISO 3166-1 alpha-2"},
		{"country ok", func(s *sample) { s.Country = "CH" }, "", "", ""},
		{"locale underscore", func(s *sample) { s.Locale = "en_US" }, "locale", field.Invalid, "BCP 47"},
		{"locale ok", func(s *sample) { s.Locale = "de-CH" }, "", "", ""},
		{"registered enum", func(s *sample) { s.Colour = "blue" }, "colour", field.Invalid, `unknown colour "blue"`},
		{"registered enum ok", func(s *sample) { s.Colour = "green" }, "", "", ""},
		{"slug upper case", func(s *sample) { s.Slug = "Acme" }, "slug", field.Invalid, "must be lower-case letters, digits or inner hyphens"},
		{"slug trailing hyphen", func(s *sample) { s.Slug = "acme-" }, "slug", field.Invalid, "inner hyphens"},
		{"slug leading hyphen", func(s *sample) { s.Slug = "-" }, "slug", field.Invalid, "inner hyphens"},
		{"slug ok", func(s *sample) { s.Slug = "a-9" }, "", "", ""},
		{"pointer out of range", func(s *sample) { s.Seats = &seats }, "seats", field.OutOfRange, "must be between 1 and 100"},
		{"no lines", func(s *sample) { s.Lines = nil }, "lines", field.Required, "is required"},
		{"empty lines", func(s *sample) { s.Lines = []sampleLine{} }, "lines", field.Required, "must have at least 1 item"},
		{"too many lines", func(s *sample) { s.Lines = make([]sampleLine, 3) }, "lines", field.TooMany, "must have at most 2 items"},
		{"nested", func(s *sample) { s.Lines[0].Quantity = 1001 }, "lines[0].quantity", field.OutOfRange, "must be between 1 and 1000"},
		{"list item", func(s *sample) { s.Tags = []string{"ok", "toolong"} }, "tags[1]", field.TooLong, "must have at most 4 characters"},
		{"too many keys", func(s *sample) { s.Metadata = map[string]string{"a": "", "b": "", "c": ""} }, "metadata", field.TooMany, "must have at most 2 keys"},
		{"empty key", func(s *sample) { s.Metadata = map[string]string{"": "v"} }, "metadata", field.Required, `key "": is required`},
		{"key with a dot", func(s *sample) { s.Metadata = map[string]string{"a.b": "long"} }, "metadata", field.TooLong, `value of "a.b": must have at most 3 characters`},
		{"bad key", func(s *sample) { s.Metadata = map[string]string{"a\nb": "v"} }, "metadata", field.ControlCharacter, `key "a\nb": must be a single line`},
		{"numeric key", func(s *sample) { s.Metadata = map[string]string{"12": "long"} }, "metadata", field.TooLong, `value of "12"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := valid()
			tt.edit(&s)
			err := field.Check(&s)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var ie *field.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("Check = %v, want an *InvalidError", err)
			}
			got := ie.Errors()
			if len(got) != 1 {
				t.Fatalf("Check found %v, want one error", got)
			}
			if got[0].Field != tt.field || got[0].Code != tt.code || !strings.Contains(got[0].Message, tt.message) {
				t.Errorf("Check = %+v, want %s %s %q…", got[0], tt.field, tt.code, tt.message)
			}
		})
	}
}

// TestCheckReportsEveryField: all fields at once, in declaration order.
func TestCheckReportsEveryField(t *testing.T) {
	err := field.Check(sample{})
	var ie *field.InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("Check = %v", err)
	}
	var got []string
	for _, fe := range ie.Errors() {
		got = append(got, fe.Field)
	}
	if want := "name currency lines"; strings.Join(got, " ") != want {
		t.Errorf("fields = %q, want %q", strings.Join(got, " "), want)
	}
}

// TestCheckNamesOneMapEntry: of several bad entries, the first key speaks
// for the map, whatever order validator walks it in.
func TestCheckNamesOneMapEntry(t *testing.T) {
	for range 20 {
		s := valid()
		s.Metadata = map[string]string{"b": "long", "a": "long"}
		var ie *field.InvalidError
		if !errors.As(field.Check(s), &ie) {
			t.Fatal("Check accepted two bad entries")
		}
		if got := ie.Errors()[0].Message; got != `value of "a": must have at most 3 characters` {
			t.Fatalf("message = %q, want the entry of key a", got)
		}
	}
}

type ref struct {
	UserID string `json:"user_id,omitempty" validate:"omitempty,id=usr"`
}

type withEmbedded struct {
	ref
	Role string `json:"role" validate:"required"`
}

// TestCheckFlattensEmbeddedStructs: fields of an embedded struct are
// named as encoding/json names them, at the parent's level.
func TestCheckFlattensEmbeddedStructs(t *testing.T) {
	var ie *field.InvalidError
	if !errors.As(field.Check(withEmbedded{ref: ref{UserID: "x"}, Role: "admin"}), &ie) {
		t.Fatal("Check accepted a malformed user_id")
	}
	if got := ie.Errors()[0].Field; got != "user_id" {
		t.Errorf("field = %q, want user_id", got)
	}
}

// TestRegisterEnumAfterCheckPanics: rules are fixed once Check has run.
func TestRegisterEnumAfterCheckPanics(t *testing.T) {
	_ = field.Check(valid())
	defer func() {
		if recover() == nil {
			t.Error("RegisterEnum after Check did not panic")
		}
	}()
	field.RegisterEnum("late", []string{"x"}, "late")
}

func TestEnum(t *testing.T) {
	if got, ok := field.Enum("colour"); !ok || strings.Join(got, " ") != "green red" {
		t.Errorf("Enum(colour) = %v, %v", got, ok)
	}
	if _, ok := field.Enum("line"); ok {
		t.Error("Enum(line) is no enum")
	}
}
