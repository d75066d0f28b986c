package main

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// config is the server's configuration, from flags with TENANTKIT_*
// environment variables as their defaults.
type config struct {
	Addr string
	// PublicURL is where sign-in links point; empty: the URL of Addr.
	PublicURL      string
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
	MaxInFlight    int
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
	// SecretKey is the base64 key encrypting outbound webhook secrets
	// (TENANTKIT_SECRET_KEY); SecretKeyFile holds one when it is unset.
	SecretKey     string
	SecretKeyFile string
	// WebhookAllowHosts are the hosts and CIDRs outbound webhooks may
	// reach although not public, over http too.
	WebhookAllowHosts []string
	// WebhookWorkers is how many outbound webhook attempts this replica
	// makes at once; 0: it delivers none (it still enqueues).
	WebhookWorkers int
	// WebhookRescueAfter is the lease of an attempt: how long a delivery
	// whose replica died mid-attempt waits before another replica takes it.
	WebhookRescueAfter time.Duration
	// WebhookRetryBase is the first delay of the deliveries' retry
	// schedule, which doubles from it (outbound.Schedule).
	WebhookRetryBase time.Duration
	// PlatformGraceDays, when 0 or more, makes a tenant whose platform
	// invoice is unpaid that many days past its due date past due: its
	// writes answer 402. -1 (the default) leaves past due off.
	PlatformGraceDays int
	// PlatformName is the issuer printed on the platform's invoices to
	// its tenants; empty for invoicepdf.DefaultPlatformName.
	PlatformName string
	// SMTPURL is the mail server the customers' emails go through
	// (smtp:// with STARTTLS when offered, smtps://); empty: no email.
	SMTPURL string
	// MailFrom is the sender address of those emails.
	MailFrom string
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
		return envError("RATE_LIMIT", "a number of requests per second", err)
	}
	burst, err := strconv.Atoi(env("RATE_BURST", "100"))
	if err != nil {
		return envError("RATE_BURST", "a whole number", err)
	}
	maxBody, err := strconv.ParseInt(env("MAX_BODY_BYTES", "1048576"), 10, 64)
	if err != nil {
		return envError("MAX_BODY_BYTES", "a number of bytes", err)
	}
	inFlight, err := strconv.Atoi(env("MAX_IN_FLIGHT", strconv.Itoa(defaultMaxInFlight())))
	if err != nil {
		return envError("MAX_IN_FLIGHT", "a whole number", err)
	}
	migrate, err := strconv.ParseBool(env("MIGRATE", "true"))
	if err != nil {
		return envError("MIGRATE", "true or false", err)
	}
	interval, err := time.ParseDuration(env("SCHEDULER_INTERVAL", defaultSchedulerInterval.String()))
	if err != nil {
		return envError("SCHEDULER_INTERVAL", "a duration such as 1m", err)
	}
	retention, err := time.ParseDuration(env("EVENT_RETENTION", tenantkit.DefaultEventRetention.String()))
	if err != nil {
		return envError("EVENT_RETENTION", "a duration such as 2160h", err)
	}
	grace, err := strconv.Atoi(env("PLATFORM_GRACE_DAYS", "-1"))
	if err != nil {
		return envError("PLATFORM_GRACE_DAYS", "a whole number of days", err)
	}
	workers, err := strconv.Atoi(env("WEBHOOK_WORKERS", strconv.Itoa(riverqueue.DefaultWorkers)))
	if err != nil {
		return envError("WEBHOOK_WORKERS", "a whole number", err)
	}
	rescue, err := time.ParseDuration(env("WEBHOOK_RESCUE_AFTER", riverqueue.DefaultRescueAfter.String()))
	if err != nil {
		return envError("WEBHOOK_RESCUE_AFTER", "a duration such as 1m", err)
	}
	retryBase, err := time.ParseDuration(env("WEBHOOK_RETRY_BASE", outbound.DefaultSchedule()[0].String()))
	if err != nil {
		return envError("WEBHOOK_RETRY_BASE", "a duration such as 30s", err)
	}
	fs.StringVar(&c.Addr, "addr", env("ADDR", defaultAddr), "listen address (TENANTKIT_ADDR)")
	fs.StringVar(&c.PublicURL, "public-url", env("PUBLIC_URL", ""), "the server's public URL, where sign-in links point; empty: the URL of --addr, http://127.0.0.1:8080 by default (TENANTKIT_PUBLIC_URL)")
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
	fs.IntVar(&c.MaxInFlight, "max-in-flight", inFlight, "requests handled at once, the others wait their turn; 0 = no limit (TENANTKIT_MAX_IN_FLIGHT)")
	fs.StringVar(&c.RedisURL, "redis-url", env("REDIS_URL", ""), "Redis URL for a rate limiter shared by replicas (TENANTKIT_REDIS_URL)")
	fs.Func("trusted-proxies", "CIDRs whose X-Forwarded-For is trusted, comma-separated (TENANTKIT_TRUSTED_PROXIES)", func(s string) error {
		c.TrustedProxies = append(c.TrustedProxies, list(s)...)
		return nil
	})
	c.TrustedProxies = list(env("TRUSTED_PROXIES", ""))
	portal, err := strconv.ParseBool(env("PORTAL", "true"))
	if err != nil {
		return envError("PORTAL", "true or false", err)
	}
	fs.BoolVar(&c.Portal, "portal", portal, "serve the tenant portal at /portal/ (TENANTKIT_PORTAL)")
	fs.BoolVar(&c.Migrate, "migrate", migrate, "apply pending migrations at start (TENANTKIT_MIGRATE)")
	fs.DurationVar(&c.SchedulerInterval, "scheduler-interval", interval, "how often the background jobs (the platform billing run, contract changes due, invoice reminders and dunning, expired idempotency keys) run on this replica; 0 turns them off (TENANTKIT_SCHEDULER_INTERVAL)")
	fs.DurationVar(&c.EventRetention, "event-retention", retention, "how long the audit trail's events are kept before the background jobs delete them, e.g. 2160h; 0 keeps them forever (TENANTKIT_EVENT_RETENTION)")
	fs.StringVar(&c.PlatformName, "platform-name", env("PLATFORM_NAME", ""), "your company's name, printed as the issuer of the platform's invoices to its tenants (their PDFs); empty: \"tenantkit\" (TENANTKIT_PLATFORM_NAME)")
	fs.StringVar(&c.MailFrom, "mail-from", env("MAIL_FROM", ""), "the sender address of the emails to the tenants' customers, e.g. billing@example.com, shown in each tenant's name; needed with --smtp-url (TENANTKIT_MAIL_FROM)")
	c.SMTPURL = env("SMTP_URL", "")
	fs.Func("smtp-url", "the mail server that emails invoices, reminders and receipts to the tenants' customers: smtp://user:password@host:587 (STARTTLS when offered) or smtps://…:465; empty: no email, and sending answers 409 (TENANTKIT_SMTP_URL)", func(s string) error {
		c.SMTPURL = s
		return nil
	})
	fs.IntVar(&c.PlatformGraceDays, "platform-grace-days", grace, "days after its due date that a tenant's unpaid platform invoice makes it past due: its writes answer 402 payment_required until it pays; -1 = off (TENANTKIT_PLATFORM_GRACE_DAYS)")
	fs.IntVar(&c.WebhookWorkers, "webhook-workers", workers, "outbound webhook attempts this replica makes at once; 0 = it delivers none (TENANTKIT_WEBHOOK_WORKERS)")
	fs.DurationVar(&c.WebhookRescueAfter, "webhook-rescue-after", rescue, "how long a delivery whose replica died mid-attempt waits before another replica retries it; above the "+riverqueue.DefaultJobTimeout.String()+" job timeout of an attempt, which covers its 10s HTTP request (TENANTKIT_WEBHOOK_RESCUE_AFTER)")
	fs.DurationVar(&c.WebhookRetryBase, "webhook-retry-base", retryBase, "first delay of the outbound webhook retry schedule, doubling after each failed attempt up to 12h, 16 retries (TENANTKIT_WEBHOOK_RETRY_BASE)")
	fs.BoolVar(&c.Demo, "demo", false, "seed demo tenants, users, keys and an invoice (once), print how to call the API, and listen on "+demoAddr+" unless --addr or TENANTKIT_ADDR says otherwise")
	demoEnvFlag(fs, c)
	c.SecretKey = env("SECRET_KEY", "")
	fs.StringVar(&c.SecretKeyFile, "secret-key-file", env("SECRET_KEY_FILE", defaultSecretKeyFile), "file holding the key (base64 of 32 bytes) that encrypts outbound webhook secrets, created with a random key when absent; unused when TENANTKIT_SECRET_KEY is set (TENANTKIT_SECRET_KEY_FILE)")
	fs.Func("webhook-allow-hosts", "hosts and CIDRs outbound webhooks may reach although not public, over plain http too, comma-separated (TENANTKIT_WEBHOOK_ALLOW_HOSTS)", func(s string) error {
		c.WebhookAllowHosts = append(c.WebhookAllowHosts, list(s)...)
		return nil
	})
	c.WebhookAllowHosts = list(env("WEBHOOK_ALLOW_HOSTS", ""))
	return nil
}

// envError is the failure of a TENANTKIT_ setting that does not parse.
func envError(name, want string, err error) error {
	return failure(err, "TENANTKIT_%s %q: want %s", name, os.Getenv("TENANTKIT_"+name), want)
}

// demoEnvFlag registers --demo-env, where the demo writes its keys and ids.
func demoEnvFlag(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.DemoEnv, "demo-env", defaultDemoEnv, "file where --demo writes its API keys, ids and webhook secret as shell exports")
}

// applyDemoDefaults binds the demo to the loopback interface when neither
// --addr nor TENANTKIT_ADDR chose an address, and lets its outbound
// webhooks reach a receiver on the loopback interface when
// --webhook-allow-hosts allowed nothing: the demo is for trying tenantkit
// on one machine.
func applyDemoDefaults(fs *flag.FlagSet, c *config) {
	if !c.Demo {
		return
	}
	if len(c.WebhookAllowHosts) == 0 {
		c.WebhookAllowHosts = []string{demoWebhookHost}
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

// demoWebhookHost is where the demo's outbound webhooks may go although it
// is not a public address.
const demoWebhookHost = "127.0.0.1"
