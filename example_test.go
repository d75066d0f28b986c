package tenantkit_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The whole API on a database of the host's: migrate it, wire the
// services, serve them, and call an endpoint with an API key.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "tenantkit-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sqldb, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "app.db")+
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		log.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()

	if _, err := tenantkit.Migrate(ctx, db); err != nil {
		log.Fatal(err)
	}
	app, err := tenantkit.New(db, catalog.Default())
	if err != nil {
		log.Fatal(err)
	}
	api, err := httpapi.New(ctx, app.HTTPConfig())
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()

	// A tenant, its owner and a key, through the services themselves.
	if _, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth}); err != nil {
		log.Fatal(err)
	}
	if _, err := app.Tenancy.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "ann@acme.example", Name: "Ann"}); err != nil {
		log.Fatal(err)
	}
	if _, err := app.Tenancy.Members.Add(ctx, "acme", "ann@acme.example", tenancy.RoleOwner); err != nil {
		log.Fatal(err)
	}
	_, key, err := app.Tenancy.Keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: "ann@acme.example", Tenant: "acme",
		Scopes: []tenancy.Scope{tenancy.ScopeCollectionsWrite}})
	if err != nil {
		log.Fatal(err)
	}

	req, _ := http.NewRequest("POST", srv.URL+"/api/v1/collections/invoices", strings.NewReader(
		`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"EUR",`+
			`"line_items":[{"description":"Consulting","quantity":2,"unit_amount":5000}]}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	fmt.Println(resp.Status, resp.Header.Get("Location")[:len("/api/v1/collections/invoices/inv_")])
	// Output: 201 Created /api/v1/collections/invoices/inv_
}
