package tenantkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestInterfacesAreSmall: no exported interface of the module has more than
// 12 methods, its embedded interfaces of the same package counted in. A
// consumer declares the few methods it calls; a store that keeps more
// splits in two (webhook/outbound's EndpointStore and DeliveryStore).
// Generated code is left out: httpapi/client's ClientInterface has a
// method per operation of the OpenAPI document, as its generator makes it.
func TestInterfacesAreSmall(t *testing.T) {
	const most = 12
	type pkgIfaces map[string]*ast.InterfaceType
	pkgs := map[string]pkgIfaces{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bench" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		dir := filepath.Dir(path)
		if pkgs[dir] == nil {
			pkgs[dir] = pkgIfaces{}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					pkgs[dir][ts.Name.Name] = it
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var count func(ifaces pkgIfaces, it *ast.InterfaceType, depth int) int
	count = func(ifaces pkgIfaces, it *ast.InterfaceType, depth int) int {
		n := 0
		for _, m := range it.Methods.List {
			if len(m.Names) > 0 {
				n += len(m.Names)
				continue
			}
			if id, ok := m.Type.(*ast.Ident); ok && ifaces[id.Name] != nil && depth < 5 {
				n += count(ifaces, ifaces[id.Name], depth+1)
			}
		}
		return n
	}
	checked := 0
	for dir, ifaces := range pkgs {
		for name, it := range ifaces {
			if !ast.IsExported(name) {
				continue
			}
			checked++
			if n := count(ifaces, it, 0); n > most {
				t.Errorf("%s: interface %s has %d methods; at most %d", dir, name, n, most)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d exported interfaces: the walk missed the module", checked)
	}
}
