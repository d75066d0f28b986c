// Command fullapi serves tenantkit's whole API from a host app's own
// *bun.DB in a few lines: migrate, wire, serve.
//
//	go run ./examples/fullapi -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
package main

import (
	"context"
	"database/sql"
	"flag"
	"log"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
)

func main() {
	dsn := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "Postgres URL")
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()
	db := bun.NewDB(openPostgres(*dsn), pgdialect.New()) // the host's own database handle
	api, err := newAPI(context.Background(), db, []byte("change-me-change-me-change-me-32b!"))
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe(*addr, api.Handler()))
}

// newAPI is the whole integration: the schema, the services on the host's
// database, the host's settings, the API.
func newAPI(ctx context.Context, db *bun.DB, jwtSecret []byte) (*httpapi.API, error) {
	if _, err := httpapi.Migrate(ctx, db); err != nil {
		return nil, err
	}
	cfg := httpapi.NewConfig(db, catalog.Default())
	cfg.JWT.Secret = jwtSecret
	return httpapi.New(ctx, cfg)
}

// openPostgres opens a Postgres pool through pgx, as a host app would.
func openPostgres(dsn string) *sql.DB {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		log.Fatal(err)
	}
	return stdlib.OpenDB(*cfg)
}
