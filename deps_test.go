package tenantkit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPostgresHostLinksNoSQLite: a host on Postgres that imports the
// library (the root package, the domains, the HTTP edges) compiles no
// SQLite driver; only the reference server and the tests link it.
func TestPostgresHostLinksNoSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{".", "./billing/...", "./catalog/...", "./event/...", "./field/...", "./httpapi/...", "./invoicepdf/...",
		"./portal/...", "./support/...", "./tenancy/...", "./webhook/..."}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "modernc.org/sqlite" || strings.HasPrefix(dep, "modernc.org/sqlite/") {
			t.Fatalf("the library links %s; only cmd/server and the tests may", dep)
		}
	}
	server, err := exec.Command("go", "list", "-deps", "./cmd/server").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, server)
	}
	if !strings.Contains(string(server), "\nmodernc.org/sqlite\n") {
		t.Fatal("cmd/server does not link modernc.org/sqlite: its SQLite default would not open")
	}
}
