// Command mounttickets is a host app that already has users and sessions
// and mounts only tenantkit's tickets under its own prefix, with its own
// Authenticator: its session cookie decides who calls, tenantkit does the
// rest (tenant, role, module, limits, validation, storage). It keeps its
// data in SQLite (./host.db) and prints where it listens:
//
//	go run ./examples/mounttickets      # then: curl -b host_session=demo http://127.0.0.1:8081/support/api/tickets
//	go run ./examples/mounttickets -addr :9001 -db /tmp/host.db
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// sessions is the host's own session store: session token → user email.
type sessions map[string]string

// hostApp is the whole integration: tenantkit's tickets at /support/, the
// host's own pages beside them.
func hostApp(ctx context.Context, db *bun.DB, sess sessions) (http.Handler, *tenancy.Services, error) {
	if _, err := tenantkit.Migrate(ctx, db); err != nil {
		return nil, nil, err
	}
	app, err := tenantkit.New(db, catalog.Default())
	if err != nil {
		return nil, nil, err
	}
	cfg := app.HTTPConfig()
	cfg.Authenticator = httpapi.AuthenticatorFunc(func(r *http.Request) (*httpapi.Principal, error) {
		c, err := r.Cookie("host_session")
		if err != nil || sess[c.Value] == "" {
			return nil, httpapi.ErrNoCredential
		}
		user, err := cfg.Services.Directory.UserByEmail(r.Context(), sess[c.Value])
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
	return http.NewCrossOriginProtection().Handler(mux), app.Tenancy, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves the host app as the command line says until ctx ends.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mounttickets", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8081", "listen address")
	file := fs.String("db", "host.db", "SQLite file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sqldb, err := sql.Open("sqlite", "file:"+*file+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		return err
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	app, svc, err := hostApp(ctx, db, sessions{"demo": "ann@host.example"})
	if err != nil {
		return err
	}
	if err := seed(ctx, svc, "ann@host.example"); err != nil && !errors.Is(err, tenancy.ErrConflict) {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(out, "mounttickets: host app on %s, tenantkit's tickets under %s/support/; as the host's user ann:\n"+
		"  curl -s -b host_session=demo %s/support/api/tickets\n", url, url, url)
	srv := &http.Server{Handler: app, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// seed gives the demo user a tenant to file tickets in.
func seed(ctx context.Context, svc *tenancy.Services, email string) error {
	if _, err := svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "host", Name: "Host Inc", PlanID: catalog.PlanStarter}); err != nil {
		return err
	}
	if _, err := svc.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: email, Name: "Ann"}); err != nil {
		return err
	}
	_, err := svc.Members.Add(ctx, "host", email, tenancy.RoleMember)
	return err
}
