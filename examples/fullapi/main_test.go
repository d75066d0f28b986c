package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestFullAPI serves the API from a *bun.DB opened the way a host would,
// on SQLite and Postgres, and calls it with an API key.
func TestFullAPI(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		// A host's SQLite handle: WAL, a busy timeout and BEGIN IMMEDIATE
		// let concurrent writers queue instead of failing.
		dsn := "file:" + filepath.Join(t.TempDir(), "host.db") +
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
		sqldb, err := sql.Open("sqlite", dsn)
		if err != nil {
			t.Fatal(err)
		}
		check(t, bun.NewDB(sqldb, sqlitedialect.New()))
	})
	t.Run("postgres", func(t *testing.T) {
		check(t, bun.NewDB(openPostgres(dbtest.PostgresURL(t)), pgdialect.New()))
	})
}

func check(t *testing.T, db *bun.DB) {
	t.Helper()
	defer db.Close()
	ctx := context.Background()
	api, err := newAPI(ctx, db, []byte("test-secret-test-secret-test-secret!"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()

	key := seed(ctx, t, tenancy.NewService(tenancy.NewBunStore(db), catalog.Default()))
	req, _ := http.NewRequest("GET", srv.URL+"/api/auth/me", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var me struct {
		Email          string `json:"email"`
		ActiveTenantID string `json:"active_tenant_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&me); err != nil || resp.StatusCode != 200 || me.Email != "host@example.com" || me.ActiveTenantID == "" {
		t.Fatalf("GET /api/auth/me = %d %+v %v", resp.StatusCode, me, err)
	}
}

// seed makes a tenant with one member and returns the member's API key.
func seed(ctx context.Context, t *testing.T, svc *tenancy.Service) string {
	t.Helper()
	steps := []func() error{
		func() error {
			_, err := svc.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "host", Name: "Host", PlanID: catalog.PlanStarter})
			return err
		},
		func() error {
			_, err := svc.CreateUser(ctx, tenancy.CreateUserInput{Email: "host@example.com", Name: "Host"})
			return err
		},
		func() error {
			_, err := svc.AddMember(ctx, "host", "host@example.com", tenancy.RoleOwner)
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	_, key, err := svc.CreateAPIKey(ctx, tenancy.CreateAPIKeyInput{UserEmail: "host@example.com", Scopes: tenancy.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	return key
}
