package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit"
)

// config is the server's configuration, from flags with TENANTKIT_*
// environment variables as their defaults.
type config struct {
	Addr           string
	DatabaseURL    string
	Catalog        string
	WebhookSecrets []string
	WebhookScheme  string
	JWTSecret      string
	JWTJWKSURL     string
	JWTIssuer      string
	JWTAudience    string
	CSRFSecret     string
	RateLimit      float64
	RateBurst      int
	MaxBodyBytes   int64
	LogLevel       string
	LogFormat      string
	RedisURL       string
	TrustedProxies []string
	Migrate        bool
	// Portal serves the tenant portal at /portal/.
	Portal bool
	Demo   bool
	// DemoEnv is the file where --demo writes its keys and ids.
	DemoEnv string
	JSON    bool
	// SchedulerInterval is how often the background jobs tick; 0 turns
	// them off on this process.
	SchedulerInterval time.Duration
	// EventRetention is how long the audit trail's events are kept; 0
	// keeps them forever.
	EventRetention time.Duration
}

// Defaults for an unconfigured server: SQLite in the working directory,
// :8080. The demo, whose keys may do everything, listens on the loopback
// interface only unless told otherwise, and writes its keys and ids to
// defaultDemoEnv.
const (
	defaultAddr        = ":8080"
	defaultDatabaseURL = "sqlite:./tenantkit.db"
	demoAddr           = "127.0.0.1:8080"
	defaultDemoEnv     = "tenantkit-demo.env"
)

// defaultSchedulerInterval is how often the background jobs run unless
// configured otherwise.
const defaultSchedulerInterval = time.Minute

// env reads TENANTKIT_<name>, or def.
func env(name, def string) string {
	if v, ok := os.LookupEnv("TENANTKIT_" + name); ok {
		return v
	}
	return def
}

func list(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// commonFlags registers what every subcommand takes: the database, the
// catalog, logging and --json.
func commonFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.DatabaseURL, "database-url", env("DATABASE_URL", defaultDatabaseURL), "database URL: postgres://… or sqlite:PATH (TENANTKIT_DATABASE_URL)")
	fs.StringVar(&c.Catalog, "catalog", env("CATALOG", ""), "catalog JSON file; empty uses the embedded default (TENANTKIT_CATALOG)")
	fs.StringVar(&c.LogLevel, "log-level", env("LOG_LEVEL", "info"), "debug, info, warn or error (TENANTKIT_LOG_LEVEL)")
	fs.StringVar(&c.LogFormat, "log-format", env("LOG_FORMAT", "json"), "json or console (TENANTKIT_LOG_FORMAT)")
	fs.BoolVar(&c.JSON, "json", false, "print results as JSON")
}

// serveFlags registers the flags of `serve`.
func serveFlags(fs *flag.FlagSet, c *config) error {
	commonFlags(fs, c)
	rate, err := strconv.ParseFloat(env("RATE_LIMIT", "50"), 64)
	if err != nil {
		return fmt.Errorf("TENANTKIT_RATE_LIMIT: %w", err)
	}
	burst, err := strconv.Atoi(env("RATE_BURST", "100"))
	if err != nil {
		return fmt.Errorf("TENANTKIT_RATE_BURST: %w", err)
	}
	maxBody, err := strconv.ParseInt(env("MAX_BODY_BYTES", "1048576"), 10, 64)
	if err != nil {
		return fmt.Errorf("TENANTKIT_MAX_BODY_BYTES: %w", err)
	}
	migrate, err := strconv.ParseBool(env("MIGRATE", "true"))
	if err != nil {
		return fmt.Errorf("TENANTKIT_MIGRATE: %w", err)
	}
	interval, err := time.ParseDuration(env("SCHEDULER_INTERVAL", defaultSchedulerInterval.String()))
	if err != nil {
		return fmt.Errorf("TENANTKIT_SCHEDULER_INTERVAL: %w", err)
	}
	retention, err := time.ParseDuration(env("EVENT_RETENTION", tenantkit.DefaultEventRetention.String()))
	if err != nil {
		return fmt.Errorf("TENANTKIT_EVENT_RETENTION: %w", err)
	}
	fs.StringVar(&c.Addr, "addr", env("ADDR", defaultAddr), "listen address (TENANTKIT_ADDR)")
	fs.Func("webhook-secret", "payment webhook secret whsec_…; repeat or comma-separate for rotation (TENANTKIT_WEBHOOK_SECRET)", func(s string) error {
		c.WebhookSecrets = append(c.WebhookSecrets, list(s)...)
		return nil
	})
	c.WebhookSecrets = list(env("WEBHOOK_SECRET", ""))
	fs.StringVar(&c.WebhookScheme, "webhook-scheme", env("WEBHOOK_SCHEME", "standard"), "payment webhook signature scheme: standard (Standard Webhooks) or stripe (TENANTKIT_WEBHOOK_SCHEME)")
	fs.StringVar(&c.JWTSecret, "jwt-secret", env("JWT_SECRET", ""), "HS256 secret for JWT bearer tokens and session cookies (TENANTKIT_JWT_SECRET)")
	fs.StringVar(&c.JWTJWKSURL, "jwt-jwks-url", env("JWT_JWKS_URL", ""), "JWKS URL of the identity provider (TENANTKIT_JWT_JWKS_URL)")
	fs.StringVar(&c.JWTIssuer, "jwt-issuer", env("JWT_ISSUER", ""), "required JWT issuer (TENANTKIT_JWT_ISSUER)")
	fs.StringVar(&c.JWTAudience, "jwt-audience", env("JWT_AUDIENCE", ""), "required JWT audience (TENANTKIT_JWT_AUDIENCE)")
	fs.StringVar(&c.CSRFSecret, "csrf-secret", env("CSRF_SECRET", ""), "CSRF signing secret shared by replicas; default derived from the JWT secret (TENANTKIT_CSRF_SECRET)")
	fs.Float64Var(&c.RateLimit, "rate-limit", rate, "requests per second per credential, 0 = off (TENANTKIT_RATE_LIMIT)")
	fs.IntVar(&c.RateBurst, "rate-burst", burst, "rate limit burst (TENANTKIT_RATE_BURST)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", maxBody, "request body limit (TENANTKIT_MAX_BODY_BYTES)")
	fs.StringVar(&c.RedisURL, "redis-url", env("REDIS_URL", ""), "Redis URL for a rate limiter shared by replicas (TENANTKIT_REDIS_URL)")
	fs.Func("trusted-proxies", "CIDRs whose X-Forwarded-For is trusted, comma-separated (TENANTKIT_TRUSTED_PROXIES)", func(s string) error {
		c.TrustedProxies = append(c.TrustedProxies, list(s)...)
		return nil
	})
	c.TrustedProxies = list(env("TRUSTED_PROXIES", ""))
	portal, err := strconv.ParseBool(env("PORTAL", "true"))
	if err != nil {
		return fmt.Errorf("TENANTKIT_PORTAL: %w", err)
	}
	fs.BoolVar(&c.Portal, "portal", portal, "serve the tenant portal at /portal/ (TENANTKIT_PORTAL)")
	fs.BoolVar(&c.Migrate, "migrate", migrate, "apply pending migrations at start (TENANTKIT_MIGRATE)")
	fs.DurationVar(&c.SchedulerInterval, "scheduler-interval", interval, "how often the background jobs (contract changes due, invoice reminders and dunning, expired idempotency keys) run on this replica; 0 turns them off (TENANTKIT_SCHEDULER_INTERVAL)")
	fs.DurationVar(&c.EventRetention, "event-retention", retention, "how long the audit trail's events are kept before the background jobs delete them, e.g. 2160h; 0 keeps them forever (TENANTKIT_EVENT_RETENTION)")
	fs.BoolVar(&c.Demo, "demo", false, "seed demo tenants, users, keys and an invoice (once), print how to call the API, and listen on "+demoAddr+" unless --addr or TENANTKIT_ADDR says otherwise")
	demoEnvFlag(fs, c)
	return nil
}

// demoEnvFlag registers --demo-env, where the demo writes its keys and ids.
func demoEnvFlag(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.DemoEnv, "demo-env", defaultDemoEnv, "file where --demo writes its API keys, ids and webhook secret as shell exports")
}

// applyDemoDefaults binds the demo to the loopback interface when neither
// --addr nor TENANTKIT_ADDR chose an address.
func applyDemoDefaults(fs *flag.FlagSet, c *config) {
	if !c.Demo {
		return
	}
	if _, ok := os.LookupEnv("TENANTKIT_ADDR"); ok {
		return
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "addr" })
	if !explicit {
		c.Addr = demoAddr
	}
}
