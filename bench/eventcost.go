package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// How the event log's cost is measured. Every mutation of tenantkit
// writes one event in its transaction (one INSERT that also asks whether
// the tenant has a webhook endpoint); tenantkit has no switch to turn that
// off, and will not get one. The baseline is the one server that can run
// with and without it while otherwise identical: started with
// --events=false it skips recordEvent (that insert) and nothing else. So the event log's cost is measured on the
// baseline, as 1 − throughput(with)/throughput(without), on the
// mutations of eventCostEndpoints; tenantkit (which always writes its
// events) runs in the same rotation and is reported against both. The
// three servers run in turn at full speed, forward in even rounds and
// backward in odd ones (roundOrder), at least six rounds (the verdict is
// the median of the rounds' costs: medianOf), so that a drift
// of the machine weighs on all alike. tenantkit's scheduler is off
// (--scheduler-interval 0) meanwhile, since its jobs write events too. Rows added to the events table are
// counted per request of each server: 1 with the event log, 0 without
// (anything else means the switch does not do what it says).

// targetEventCost: the event log may cost at most this share of the
// baseline's throughput.
const targetEventCost = 0.10

// minEventCostRounds is the fewest rounds the event log's cost is
// measured over, for its median.
const minEventCostRounds = 6

// eventCostEndpoints are the rows of the endpoint table whose event cost
// is measured: a mutation by API key and one by the payment webhook.
var eventCostEndpoints = []string{"create invoice", "webhook ingest"}

// eventCostResult is the event log's cost on one endpoint.
type eventCostResult struct {
	Name    string  `json:"name"`
	TK      summary `json:"tenantkit"`
	With    summary `json:"baseline_with_events"`
	Without summary `json:"baseline_without_events"`
	// RoundCosts is eventCost of each round's pair of runs, which ran
	// next to each other; Cost, the verdict's figure, is their median;
	// Overall is eventCost(With.RPS, Without.RPS) over all rounds.
	Cost       float64   `json:"cost"`
	RoundCosts []float64 `json:"round_costs"`
	Overall    float64   `json:"overall_cost"`
	Pass       bool      `json:"pass"`
	// TKVsWith and TKVsWithout are tenantkit's throughput over each
	// baseline's.
	TKVsWith    float64 `json:"tenantkit_vs_with"`
	TKVsWithout float64 `json:"tenantkit_vs_without"`
	// Events per successful request written by each server's runs.
	TKEvents      float64 `json:"tenantkit_events_per_request"`
	WithEvents    float64 `json:"with_events_per_request"`
	WithoutEvents float64 `json:"without_events_per_request"`
}

// eventCost is the share of throughput the event log costs: 1 −
// with/without (negative when the run with events was faster, as noise
// can make it). Zero when without is not positive.
func eventCost(with, without float64) float64 {
	if without <= 0 {
		return 0
	}
	return 1 - with/without
}

// medianOf is the median of xs (0 for none). The verdict takes the
// median of the rounds' paired costs rather than the cost of the sums:
// on a 2-core machine shared with Postgres one disturbed run moves a
// round's cost by 20 points or more (a round of 36.8 % among 9–12 %
// ones), and the median of paired rounds is the estimate such a run
// cannot drag.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// roundOrder is the order in which n servers run in round: 0 … n−1 in
// even rounds, n−1 … 0 in odd ones.
func roundOrder(round, n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if round%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// selectEventCostEndpoints picks eventCostEndpoints out of active.
func selectEventCostEndpoints(active []endpoint) []endpoint {
	var out []endpoint
	for _, ep := range active {
		if slices.Contains(eventCostEndpoints, ep.Name) {
			out = append(out, ep)
		}
	}
	return out
}

// measureEventCost runs each endpoint on tenantkit, the baseline and the
// baseline without the event log, a fresh trio per endpoint.
func measureEventCost(ctx context.Context, cfg config, bins binaries, dbURL string, fx *fixture, eps []endpoint, dir string,
	logf func(string, ...any)) ([]eventCostResult, error) {
	bins.Profiling = false
	var out []eventCostResult
	for i, ep := range eps {
		suffix := fmt.Sprintf("-eventcost-%d", i+1)
		// tenantkit's scheduler off, as in the fairness check: its jobs
		// write events of their own and load Postgres under all three.
		tk, with, err := startServersOn(ctx, bins, dbURL, dbURL, cfg, fx, dir, suffix, "--scheduler-interval", "0")
		if err != nil {
			return out, err
		}
		without, err := startBaselineWithoutEvents(ctx, bins, dbURL, fx, dir, suffix)
		if err != nil {
			tk.stop()
			with.stop()
			return out, err
		}
		res, err := eventCostOf(ctx, cfg, fx, ep, tk, with, without)
		tk.stop()
		with.stop()
		without.stop()
		if err != nil {
			return out, err
		}
		logf("event log cost, %-15s baseline %7.0f req/s with events, %7.0f without → median of rounds %.1f%% (≤ %.0f%% %s); tenantkit %7.0f req/s",
			ep.Name, res.With.RPS, res.Without.RPS, 100*res.Cost, 100*targetEventCost, verdict(res.Pass), res.TK.RPS)
		out = append(out, res)
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// eventCostOf runs ep on the three servers in rotation and compares them.
func eventCostOf(ctx context.Context, cfg config, fx *fixture, ep endpoint, tk, with, without *proc) (eventCostResult, error) {
	servers := []*proc{with, without, tk}
	full := loadSpec{Concurrency: cfg.Concurrency, Duration: cfg.Duration}
	for _, p := range servers {
		runLoad(ctx, p, fx, ep, loadSpec{Concurrency: cfg.Concurrency, Duration: time.Second / 2})
	}
	runs := make([][]runResult, len(servers))
	events := make([]int64, len(servers))
	for round := range max(cfg.Rounds, minEventCostRounds) {
		for _, i := range roundOrder(round, len(servers)) {
			before, err := countEvents(ctx, fx)
			if err != nil {
				return eventCostResult{}, err
			}
			runs[i] = append(runs[i], runLoad(ctx, servers[i], fx, ep, full))
			after, err := countEvents(ctx, fx)
			if err != nil {
				return eventCostResult{}, err
			}
			events[i] += after - before
			time.Sleep(300 * time.Millisecond)
		}
	}
	res := eventCostResult{Name: ep.Name, With: summarize(runs[0]), Without: summarize(runs[1]), TK: summarize(runs[2])}
	for r := range runs[0] {
		res.RoundCosts = append(res.RoundCosts, eventCost(runs[0][r].Throughput(), runs[1][r].Throughput()))
	}
	res.Cost, res.Overall = medianOf(res.RoundCosts), eventCost(res.With.RPS, res.Without.RPS)
	res.Pass = res.Cost <= targetEventCost && res.With.Failed == 0 && res.Without.Failed == 0 && res.With.OK > 0 && res.Without.OK > 0
	res.TKVsWith, res.TKVsWithout = ratio(res.TK.RPS, res.With.RPS), ratio(res.TK.RPS, res.Without.RPS)
	res.WithEvents = ratio(float64(events[0]), float64(res.With.OK))
	res.WithoutEvents = ratio(float64(events[1]), float64(res.Without.OK))
	res.TKEvents = ratio(float64(events[2]), float64(res.TK.OK))
	return res, nil
}

// countEvents is the number of rows of the event log.
func countEvents(ctx context.Context, fx *fixture) (int64, error) {
	var n int64
	err := fx.meter.conn.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&n)
	return n, err
}

// startBaselineWithoutEvents starts the baseline with --events=false.
func startBaselineWithoutEvents(ctx context.Context, bins binaries, dbURL string, fx *fixture, dir, suffix string) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--addr", fmt.Sprintf("127.0.0.1:%d", port), "--database-url", withParams(dbURL, "application_name=baseline-noevents"),
		"--webhook-secret", fx.WebhookSecret, "--events=false"}
	p, err := startProc("baseline without events", bins.Baseline, port, args, childEnv(), filepath.Join(dir, "baseline-noevents"+suffix+".log"))
	if err != nil {
		return nil, err
	}
	p.App = "baseline-noevents"
	if err := p.waitReady(ctx, "/api/health/ready", 30*time.Second); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// printEventCost is the table of the event log's cost.
func (r *report) printEventCost(w io.Writer) {
	if len(r.EventCost) == 0 {
		return
	}
	fmt.Fprintf(w, "Event log cost, measured on the baseline with and without its event write (tenantkit always writes it); %d in flight, %d × %s per server per endpoint, rotating:\n\n",
		r.Config.Concurrency, max(r.Config.Rounds, minEventCostRounds), r.Config.Duration)
	fmt.Fprintln(w, "| endpoint | base with events req/s | base without req/s | event log cost: median of rounds (each round) | overall | target | tk req/s | tk / base with | tk / base without | events/req tk / with / without |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---|---:|---:|---:|---|")
	for _, e := range r.EventCost {
		rounds := make([]string, len(e.RoundCosts))
		for i, c := range e.RoundCosts {
			rounds[i] = fmt.Sprintf("%.1f%%", 100*c)
		}
		errs := ""
		if n := e.TK.Failed + e.With.Failed + e.Without.Failed; n > 0 {
			errs = fmt.Sprintf(" (errors tk %d, with %d, without %d)", e.TK.Failed, e.With.Failed, e.Without.Failed)
		}
		fmt.Fprintf(w, "| %s%s | %.0f | %.0f | %.1f%% (%s) | %.1f%% | ≤ %.0f%% %s | %.0f | %.2f | %.2f | %.2f / %.2f / %.2f |\n",
			e.Name, errs, e.With.RPS, e.Without.RPS, 100*e.Cost, strings.Join(rounds, ", "), 100*e.Overall, 100*targetEventCost, verdict(e.Pass),
			e.TK.RPS, e.TKVsWith, e.TKVsWithout, e.TKEvents, e.WithEvents, e.WithoutEvents)
	}
	fmt.Fprintln(w)
}

// printEventCostRun is the report of `--event-cost` alone.
func (r *report) printEventCostRun(w io.Writer) {
	fmt.Fprintf(w, "event log cost — %d CPUs, %s, Postgres %s; load average %s at start, %s at end\n",
		r.Machine.CPUs, r.Machine.Go, r.Machine.Postgres, r.Machine.LoadStart, r.Machine.LoadEnd)
	fmt.Fprintf(w, "data: %d tenants, %d invoices, %d tickets (seeded in %s)\n\n",
		r.SeedRows["tenants"], r.SeedRows["invoices"], r.SeedRows["tickets"], r.SeedTime.Round(time.Second))
	r.printEventCost(w)
	fmt.Fprintf(w, "total %s\n", r.Total.Round(time.Second))
}
