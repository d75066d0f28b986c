package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

// inexactKeyByTokens is what inexactKey was before keyWalker: the same
// walk on json.Decoder.Token, slow but written on encoding/json's own
// reading of the text. FuzzInexactKey holds the two to the same answers.
func inexactKeyByTokens(body []byte, t reflect.Type) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	path, _ := inexactKeyIn(dec, t, "")
	return path
}

// inexactKeyIn reads one value from dec, of type t, whose path is path.
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
		fields = fieldsOf(t)
	}
	for i := 0; dec.More(); i++ {
		elem, elemPath := reflect.Type(nil), path
		switch {
		case d == '[':
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				elem = t.Elem()
			}
			elemPath = fmt.Sprintf("%s[%d]", path, i)
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

// FuzzInexactKey: for every body that decodes into a create-invoice
// input, inexactKey finds the key the token-by-token walk finds.
func FuzzInexactKey(f *testing.F) {
	for _, seed := range []string{
		`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":4900}]}`,
		`{"Customer":{"name":"Ada"}}`,
		`{"line_items":[{"description":"x"},{"QUANTITY":2}]}`,
		` { "metadata" : { "Any" : "v" , "x\"y" : "\u00e9" } , "memo" : "a\\b" } `,
		`{"customer":{"name":"A","em\u0061il":"x"},"due_date":null,"line_items":[]}`,
	} {
		f.Add([]byte(seed))
	}
	t := reflect.TypeFor[*billing.CreateInvoiceInput]()
	f.Fuzz(func(tt *testing.T, body []byte) {
		var in billing.CreateInvoiceInput
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if dec.Decode(&in) != nil {
			return
		}
		if _, err := dec.Token(); err == nil || err.Error() != "EOF" {
			return // what decodeJSON refuses before it asks inexactKey
		}
		if got, want := inexactKey(body, t), inexactKeyByTokens(body, t); got != want {
			tt.Fatalf("inexactKey(%q) = %q, the token walk gives %q", body, got, want)
		}
	})
}

// BenchmarkInexactKey compares the walk with the token-by-token one on a
// create-invoice body.
func BenchmarkInexactKey(b *testing.B) {
	body := []byte(`{"customer":{"name":"Ada Lovelace","email":"ada@example.com"},"currency":"USD","due_date":"2026-12-31","memo":"Thanks","metadata":{"order":"A-1"},"line_items":[{"description":"Plan","quantity":1,"unit_amount":4900,"tax_rate_bps":825},{"description":"Seats","quantity":12,"unit_amount":900}]}`)
	t := reflect.TypeFor[*billing.CreateInvoiceInput]()
	for _, c := range []struct {
		name string
		fn   func([]byte, reflect.Type) string
	}{{"walk", inexactKey}, {"tokens", inexactKeyByTokens}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p := c.fn(body, t); p != "" {
					b.Fatal(fmt.Sprint("found ", p))
				}
			}
		})
	}
}
