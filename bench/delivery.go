package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// deliveryResult is the outbound webhooks' throughput: how fast one
// replica, then two, drain a backlog of queued deliveries to a receiver
// on 127.0.0.1 that answers 204 at once.
type deliveryResult struct {
	// Backlog is how many deliveries each run drains: Events ticket
	// creates, made through the API while no replica delivers, each
	// fanned out to Endpoints endpoints of its tenant.
	Backlog   int `json:"backlog"`
	Events    int `json:"events"`
	Endpoints int `json:"endpoints_per_tenant"`
	// Workers is each replica's --webhook-workers; 0: serve's default.
	Workers int           `json:"workers"`
	Runs    []drainResult `json:"runs"`
	// Scaling is two replicas' rate over one's.
	Scaling float64 `json:"scaling"`
}

// drainResult is one drain of the backlog by Replicas server processes.
type drainResult struct {
	Replicas int `json:"replicas"`
	// Seed is how long creating the backlog took.
	Seed time.Duration `json:"seed_ns"`
	// Elapsed is from the first delivery received to the last of the
	// backlog; FromStart from starting the replicas to the last.
	Elapsed   time.Duration `json:"elapsed_ns"`
	FromStart time.Duration `json:"from_start_ns"`
	// PerSecond is Backlog / Elapsed: deliveries (webhooks) per second.
	PerSecond float64 `json:"deliveries_per_second"`
	// Lost counts deliveries of the backlog never received; Duplicates
	// the webhook-ids received more than once.
	Lost       int `json:"lost"`
	Duplicates int `json:"duplicates"`
	// CPU is what the drain cost, from the replicas' start to the last
	// delivery: the replicas, their Postgres backends, the machine (the
	// bench's process is the receiver). Per delivery, it says more than
	// the rate on a machine others share.
	CPU cpuUse `json:"cpu"`
	// Connections is how many connections the receiver accepted: a
	// replica that keeps its connections alive opens about as many as it
	// has workers.
	Connections int64 `json:"connections"`
}

// perDelivery is the CPU of the replicas and of their Postgres backends
// per delivery.
func (r drainResult) perDelivery(backlog int) (server, postgres time.Duration) {
	return r.CPU.Server / time.Duration(backlog), r.CPU.Postgres / time.Duration(backlog)
}

// Defaults of the delivery measurement.
const (
	deliveryBacklog   = 10_000
	deliveryTenants   = 10 // tenants whose events make the backlog
	deliveryEndpoints = 4  // endpoints per tenant: each event makes this many deliveries
	deliveryClients   = 8  // mutations in flight while seeding
	deliveryReplicas  = 2  // the most replicas measured
	deliveryTimeout   = 5 * time.Minute
	deliveryApp       = "tenantkit-delivery" // application_name of the measured replicas
	deliveryProfile   = 5 * time.Second      // CPU profile of a replica's first seconds of draining (--profile)
)

// receiver counts what it gets by webhook-id and says when it has had
// want distinct ids.
type receiver struct {
	mu          sync.Mutex
	seen        map[string]int
	want        int
	first, last time.Time
	all         chan struct{}
	conns       atomic.Int64 // connections accepted
}

func (rc *receiver) reset(want int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.seen, rc.want, rc.first, rc.last, rc.all = map[string]int{}, want, time.Time{}, time.Time{}, make(chan struct{})
	rc.conns.Store(0)
}

// connState counts the connections accepted.
func (rc *receiver) connState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		rc.conns.Add(1)
	}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	now := time.Now()
	rc.mu.Lock()
	if rc.first.IsZero() {
		rc.first = now
	}
	rc.seen[r.Header.Get("webhook-id")]++
	if len(rc.seen) == rc.want && rc.last.IsZero() {
		rc.last = now
		close(rc.all)
	}
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// counts returns the distinct ids received and how many came more than
// once.
func (rc *receiver) counts() (distinct, dups int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, k := range rc.seen {
		if k > 1 {
			dups++
		}
	}
	return len(rc.seen), dups
}

// measureDelivery measures the drain rate of a backlog of deliveryBacklog
// queued deliveries, by one replica and then by two (server processes on
// the same database). An admin server that delivers nothing
// (--webhook-workers 0) registers deliveryEndpoints endpoints for each of
// deliveryTenants tenants, pointing at a local receiver, and makes the
// ticket creates whose events fan out to them; only then do the measured
// replicas start. The receiver counts by webhook-id: lost and duplicated
// deliveries are reported. The endpoints are deleted at the end: this runs
// after the endpoint comparisons, whose tenants must have none (the
// baseline dispatches to none).
//
// With profDir (a --profile build), the first replica of each run serves
// pprof and a CPU profile of its first deliveryProfile is saved there.
func measureDelivery(ctx context.Context, cfg config, bins binaries, dbURL string, fx *fixture, dir, profDir string) (*deliveryResult, error) {
	if len(fx.Tenants) < deliveryTenants {
		return nil, fmt.Errorf("delivery: %d tenants seeded, want %d", len(fx.Tenants), deliveryTenants)
	}
	events := deliveryBacklog / (deliveryTenants * deliveryEndpoints)
	res := &deliveryResult{Events: events * deliveryTenants, Endpoints: deliveryEndpoints, Workers: cfg.DeliveryWorkers}
	res.Backlog = res.Events * deliveryEndpoints

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &receiver{}
	rc.reset(res.Backlog)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: rc, ConnState: rc.connState}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	admin, err := startDeliveryServer(ctx, bins, dbURL, dir, "admin", 0, "")
	if err != nil {
		return nil, err
	}
	defer admin.stop()
	tenants := fx.Tenants[:deliveryTenants]
	var created []struct{ key, id string }
	defer func() {
		for _, c := range created {
			_ = call(context.WithoutCancel(ctx), admin.URL, "DELETE", "/api/webhook-endpoints/"+c.id, c.key, "", http.StatusNoContent, nil)
		}
	}()
	for i, t := range tenants {
		for j := range deliveryEndpoints {
			var ep struct {
				ID string `json:"id"`
			}
			hook := fmt.Sprintf(`{"url":"http://%s/hooks/%d/%d","event_types":["ticket.created"]}`, ln.Addr(), i, j)
			if err := call(ctx, admin.URL, "POST", "/api/webhook-endpoints", t.Key, hook, http.StatusCreated, &ep); err != nil {
				return nil, err
			}
			created = append(created, struct{ key, id string }{t.Key, ep.ID})
		}
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))

	for replicas := 1; replicas <= deliveryReplicas; replicas++ {
		run, err := drain(ctx, bins, dbURL, dir, profDir, admin, conn, rc, tenants, events, res.Backlog, replicas, cfg.DeliveryWorkers)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, run)
	}
	res.Scaling = res.Runs[len(res.Runs)-1].PerSecond / res.Runs[0].PerSecond
	return res, nil
}

// drain seeds a backlog of backlog deliveries through admin (perTenant
// ticket creates of each tenant), checks that River holds them, starts
// replicas delivering servers (workers each, 0: serve's default) and times them until the receiver has had
// every one.
func drain(ctx context.Context, bins binaries, dbURL, dir, profDir string, admin *proc, conn *pgx.Conn, rc *receiver,
	tenants []benchTenant, perTenant, backlog, replicas, workers int) (drainResult, error) {
	out := drainResult{Replicas: replicas}
	rc.reset(backlog)
	start := time.Now()
	if err := seedTickets(ctx, admin.URL, tenants, perTenant); err != nil {
		return out, err
	}
	out.Seed = time.Since(start)
	var queued int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE queue = 'outbound' AND state = 'available'`).Scan(&queued); err != nil {
		return out, err
	}
	if queued != backlog {
		return out, fmt.Errorf("delivery: %d attempt jobs available after seeding, want %d", queued, backlog)
	}

	start = time.Now()
	before := takeCPU(0, nil)
	var procs []*proc
	var profiled <-chan error
	for i := range replicas {
		pprofAddr := ""
		if profDir != "" && i == 0 {
			port, err := freePort()
			if err != nil {
				return out, err
			}
			pprofAddr = fmt.Sprintf("127.0.0.1:%d", port)
		}
		name := fmt.Sprintf("%d-of-%d", i+1, replicas)
		p, err := startDeliveryServer(ctx, bins, dbURL, dir, name, cmp.Or(workers, -1), pprofAddr)
		if err != nil {
			return out, err
		}
		defer p.stop()
		procs = append(procs, p)
		if pprofAddr != "" {
			p.PprofURL = "http://" + pprofAddr
			profiled = captureProfiles(ctx, p, deliveryProfile,
				filepath.Join(profDir, "delivery-"+name+".cpu.pprof"), filepath.Join(profDir, "delivery-"+name+".heap.pprof"))
		}
	}
	if profiled != nil {
		defer func() {
			if err := <-profiled; err != nil {
				fmt.Printf("delivery profile: %v\n", err)
			}
		}()
	}
	select {
	case <-rc.all:
	case <-time.After(deliveryTimeout):
	case <-ctx.Done():
		return out, ctx.Err()
	}
	after := takeCPU(0, nil)
	for _, p := range procs {
		after.Server += procCPU(strconv.Itoa(p.pid()))
	}
	// The replicas' connections are all theirs, opened since they started.
	rows, err := conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", deliveryApp)
	if err != nil {
		return out, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return out, err
	}
	for _, pid := range pids {
		after.Postgres[int(pid)] = procCPU(strconv.Itoa(int(pid)))
	}
	out.CPU = before.until(after)
	time.Sleep(500 * time.Millisecond) // late duplicates
	out.Connections = rc.conns.Load()
	distinct, dups := rc.counts()
	out.Lost, out.Duplicates = backlog-distinct, dups
	if out.Lost > 0 {
		return out, fmt.Errorf("delivery: %d replica(s) delivered %d of %d within %s", replicas, distinct, backlog, deliveryTimeout)
	}
	rc.mu.Lock()
	out.Elapsed, out.FromStart = rc.last.Sub(rc.first), rc.last.Sub(start)
	rc.mu.Unlock()
	out.PerSecond = float64(backlog) / out.Elapsed.Seconds()
	return out, nil
}

// seedTickets creates perTenant tickets of each tenant through url's API,
// deliveryClients at a time.
func seedTickets(ctx context.Context, url string, tenants []benchTenant, perTenant int) error {
	n := int64(perTenant * len(tenants))
	var next atomic.Int64
	errs := make(chan error, deliveryClients)
	var wg sync.WaitGroup
	for range deliveryClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= n; i = next.Add(1) {
				t := tenants[int(i)%len(tenants)]
				body := fmt.Sprintf(`{"subject":"Delivery bench %d","description":"One event, a delivery per endpoint.","priority":"normal"}`, i)
				if err := call(ctx, url, "POST", "/api/tickets", t.Key, body, http.StatusCreated, nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// startDeliveryServer starts a tenantkit server on dbURL that delivers
// to 127.0.0.1 with workers workers (0: it only enqueues; -1: serve's
// default), and waits until it is ready; with pprofAddr, a profiling
// build serves pprof there.
func startDeliveryServer(ctx context.Context, bins binaries, dbURL, dir, name string, workers int, pprofAddr string) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	app := "tenantkit"
	if workers != 0 {
		app = deliveryApp
	}
	args := []string{"serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--database-url", withParams(dbURL, "application_name="+app),
		"--migrate=false", "--rate-limit", "0", "--scheduler-interval", "0", "--webhook-allow-hosts", "127.0.0.1"}
	if workers >= 0 {
		args = append(args, "--webhook-workers", strconv.Itoa(workers))
	}
	env := childEnv()
	if pprofAddr != "" {
		env = append(env, pprofEnv+"="+pprofAddr)
	}
	p, err := startProc("tenantkit", bins.Server, port, args, env, filepath.Join(dir, "tenantkit-delivery-"+name+".log"))
	if err != nil {
		return nil, err
	}
	if err := p.waitReady(ctx, "/api/health/ready", 30*time.Second); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// call sends one API request with key and decodes the answer into out
// (when not nil), failing unless it has status want.
func call(ctx context.Context, base, method, path, key, body string, want int, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// log prints each run's figures.
func (d *deliveryResult) log(logf func(string, ...any)) {
	for _, r := range d.Runs {
		server, postgres := r.perDelivery(d.Backlog)
		logf("delivery: %d replica(s), %s: %d deliveries (%d events × %d endpoints) drained in %s, %.0f/s (%s from the replicas' start; %d lost, %d duplicates; %d connections to the receiver; seeding took %s); CPU per delivery: replicas %s, their Postgres backends %s; machine %.0f%% busy, %.0f%% of it others'",
			r.Replicas, d.workers(), d.Backlog, d.Events, d.Endpoints, r.Elapsed.Round(time.Millisecond), r.PerSecond,
			r.FromStart.Round(time.Millisecond), r.Lost, r.Duplicates, r.Connections, r.Seed.Round(time.Millisecond),
			micros(server), micros(postgres), 100*ratio(float64(r.CPU.Busy), float64(r.CPU.Total)), 100*r.CPU.other())
	}
	logf("delivery: two replicas / one: %.2f×", d.Scaling)
}

// workers says how many workers each replica ran.
func (d *deliveryResult) workers() string {
	if d.Workers == 0 {
		return "serve's default workers"
	}
	return fmt.Sprintf("%d workers", d.Workers)
}

// micros writes d in microseconds.
func micros(d time.Duration) string { return fmt.Sprintf("%d µs", d.Microseconds()) }
