// Command baseline is the yardstick of tenantkit's benchmarks: the smallest
// honest server that does, per request, exactly tenantkit's database work
// on the same Postgres schema — plain net/http, pgx (pgxpool) and the very
// statements tenantkit's stores send, by the same protocol (bench's
// fairness check compares them per endpoint and stops the run when they
// differ: bench/fairness.go).
//
// Per request it authenticates the API key by the SHA-256 of its secret
// (joined to its user), reads the pinned tenant's membership — with the
// tenant's entitlement state in one UNION ALL query where the route checks
// a module or a limit — checks scope and role, runs the work in one
// transaction where tenantkit does (writing the event log's row in it) and
// encodes the same JSON shapes. It has no router library, no middleware
// chain, no access log, no rate limiter and no idempotency store: the ratio
// of tenantkit's numbers to these is the cost of all of that and of Bun and
// database/sql.
//
// --events=false leaves the event log out (no event insert, no dispatch
// SELECT): only the bench's event log cost measurement starts it so, to
// compare it with itself; it is never compared with tenantkit.
//
// Only API keys pinned to a tenant are supported; that is what the bench
// seeds. bench (the harness) builds and starts it; it is not meant for
// anything else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenantkit/tenantkit/catalog"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8090", "listen address")
	dbURL := fs.String("database-url", "", "postgres://… of a migrated tenantkit database")
	secret := fs.String("webhook-secret", "", "Standard Webhooks secret whsec_… of the payment webhook")
	pprofAddr := fs.String("pprof-addr", "", "serve net/http/pprof on this address (profiling runs)")
	events := fs.Bool("events", true, "write the event log's row (and run its dispatch SELECT) in every mutation; false only for the bench's event log cost measurement, never for a comparison with tenantkit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dbURL == "" {
		return errors.New("--database-url is required")
	}
	cfg, err := pgxpool.ParseConfig(*dbURL)
	if err != nil {
		return err
	}
	// As tenantkit's database.Open: values written into the text (pgx does
	// it in the simple protocol, as Bun does), one round trip each.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	// The same pool size as tenantkit's database.Open.
	cfg.MaxConns = int32(max(8, 4*runtime.GOMAXPROCS(0)))
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	s := &server{db: pool, cat: catalog.Default(), plans: map[string]catalog.Plan{}, noEvents: !*events}
	for _, p := range s.cat.Plans {
		s.plans[p.ID], _ = s.cat.Plan(p.ID)
	}
	if *secret != "" {
		if s.webhookKey, err = decodeWebhookSecret(*secret); err != nil {
			return err
		}
	}

	if *pprofAddr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		go func() { _ = http.ListenAndServe(*pprofAddr, mux) }()
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	s.publicURL = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-done:
		return err
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// server holds what every handler needs.
type server struct {
	db         *pgxpool.Pool
	cat        *catalog.Catalog
	plans      map[string]catalog.Plan
	webhookKey []byte
	// publicURL is where the hosted pages are: the URL of the listen
	// address, as tenantkit's default public URL.
	publicURL string
	// noEvents skips the event log (--events=false): see recordEvent.
	noEvents bool
}

// routes maps the endpoints the bench drives, on the same paths as
// tenantkit's.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/health/ready", func(w http.ResponseWriter, r *http.Request) {
		if err := s.db.Ping(r.Context()); err != nil {
			writeProblem(w, http.StatusServiceUnavailable, "not_ready", "database unreachable")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	mux.HandleFunc("GET /api/v1/collections/invoices", s.listInvoices)
	mux.HandleFunc("POST /api/v1/collections/invoices", s.createInvoice)
	mux.HandleFunc("GET /api/v1/collections/invoices/{id}", s.getInvoice)
	mux.HandleFunc("POST /api/tickets/{id}/comments", s.commentOnTicket)
	mux.HandleFunc("GET /api/events", s.listEvents)
	mux.HandleFunc("POST /api/tickets", s.createTicket)
	mux.HandleFunc("GET /api/tenant/entitlements/limit", s.entitlements)
	mux.HandleFunc("POST /api/invoices/preview", s.previewInvoice)
	mux.HandleFunc("POST /api/v1/collections/invoices/{id}/finalize", s.finalizeInvoice)
	mux.HandleFunc("POST /api/v1/collections/invoices/{id}/payments", s.recordPayment)
	mux.HandleFunc("POST /api/webhooks/payment-provider", s.paymentWebhook)
	return mux
}
