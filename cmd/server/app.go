package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"
	"github.com/uptrace/bun"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/mail/mailqueue"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// app is what every subcommand works with: the database, the catalog and
// the domain services, wired once.
type app struct {
	cfg     config
	log     zerolog.Logger
	db      *bun.DB
	catalog *catalog.Catalog
	// kit is every service wired on the database (tenantkit.New); the
	// admin commands use its services directly.
	kit       *tenantkit.App
	tenancy   *tenancy.Services
	contracts *contract.Service
	billing   *billing.Service
	// metrics holds the process's Prometheus instruments: Go runtime,
	// process, database pool, and the API's own.
	metrics *prometheus.Registry
	// tracer is the tracer provider of OTEL_* settings; nil: untraced.
	tracer *sdktrace.TracerProvider
}

// newLogger builds the zerolog logger the config asks for.
func newLogger(cfg config, w io.Writer) (zerolog.Logger, error) {
	level, err := zerolog.ParseLevel(strings.ToLower(cfg.LogLevel))
	if err != nil || cfg.LogLevel == "" {
		return zerolog.Logger{}, failure(nil, "log level %q: want debug, info, warn or error", cfg.LogLevel)
	}
	switch cfg.LogFormat {
	case "json":
	case "console":
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.RFC3339}
	default:
		return zerolog.Logger{}, failure(nil, "log format %q: want json or console", cfg.LogFormat)
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}

// openApp opens the database, migrates it when asked, loads the catalog and
// builds the services.
func openApp(ctx context.Context, cfg config, logOut io.Writer, migrate bool) (*app, error) {
	log, err := newLogger(cfg, logOut)
	if err != nil {
		return nil, err
	}
	cat := catalog.Default()
	if cfg.Catalog != "" {
		if cat, err = catalog.Load(cfg.Catalog); err != nil {
			return nil, failure(err, "cannot load the catalog %s", cfg.Catalog)
		}
	}
	db, err := database.Open(ctx, cfg.DatabaseURL, database.Options{})
	if err != nil {
		return nil, openError(err)
	}
	if migrate {
		n, err := tenantkit.Migrate(ctx, db)
		if err != nil {
			_ = db.Close()
			return nil, failure(err, "cannot migrate the database; the log line above says why")
		}
		if n > 0 {
			log.Info().Int("applied", n).Msg("migrations applied")
		}
	}
	tp, err := startTracing(ctx, db)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(db.DB, "tenantkit"))
	a := &app{cfg: cfg, log: log, db: db, catalog: cat, metrics: reg, tracer: tp}
	opts, err := outboundOptions(cfg, log)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if tp != nil {
		opts = append(opts, tenantkit.WithTracerProvider(tp))
	}
	if cfg.PlatformName != "" {
		opts = append(opts, tenantkit.WithPlatformName(cfg.PlatformName))
	}
	if cfg.SMTPURL != "" {
		mo, err := mailOption(a)
		if err != nil {
			_ = db.Close()
			return nil, err
		}
		opts = append(opts, mo)
	}
	opts = append(opts, tenantkit.WithDeliveries(riverqueue.Options{
		Workers:     cfg.WebhookWorkers, // 0: serve does not start the queue; New takes its default
		RescueAfter: cfg.WebhookRescueAfter,
		// River's own log, warnings and errors only.
		Logger: slog.New(zerolog.NewSlogHandler(log.With().Str("component", "river").Logger().Level(max(zerolog.WarnLevel, log.GetLevel())))),
	}))
	if a.kit, err = tenantkit.New(db, cat, opts...); err != nil {
		_ = db.Close()
		return nil, err
	}
	a.kit.EventRetention = cfg.EventRetention
	a.tenancy, a.contracts, a.billing = a.kit.Tenancy, a.kit.Contracts, a.kit.Billing
	return a, nil
}

// close sends the spans still buffered, if tracing, and closes the
// database.
func (a *app) close() error {
	if a.tracer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.tracer.Shutdown(ctx)
	}
	return a.db.Close()
}

// openError is the sentence for a database that database.Open could not
// open: unreachable (refused, no such database or role, an unreadable
// file), or a --database-url it does not take.
func openError(err error) error {
	if database.Unavailable(err) {
		return failure(err, "cannot connect to the database; the log line above says why")
	}
	return failure(err, "cannot open the database: --database-url takes postgres://… or sqlite:PATH; the log line above says why")
}

// main runs the CLI and exits with its status.
func main() {
	ctx, stop := signalContext()
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runMain runs the command line args as main does and returns the exit
// status, having reported a failure on stderr (as JSON with --json).
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	return report(stderr, reportLogger(args, stderr), err, jsonRequested(args))
}

// mailOption is the emails' option of --smtp-url and --mail-from; the
// hosted pages' links start with the server's public URL.
func mailOption(a *app) (tenantkit.Option, error) {
	if a.cfg.MailFrom == "" {
		return nil, failure(nil, "--smtp-url needs --mail-from (TENANTKIT_MAIL_FROM), the address the emails come from")
	}
	sender, err := mail.NewSMTP(a.cfg.SMTPURL, nil)
	if err != nil {
		return nil, failure(nil, "--smtp-url (TENANTKIT_SMTP_URL): %v", strings.TrimPrefix(err.Error(), "mail: "))
	}
	return tenantkit.WithMail(sender, a.cfg.MailFrom, a.publicURL(), mailqueue.Options{}), nil
}
