package iso4217_test

import (
	"encoding/xml"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/iso4217"
)

// readListOne reads the vendored list one on its own, walking the XML
// tokens rather than sharing the generator's decoding, and returns its
// publication date and one Currency per code, in code order.
func readListOne(t *testing.T) (string, []iso4217.Currency) {
	t.Helper()
	f, err := os.Open("testdata/list-one.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	var (
		published string
		entry     map[string]string
		field     string
		byCode    = map[string]iso4217.Currency{}
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "ISO_4217":
				for _, a := range tok.Attr {
					if a.Name.Local == "Pblshd" {
						published = a.Value
					}
				}
			case "CcyNtry":
				entry = map[string]string{}
			default:
				field = tok.Name.Local
				for _, a := range tok.Attr {
					if a.Name.Local == "IsFund" {
						entry["IsFund"] = a.Value
					}
				}
			}
		case xml.CharData:
			if entry != nil && field != "" {
				entry[field] += string(tok)
			}
		case xml.EndElement:
			field = ""
			if tok.Name.Local != "CcyNtry" {
				continue
			}
			code := strings.TrimSpace(entry["Ccy"])
			if code == "" {
				entry = nil
				continue
			}
			c := iso4217.Currency{Code: code, Name: strings.TrimSpace(entry["CcyNm"]), Fund: entry["IsFund"] == "true"}
			if c.Numeric, err = strconv.Atoi(strings.TrimSpace(entry["CcyNbr"])); err != nil {
				t.Fatalf("%s: numeric code: %v", code, err)
			}
			if unit := strings.TrimSpace(entry["CcyMnrUnts"]); unit == "N.A." {
				c.MinorUnits = iso4217.NoMinorUnit
			} else if c.MinorUnits, err = strconv.Atoi(unit); err != nil {
				t.Fatalf("%s: minor unit: %v", code, err)
			}
			if prev, ok := byCode[code]; ok && prev != c {
				t.Fatalf("%s is listed twice, differently: %+v and %+v", code, prev, c)
			}
			byCode[code] = c
			entry = nil
		}
	}
	all := make([]iso4217.Currency, 0, len(byCode))
	for _, c := range byCode {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b iso4217.Currency) int { return strings.Compare(a.Code, b.Code) })
	return published, all
}

// TestTableIsListOne checks the generated table against the vendored file:
// same publication date, same codes, each with the same numeric code, name,
// minor unit and fund mark. It fails when the file was replaced and
// `go generate ./internal/iso4217` not run.
func TestTableIsListOne(t *testing.T) {
	published, want := readListOne(t)
	if iso4217.Published != published {
		t.Errorf("Published = %q, the file says %q", iso4217.Published, published)
	}
	got := iso4217.All()
	if len(got) != len(want) {
		t.Errorf("the table has %d codes, the file %d", len(got), len(want))
	}
	for _, w := range want {
		g, ok := iso4217.Lookup(w.Code)
		if !ok {
			t.Errorf("Lookup(%q): not found", w.Code)
			continue
		}
		if g != w {
			t.Errorf("Lookup(%q) = %+v, the file says %+v", w.Code, g, w)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("All() differs from the file")
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		code  string
		ok    bool
		units int
		fund  bool
	}{
		{"USD", true, 2, false},
		{"JPY", true, 0, false},
		{"KWD", true, 3, false},
		{"IQD", true, 3, false},
		{"IDR", true, 2, false},
		{"CLF", true, 4, true},
		{"UYW", true, 4, false},
		{"UYI", true, 0, true},
		{"USN", true, 2, true},
		{"XAU", true, iso4217.NoMinorUnit, false},
		{"XXX", true, iso4217.NoMinorUnit, false},
		{"HRK", false, 0, false},
		{"usd", false, 0, false},
		{"", false, 0, false},
		{"AAA", false, 0, false},
		{"ZZZ", false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			c, ok := iso4217.Lookup(tt.code)
			if ok != tt.ok || c.MinorUnits != tt.units || c.Fund != tt.fund || (ok && c.Code != tt.code) {
				t.Errorf("Lookup(%q) = %+v, %v; want minor units %d, fund %v, found %v", tt.code, c, ok, tt.units, tt.fund, tt.ok)
			}
			if ok && c.HasMinorUnit() != (tt.units != iso4217.NoMinorUnit) {
				t.Errorf("HasMinorUnit() = %v", c.HasMinorUnit())
			}
		})
	}
}
