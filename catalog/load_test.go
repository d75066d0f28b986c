package catalog_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
)

// minimal is the smallest valid catalog document.
const minimal = `{
  "apps": [{"id": "support", "name": "Support", "description": "", "modules": [
    {"id": "support.tickets", "name": "Tickets", "description": "", "toggleable": true}]}],
  "plans": [{"id": "solo", "name": "Solo", "currency": "USD", "interval": "month",
    "base_price": 500, "included_seats": 1, "seat_price": 0, "modules": ["support.tickets"],
    "limits": {"collections.invoices": 0, "support.tickets": 5, "seats": 1}}]
}`

func TestParse(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c := mustParse(t, minimal)
		p := mustPlan(t, c, "solo")
		if got, want := p.BasePrice, int64(500); got != want {
			t.Errorf("BasePrice = %d, want %d", got, want)
		}
	})

	for _, tc := range []struct {
		name string
		data string
		want string // substring of the error
	}{
		{"ErrEmpty", " \n", "catalog: decode: empty document"},
		{"ErrSyntax", `{"apps": [`, "catalog: decode: unexpected EOF"},
		{"ErrUnknownTopLevelField", `{"apps": [], "plans": [], "version": 2}`, `catalog: decode: json: unknown field "version"`},
		{"ErrUnknownPlanField", strings.Replace(minimal, `"seat_price": 0`, `"seat_price": 0, "trial_days": 14`, 1),
			`json: unknown field "trial_days"`},
		{"ErrUnknownModuleField", strings.Replace(minimal, `"toggleable": true`, `"toggleable": true, "beta": true`, 1),
			`json: unknown field "beta"`},
		{"ErrWrongType", strings.Replace(minimal, `"base_price": 500`, `"base_price": "5.00"`, 1),
			"catalog: decode: json: cannot unmarshal string"},
		{"ErrFractionalAmount", strings.Replace(minimal, `"base_price": 500`, `"base_price": 5.5`, 1),
			"catalog: decode: json: cannot unmarshal number 5.5"},
		{"ErrTrailingData", minimal + ` {}`, "catalog: decode: unexpected data after the catalog object"},
		{"ErrNull", `null`, "catalog: invalid catalog: plans: must have at least 1 item"},
		{"ErrInvalid", strings.Replace(minimal, `"currency": "USD"`, `"currency": "usd"`, 1),
			`catalog: invalid catalog: plans[0].currency: currency codes are upper case: USD`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := catalog.Parse([]byte(tc.data))
			if err == nil {
				t.Fatalf("Parse() = %v, nil; want error containing %q", c, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse() error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParse_ValidationErrorAs(t *testing.T) {
	data := strings.Replace(minimal, `"modules": ["support.tickets"]`, `"modules": ["support.foo"]`, 1)
	_, err := catalog.Parse([]byte(data))
	var verr *catalog.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Parse() error = %v, want a *ValidationError", err)
	}
	want := catalog.Problem{Path: "plans[0].modules[0]", Message: `unknown module "support.foo"`}
	if len(verr.Problems) != 1 || verr.Problems[0] != want {
		t.Errorf("problems = %q, want [%q]", verr.Problems, want)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()

	t.Run("OK", func(t *testing.T) {
		path := filepath.Join(dir, "catalog.json")
		if err := os.WriteFile(path, []byte(minimal), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := catalog.Load(path)
		if err != nil {
			t.Fatalf("Load() error = %v", err)
		}
		if got, want := c.Digest(), mustParse(t, minimal).Digest(); got != want {
			t.Errorf("Digest() = %s, want %s (as parsed from memory)", got, want)
		}
	})

	t.Run("ErrNotExist", func(t *testing.T) {
		path := filepath.Join(dir, "missing.json")
		_, err := catalog.Load(path)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Load() error = %v, want it to wrap fs.ErrNotExist", err)
		}
		var perr *fs.PathError
		if !errors.As(err, &perr) {
			t.Errorf("Load() error = %v, want it to wrap the *fs.PathError", err)
		}
		if want := "catalog: load " + path + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Load() error = %q, want prefix %q", err, want)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		path := filepath.Join(dir, "invalid.json")
		data := strings.Replace(minimal, `"interval": "month"`, `"interval": "weekly"`, 1)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := catalog.Load(path)
		var verr *catalog.ValidationError
		if !errors.As(err, &verr) {
			t.Fatalf("Load() error = %v, want a *ValidationError", err)
		}
		want := "catalog: load " + path + ": invalid catalog: plans[0].interval: must be one of: month, year"
		if got := err.Error(); got != want {
			t.Errorf("Load() error = %q, want %q", got, want)
		}
	})

	t.Run("ErrUnknownField", func(t *testing.T) {
		path := filepath.Join(dir, "unknown.json")
		if err := os.WriteFile(path, []byte(`{"apps": [], "plans": [], "extra": 1}`), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := catalog.Load(path)
		want := "catalog: load " + path + `: decode: json: unknown field "extra"`
		if err == nil || err.Error() != want {
			t.Errorf("Load() error = %v, want %q", err, want)
		}
	})
}
