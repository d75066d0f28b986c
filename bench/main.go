// Command bench measures tenantkit's reference server against a minimal
// baseline (bench/baseline: net/http + pgx doing the same logical work per
// request) on the same Postgres database and the same load, and prints
// per endpoint the throughput, p50 and p99 latency and peak RSS of both and
// their ratio, with the project's targets marked PASS or MISS.
//
//	cd bench
//	go run .                 # full run, about half an hour on 2 cores
//	go run . --quick         # smoke run on a small data set
//	go run . --profile       # also take CPU profiles of both servers
//	go run . --delivery      # only the outbound webhook delivery throughput
//	go run . --billing-run   # only the platform billing run over 10,000 tenants
//	go run . --event-cost    # only the event log's cost (add --quick for a smoke run)
//
// bench is a module of its own (github.com/tenantkit/tenantkit/bench), so
// that the library's go.mod carries none of its tools; its go.mod replaces
// the library with the working tree above it (../), so what is measured is
// the code checked out next to it.
//
// It builds cmd/server and bench/baseline, creates a fresh database
// tk_bench_<random> next to --database-url (dropped at the end), migrates
// it with `server migrate`, seeds it by COPY (1,000 tenants, 100k
// invoices, one tenant with 120k more; one API key through
// `server apikey create`), starts both servers on free ports of 127.0.0.1,
// and first checks that the baseline is fair: that for every endpoint it
// runs exactly tenantkit's statements (fairness.go; the run stops with a
// non-zero exit naming the endpoints where they differ, and
// `go run . --check` runs only that). Then for every endpoint of the table
// in endpoints.go it runs tenantkit and the baseline in rounds, back to
// back (A B, B A, …), at full speed with a fixed concurrency, in as many
// rounds with 64 in flight to compare p99s under contention, then both
// open-loop at half the baseline's throughput to compare p99s; each
// verdict is the median of the rounds' paired ratios (measure.go). Before
// all that it measures cold start on SQLite, on a machine at rest
// (coldstart.go); after, list latency at cursor depth 100k against page
// 1, idle
// and loaded RSS (VmHWM), the RSS of both servers through pile-ups made on
// purpose (pileup.go), the database round trips per request of each
// server, and the outbound webhooks' delivery throughput: how fast one
// tenantkit replica, then two, drain a backlog of 10,000 queued
// deliveries to a receiver on 127.0.0.1 (delivery.go),
// and what the event log costs: the baseline with and without its event
// write, on create invoice and webhook ingest, tenantkit beside them
// (eventcost.go). The report opens with the goals, each a ratio
// of this run marked PASS or MISS.
//
// The load generator is vegeta (github.com/tsenart/vegeta), used as a
// library in this process, on the same machine as the servers and
// Postgres: the absolute numbers are this machine's, the ratios are what
// the targets are about.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	// SIGPIPE too (output piped to a command that exits early): the
	// run then stops and still drops its database.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	DatabaseURL string        `json:"-"`
	Duration    time.Duration `json:"duration_ns"`
	Rounds      int           `json:"rounds"`
	Concurrency int           `json:"concurrency"`
	Quick       bool          `json:"quick"`
	Profile     bool          `json:"profile"`
	Check       bool          `json:"check_only,omitempty"`
	// DeliveryOnly measures the delivery throughput only.
	DeliveryOnly bool `json:"delivery_only,omitempty"`
	// BillingRunOnly measures the platform billing run only.
	BillingRunOnly bool `json:"billing_run_only,omitempty"`
	// EventCostOnly measures the event log's cost only.
	EventCostOnly bool `json:"event_cost_only,omitempty"`
	// DeliveryWorkers is the measured replicas' --webhook-workers; 0:
	// serve's default.
	DeliveryWorkers int     `json:"delivery_workers,omitempty"`
	Only            string  `json:"only,omitempty"`
	RateLimit       float64 `json:"tenantkit_rate_limit"`
	TKURLParams     string  `json:"tenantkit_url_params,omitempty"`
	TKFlags         string  `json:"tenantkit_flags,omitempty"`
	Out             string  `json:"-"`
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.DatabaseURL, "database-url", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
		"Postgres to run on; the bench creates (and drops) its own database tk_bench_<random> there")
	fs.DurationVar(&c.Duration, "duration", 5*time.Second, "length of each full-speed run")
	fs.IntVar(&c.Rounds, "rounds", 6, "rounds per endpoint, each a run of both servers (A B, B A, …); verdicts take the median of the rounds' ratios")
	fs.IntVar(&c.Concurrency, "concurrency", 16, "requests in flight during full-speed runs")
	fs.BoolVar(&c.Quick, "quick", false, "small data set and short runs: a smoke test")
	fs.BoolVar(&c.Profile, "profile", false, "build tenantkit with a pprof overlay and take CPU profiles of both servers (saved under bench/results/)")
	fs.BoolVar(&c.Check, "check", false, "only check that the baseline runs tenantkit's statements (fairness.go), on the quick data set")
	fs.BoolVar(&c.DeliveryOnly, "delivery", false, "only measure the outbound webhook delivery throughput (how fast one replica, then two, drain a backlog of 10,000 deliveries), on the quick data set")
	fs.IntVar(&c.DeliveryWorkers, "delivery-workers", 0, "--webhook-workers of the replicas whose delivery is measured (default: serve's default)")
	fs.BoolVar(&c.BillingRunOnly, "billing-run", false, "only measure the platform billing run: `server billing run` over 10,000 tenants whose period ended (1,000 with --quick), its time and peak memory")
	fs.BoolVar(&c.EventCostOnly, "event-cost", false, "only measure the event log's cost: the baseline with and without its event write, and tenantkit, on create invoice and webhook ingest (full-sized unless --quick)")
	fs.StringVar(&c.Only, "only", "", "comma-separated endpoint names to run (default: all)")
	fs.Float64Var(&c.RateLimit, "tk-rate-limit", 1e6,
		"tenantkit's --rate-limit (and --rate-burst): the limiter runs on every request, set high enough not to refuse any; 50 is the product default")
	fs.StringVar(&c.TKURLParams, "tk-url-params", "",
		"extra query parameters for tenantkit's database URL, for experiments (e.g. default_query_exec_mode=exec)")
	fs.StringVar(&c.TKFlags, "tk-flags", "",
		"extra flags of tenantkit's serve, separated by spaces, for experiments (e.g. \"--max-in-flight 0\")")
	fs.StringVar(&c.Out, "out", "", "also write the results to this file under bench/results/ (.json or .md)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.Check || c.DeliveryOnly {
		c.Quick = true
	}
	if c.Quick {
		if !flagSet(fs, "duration") {
			c.Duration = 2 * time.Second
		}
		if !flagSet(fs, "rounds") {
			c.Rounds = 1
		}
	}
	if c.Rounds < 1 || c.Concurrency < 1 || c.Duration < time.Second {
		return c, errors.New("--rounds and --concurrency must be at least 1, --duration at least 1s")
	}
	return c, nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, err := parseFlags(args, os.Stderr)
	if err != nil {
		return err
	}
	began := time.Now()
	rep := &report{Started: began, Config: cfg, Command: strings.TrimSpace("cd bench && go run . " + strings.Join(args, " "))}
	logf := func(format string, a ...any) { fmt.Fprintf(stdout, "· "+format+"\n", a...) }

	src, err := findSources(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "tkbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	resultsDir := filepath.Join(src.Bench, "results")

	logf("building cmd/server and bench/baseline into %s", tmp)
	bins, err := build(ctx, src, tmp, cfg.Profile)
	if err != nil {
		return err
	}
	// Cold start first, on a machine at rest: it involves no Postgres.
	// Measured last, after the load phases, it took 100 and 120 ms
	// (migrated, new database) where the same binary starts in 65–75 ms
	// at rest (2026-11-28, on a machine whose page faults cost 11 µs).
	if !cfg.Check && !cfg.DeliveryOnly && !cfg.EventCostOnly && !cfg.BillingRunOnly {
		logf("cold start on SQLite")
		if rep.Cold, err = coldStart(ctx, bins.Server, tmp, 5); err != nil {
			return err
		}
	}

	dbURL, drop, err := createDatabase(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer drop()
	if err := machineInfo(ctx, dbURL, rep); err != nil {
		return err
	}
	logf("database %s; migrating with `server migrate`", dbName(dbURL))
	if _, err := runCLI(ctx, bins.Server, "migrate", "--database-url", dbURL, "--json"); err != nil {
		return err
	}
	if cfg.BillingRunOnly {
		b, err := measureBillingRun(ctx, cfg, bins.Server, dbURL)
		if err != nil {
			return err
		}
		logf("billing run: %d invoices for %d tenants in %s (%.0f invoices/s), peak RSS %.1f MB; again at once: %s",
			b.Invoices, b.Tenants, b.Elapsed.Round(time.Millisecond), b.PerSecond, float64(b.MaxRSS)/(1<<20), b.Again.Round(time.Millisecond))
		return nil
	}
	size := fullSize
	if cfg.Quick {
		size = quickSize
	}
	size.Drafts = draftPool(cfg)
	t0 := time.Now()
	fx, err := seed(ctx, dbURL, size)
	if err != nil {
		return err
	}
	if err := cliKey(ctx, bins.Server, dbURL, fx); err != nil {
		return err
	}
	rep.SeedRows, rep.SeedTime = fx.Rows, time.Since(t0)
	logf("seeded in %s: %d tenants, %d invoices (%d of tenant %s), %d tickets",
		rep.SeedTime.Round(time.Millisecond), fx.Rows["tenants"], fx.Rows["invoices"], size.BigInvoices, fx.Big.Slug, fx.Rows["tickets"])
	fx.WebhookSecret, fx.RunID = newWebhookSecret(), randomHex(4)
	meterConn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer meterConn.Close(context.Background())
	fx.meter = &meter{conn: meterConn}
	if cfg.DeliveryOnly {
		profDir := ""
		if cfg.Profile {
			profDir = filepath.Join(resultsDir, "pprof-delivery-"+began.Format("20060102-150405"))
			if err := os.MkdirAll(profDir, 0o755); err != nil {
				return err
			}
			logf("delivery profiles in %s", profDir)
		}
		d, err := measureDelivery(ctx, cfg, bins, dbURL, fx, tmp, profDir)
		if err != nil {
			return err
		}
		d.log(logf)
		return nil
	}
	if cfg.EventCostOnly {
		eps := selectEventCostEndpoints(onlyEndpoints(cfg))
		if len(eps) == 0 {
			return fmt.Errorf("--event-cost: --only leaves none of %s", strings.Join(eventCostEndpoints, ", "))
		}
		logf("checking that the baseline (with events) runs tenantkit's statements")
		if rep.RoundTrips, err = checkFairness(ctx, cfg, bins, dbURL, fx, eps, tmp); err != nil {
			return err
		}
		if rep.EventCost, err = measureEventCost(ctx, cfg, bins, dbURL, fx, eps, tmp, logf); err != nil {
			return err
		}
		return finish(stdout, rep, began, resultsDir)
	}

	// Every endpoint gets a fresh pair of servers, so that its RSS and
	// latencies are its own and not what an earlier endpoint left behind.
	pair := 0
	withServers := func(fn func(tk, base *proc) error) error {
		pair++
		tk, base, err := startServers(ctx, bins, dbURL, cfg, fx, tmp, fmt.Sprintf("-%d", pair))
		if err != nil {
			return err
		}
		defer tk.stop()
		defer base.stop()
		err = fn(tk, base)
		_, tkHWM, _ := tk.memory()
		_, baseHWM, _ := base.memory()
		rep.Memory.TKHWM, rep.Memory.BaseHWM = max(rep.Memory.TKHWM, tkHWM), max(rep.Memory.BaseHWM, baseHWM)
		return err
	}
	var active []endpoint
	if err := withServers(func(tk, base *proc) error {
		time.Sleep(time.Second)
		rep.Memory.TKIdle, _, _ = tk.memory()
		rep.Memory.BaseIdle, _, _ = base.memory()
		active = selectEndpoints(ctx, cfg, fx, tk, base, rep, logf)
		return nil
	}); err != nil {
		return err
	}
	// Fairness first: numbers of a baseline that does other work than
	// tenantkit would mean nothing.
	logf("checking that both servers run the same statements (sequential requests through a counting proxy)")
	if rep.RoundTrips, err = checkFairness(ctx, cfg, bins, dbURL, fx, active, tmp); err != nil {
		return err
	}
	if cfg.Check {
		rep.printFairness(stdout)
		return nil
	}
	profDir := ""
	if cfg.Profile {
		profDir = filepath.Join(resultsDir, "pprof-"+began.Format("20060102-150405"))
		if err := os.MkdirAll(profDir, 0o755); err != nil {
			return err
		}
	}
	for _, ep := range active {
		err := withServers(func(tk, base *proc) error {
			res, profs := compare(ctx, cfg, fx, ep, tk, base, bins, profDir)
			rep.Endpoints = append(rep.Endpoints, res)
			rep.Profiles = append(rep.Profiles, profs...)
			logf("%-15s tenantkit %7.0f req/s, baseline %7.0f req/s (%.2f×); p99 at %d req/s: %s vs %s",
				ep.Name, res.TK.RPS, res.Base.RPS, res.Ratio, res.HalfRate, ms(res.TKHalf.P99), ms(res.BaseHalf.P99))
			return ctx.Err()
		})
		if err != nil {
			return err
		}
	}
	if err := withServers(func(tk, base *proc) error {
		deep, err := deepPages(ctx, cfg, fx, tk, base)
		if err != nil {
			logf("deep page: %v", err)
			return nil
		}
		rep.Deep = deep
		logf("deep page at %d: %s vs page 1 %s (p50)", deep.Depth, ms(deep.TKDeep.P50), ms(deep.TKFirst.P50))
		return nil
	}); err != nil {
		return err
	}
	if slices.ContainsFunc(active, func(ep endpoint) bool { return ep.Name == pileUpEndpoint }) {
		logf("pile-ups: %d requests of %s held behind a %s stop of each server, %d times", pileUpRequests, pileUpEndpoint, pileUpStop, pileUpWaves)
		if rep.PileUp, err = measurePileUp(ctx, cfg, bins, dbURL, fx, tmp); err != nil {
			return err
		}
		logf("pile-ups: tenantkit %s, baseline %s (VmHWM after the last)", mb(rep.PileUp.TKWaves[len(rep.PileUp.TKWaves)-1]), mb(rep.PileUp.BaseWaves[len(rep.PileUp.BaseWaves)-1]))
	}
	if eps := selectEventCostEndpoints(active); len(eps) > 0 {
		logf("event log cost (baseline with and without its event write; tenantkit beside them)")
		if rep.EventCost, err = measureEventCost(ctx, cfg, bins, dbURL, fx, eps, tmp, logf); err != nil {
			return err
		}
	}
	for _, e := range rep.Endpoints {
		rep.Memory.TKLoaded = max(rep.Memory.TKLoaded, e.TK.PeakRSS)
		rep.Memory.BaseLoaded = max(rep.Memory.BaseLoaded, e.Base.PeakRSS)
		rep.Memory.TKOpenLoop = max(rep.Memory.TKOpenLoop, e.TKHalf.PeakRSS)
		rep.Memory.BaseOpenLoop = max(rep.Memory.BaseOpenLoop, e.BaseHalf.PeakRSS)
	}

	logf("delivery throughput (a backlog of %d deliveries drained by one replica, then two)", deliveryBacklog)
	if rep.Delivery, err = measureDelivery(ctx, cfg, bins, dbURL, fx, tmp, profDir); err != nil {
		logf("delivery throughput: %v", err)
	} else {
		rep.Delivery.log(logf)
	}

	for i := range rep.Profiles {
		p := &rep.Profiles[i]
		if p.Err != "" {
			continue
		}
		if p.Top, err = topFunctions(ctx, src.Bench, p.Binary, p.Path, p.Kind, 20); err != nil {
			p.Err = err.Error()
		}
	}
	return finish(stdout, rep, began, resultsDir)
}

// finish prints the report and, with --out, writes it.
func finish(stdout io.Writer, rep *report, began time.Time, resultsDir string) error {
	rep.Total = time.Since(began)
	rep.Machine.LoadEnd = loadAverage()

	fmt.Fprintln(stdout)
	rep.print(stdout)
	if path := rep.Config.Out; path != "" {
		if !filepath.IsAbs(path) && filepath.Dir(path) == "." {
			path = filepath.Join(resultsDir, path)
		}
		if err := rep.write(path); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "results written to", path)
	}
	return nil
}

// cliKey creates one key of the big tenant through the real admin CLI
// (`server apikey create --json`) and puts it first in fx.BigKeys.
func cliKey(ctx context.Context, server, dbURL string, fx *fixture) error {
	out, err := runCLI(ctx, server, "apikey", "create", "--database-url", dbURL, "--email", fx.Big.OwnerEmail,
		"--scopes", "collections:read,collections:write,tickets:read,tickets:write", "--tenant", fx.Big.Slug,
		"--name", "bench-cli", "--json")
	if err != nil {
		return err
	}
	var k struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(out, &k); err != nil || k.Key == "" {
		return fmt.Errorf("apikey create --json printed %q: %v", out, err)
	}
	fx.Big.Key = k.Key
	fx.BigKeys = append([]string{k.Key}, fx.BigKeys...)
	return nil
}

// startServers starts tenantkit and the baseline on dbURL; suffix names
// their logs.
func startServers(ctx context.Context, bins binaries, dbURL string, cfg config, fx *fixture, dir, suffix string) (*proc, *proc, error) {
	// The baseline runs no background jobs: tenantkit's scheduler would
	// spend about 8 % of its CPU dunning the seeded past-due invoices in
	// whichever endpoint is measured first. Its delivery workers stay on.
	return startServersOn(ctx, bins, dbURL, dbURL, cfg, fx, dir, suffix, "--scheduler-interval", "0")
}

// startServersOn starts tenantkit on tkDB and the baseline on baseDB (the
// same database, through different proxies); tkExtra are more flags of
// tenantkit's serve.
func startServersOn(ctx context.Context, bins binaries, tkDB, baseDB string, cfg config, fx *fixture, dir, suffix string, tkExtra ...string) (*proc, *proc, error) {
	tkPort, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	tkURL := withParams(tkDB, "application_name=tenantkit", cfg.TKURLParams)
	rate := strconv.FormatFloat(cfg.RateLimit, 'f', -1, 64)
	tkArgs := []string{"serve", "--addr", fmt.Sprintf("127.0.0.1:%d", tkPort), "--database-url", tkURL, "--migrate=false",
		"--rate-limit", rate, "--rate-burst", fmt.Sprint(int(max(cfg.RateLimit, 1))), "--webhook-secret", fx.WebhookSecret}
	tkArgs = append(tkArgs, tkExtra...)
	tkArgs = append(tkArgs, strings.Fields(cfg.TKFlags)...)
	env := childEnv()
	var tkPprof string
	if bins.Profiling {
		port, err := freePort()
		if err != nil {
			return nil, nil, err
		}
		tkPprof = fmt.Sprintf("127.0.0.1:%d", port)
		env = append(env, pprofEnv+"="+tkPprof)
	}
	tk, err := startProc("tenantkit", bins.Server, tkPort, tkArgs, env, filepath.Join(dir, "tenantkit"+suffix+".log"))
	if err != nil {
		return nil, nil, err
	}
	tk.App = "tenantkit"
	if tkPprof != "" {
		tk.PprofURL = "http://" + tkPprof
	}
	if err := tk.waitReady(ctx, "/api/health/ready", 30*time.Second); err != nil {
		tk.stop()
		return nil, nil, err
	}
	basePort, err := freePort()
	if err != nil {
		tk.stop()
		return nil, nil, err
	}
	baseArgs := []string{"--addr", fmt.Sprintf("127.0.0.1:%d", basePort), "--database-url", withParams(baseDB, "application_name=baseline"),
		"--webhook-secret", fx.WebhookSecret}
	var basePprof string
	if bins.Profiling {
		port, err := freePort()
		if err != nil {
			tk.stop()
			return nil, nil, err
		}
		basePprof = fmt.Sprintf("127.0.0.1:%d", port)
		baseArgs = append(baseArgs, "--pprof-addr", basePprof)
	}
	base, err := startProc("baseline", bins.Baseline, basePort, baseArgs, childEnv(), filepath.Join(dir, "baseline"+suffix+".log"))
	if err != nil {
		tk.stop()
		return nil, nil, err
	}
	base.App = "baseline"
	if basePprof != "" {
		base.PprofURL = "http://" + basePprof
	}
	if err := base.waitReady(ctx, "/api/health/ready", 30*time.Second); err != nil {
		tk.stop()
		base.stop()
		return nil, nil, err
	}
	return tk, base, nil
}

// machineInfo records what the numbers were measured on.
func machineInfo(ctx context.Context, dbURL string, rep *report) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&rep.Machine.Postgres); err != nil {
		return err
	}
	rep.Machine.CPUs = runtime.NumCPU()
	rep.Machine.LoadStart = loadAverage()
	rep.Machine.Go = runtime.Version()
	return nil
}

// withParams adds query parameters ("k=v", empty ones skipped) to a URL.
func withParams(rawURL string, params ...string) string {
	for _, p := range params {
		if p == "" {
			continue
		}
		sep := "?"
		if strings.Contains(rawURL, "?") {
			sep = "&"
		}
		rawURL += sep + p
	}
	return rawURL
}

// loadAverage is the machine's 1-minute load average.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func newWebhookSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func dbName(dbURL string) string {
	name := dbURL[strings.LastIndex(dbURL, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	return name
}
