// Command fullapi serves tenantkit's whole API from a host app's own
// *bun.DB in a few lines: migrate, wire, serve (newHandler), with the API's
// Prometheus metrics at /metrics. It runs on SQLite (fullapi.db) unless
// -db names a Postgres URL, seeds a tenant with an API key on its first
// start, and prints where it listens and how to call it:
//
//	go run ./examples/fullapi                 # http://127.0.0.1:8083, SQLite ./fullapi.db
//	go run ./examples/fullapi -addr :9000 -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
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
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// newHandler is the whole integration: the schema, the services on the
// host's database, the host's settings, the API, and its metrics beside it.
func newHandler(ctx context.Context, db *bun.DB, jwtSecret []byte) (http.Handler, *tenantkit.App, error) {
	if _, err := tenantkit.Migrate(ctx, db); err != nil {
		return nil, nil, err
	}
	app, err := tenantkit.New(db, catalog.Default())
	if err != nil {
		return nil, nil, err
	}
	cfg := app.HTTPConfig()
	cfg.JWT.Secret = jwtSecret
	metrics := prometheus.NewRegistry()
	cfg.Metrics = metrics
	api, err := httpapi.New(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(metrics, promhttp.HandlerOpts{}))
	mux.Handle("/", api.Handler())
	return mux, app, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves the API as the command line says until ctx ends.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("fullapi", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8083", "listen address")
	dsn := fs.String("db", "fullapi.db", "SQLite file, or a postgres:// URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, what, err := openDB(*dsn) // the host's own database handle
	if err != nil {
		return err
	}
	defer db.Close()
	handler, app, err := newHandler(ctx, db, []byte("change-me-change-me-change-me-32b!"))
	if err != nil {
		return err
	}
	key, err := seed(ctx, app.Tenancy)
	if err != nil {
		return err
	}
	// The periodic work: contract changes due, overdue invoices'
	// reminders and dunning, expired Idempotency-Keys. Safe on every
	// replica at once.
	go app.Scheduler.Run(ctx, time.Minute, nil)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(out, "fullapi: tenantkit's API on %s (%s), Prometheus metrics at %s/metrics\n", url, what, url)
	if key != "" {
		fmt.Fprintf(out, "API key of host@example.com, owner of tenant host (shown once): %s\n  curl -s %s/api/auth/me -H 'Authorization: Bearer %s'\n", key, url, key)
	} else {
		fmt.Fprintf(out, "tenant host was seeded on an earlier start; its key was shown then (delete %s to start over)\n", *dsn)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
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

// openDB opens the host's database: Postgres through pgx for a postgres://
// URL, else a SQLite file with WAL, a busy timeout and BEGIN IMMEDIATE,
// so that concurrent writers queue instead of failing. what describes it
// without its password.
func openDB(dsn string) (db *bun.DB, what string, err error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, "", err
		}
		// Bun writes the values into the SQL: nothing gains from pgx's
		// prepared statements, which a transaction-mode pooler (PgBouncer
		// before 1.21) loses between statements.
		if !strings.Contains(dsn, "default_query_exec_mode=") {
			cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		}
		return bun.NewDB(stdlib.OpenDB(*cfg), pgdialect.New()), "Postgres " + cfg.Host + "/" + cfg.Database, nil
	}
	sqldb, err := sql.Open("sqlite", "file:"+dsn+
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		return nil, "", err
	}
	return bun.NewDB(sqldb, sqlitedialect.New()), "SQLite " + dsn, nil
}

// seed makes tenant host with one owner and returns the owner's new API
// key, or "" when an earlier start made them.
func seed(ctx context.Context, svc *tenancy.Services) (string, error) {
	_, err := svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "host", Name: "Host", PlanID: catalog.PlanStarter})
	if errors.Is(err, tenancy.ErrConflict) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if _, err := svc.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "host@example.com", Name: "Host"}); err != nil {
		return "", err
	}
	if _, err := svc.Members.Add(ctx, "host", "host@example.com", tenancy.RoleOwner); err != nil {
		return "", err
	}
	_, key, err := svc.Keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: "host@example.com", Scopes: tenancy.Scopes()})
	return key, err
}
