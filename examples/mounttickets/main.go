// Command mounttickets is a host app that already has users and sessions
// and mounts only tenantkit's tickets under its own prefix, with its own
// Authenticator: its session cookie decides who calls, tenantkit does the
// rest (tenant, role, module, limits, validation, storage).
//
//	go run ./examples/mounttickets      # then: curl -b host_session=demo localhost:8081/support/api/tickets
package main

import (
	"context"
	"database/sql"
	"log"
	"net/http"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// sessions is the host's own session store: session token → user email.
type sessions map[string]string

// hostApp is the whole integration: tenantkit's tickets at /support/, the
// host's own pages beside them.
func hostApp(ctx context.Context, db *bun.DB, sess sessions) (http.Handler, *tenancy.Service, error) {
	if _, err := httpapi.Migrate(ctx, db); err != nil {
		return nil, nil, err
	}
	cfg := httpapi.NewConfig(db, catalog.Default())
	cfg.Authenticator = httpapi.AuthenticatorFunc(func(r *http.Request) (*httpapi.Principal, error) {
		c, err := r.Cookie("host_session")
		if err != nil || sess[c.Value] == "" {
			return nil, httpapi.ErrNoCredential
		}
		user, err := cfg.Tenancy.UserByEmail(r.Context(), sess[c.Value])
		if err != nil {
			return nil, err
		}
		return &httpapi.Principal{User: user, Method: "host_session",
			Scopes:     []tenancy.Scope{tenancy.ScopeTicketsRead, tenancy.ScopeTicketsWrite},
			Credential: tenancy.Credential{Key: "host:" + c.Value, UserID: user.ID}}, nil
	})
	api, err := httpapi.New(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/support/", http.StripPrefix("/support", api.GroupHandler(httpapi.GroupSupport)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("host home\n")) })
	// The host's cookie is ambient: cross-origin browser writes are refused.
	return http.NewCrossOriginProtection().Handler(mux), cfg.Tenancy, nil
}

func main() {
	ctx := context.Background()
	sqldb, err := sql.Open("sqlite", "file:host.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		log.Fatal(err)
	}
	app, svc, err := hostApp(ctx, bun.NewDB(sqldb, sqlitedialect.New()), sessions{"demo": "ann@host.example"})
	if err != nil {
		log.Fatal(err)
	}
	if err := seed(ctx, svc, "ann@host.example"); err != nil {
		log.Printf("seed: %v (already seeded?)", err)
	}
	log.Fatal(http.ListenAndServe(":8081", app))
}

// seed gives the demo user a tenant to file tickets in.
func seed(ctx context.Context, svc *tenancy.Service, email string) error {
	if _, err := svc.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "host", Name: "Host Inc", PlanID: catalog.PlanStarter}); err != nil {
		return err
	}
	if _, err := svc.CreateUser(ctx, tenancy.CreateUserInput{Email: email, Name: "Ann"}); err != nil {
		return err
	}
	_, err := svc.AddMember(ctx, "host", email, tenancy.RoleMember)
	return err
}
