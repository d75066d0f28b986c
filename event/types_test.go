package event

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// typeValue is the form of an event type: "<resource>.<what happened>".
var typeValue = regexp.MustCompile(`^[a-z_]+\.[a-z_.]+$`)

// TestTypesListsEveryConstant reads the package's source and checks that
// every exported string constant shaped like an event type is in Types,
// and that Types holds nothing else.
func TestTypesListsEveryConstant(t *testing.T) {
	fset := token.NewFileSet()
	var consts []string
	for _, file := range []string{"event.go", "types.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", file, err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					if typeValue.MatchString(v) {
						consts = append(consts, v)
					}
				}
			}
		}
	}
	slices.Sort(consts)
	if len(consts) < 30 {
		t.Fatalf("found only %d type constants; the parser missed them", len(consts))
	}
	if got := Types(); !slices.Equal(got, consts) {
		for _, c := range consts {
			if !slices.Contains(got, c) {
				t.Errorf("Types() lacks %q", c)
			}
		}
		for _, g := range got {
			if !slices.Contains(consts, g) {
				t.Errorf("Types() lists %q, which is no constant", g)
			}
		}
	}
	if got := Types(); len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("Types() repeats a type: %v", got)
	}
}

func TestIsType(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{{InvoicePaid, true}, {WebhookEndpointDisabled, true}, {"invoice", false}, {"", false}, {"invoice.paid ", false}} {
		if got := IsType(tt.in); got != tt.want {
			t.Errorf("IsType(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
