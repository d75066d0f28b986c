package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Targets (the project's performance goals, issue #19).
const (
	targetP99Ratio  = 1.5      // p99 at half the baseline's max rate, tenantkit / baseline
	targetTailRatio = 1.3      // p99 with tailConcurrency in flight, tenantkit / baseline
	targetDeepRatio = 1.1      // deep page p50 / page 1 p50
	targetLoadedRSS = 64 << 20 // tenantkit's peak RSS (VmHWM) under load
	targetColdStart = 100 * time.Millisecond
	tailConcurrency = 64

	targetDeliveryRate    = 1000 // deliveries/s one replica drains from a backlog (SPEC §20)
	targetDeliveryScaling = 1.8  // two replicas' drain rate / one's
)

// report is everything one bench run measured.
type report struct {
	Started time.Time `json:"started"`
	Command string    `json:"command"`
	Config  config    `json:"config"`
	Machine struct {
		CPUs     int    `json:"cpus"`
		Go       string `json:"go"`
		Postgres string `json:"postgres"`
		// Load averages (1 min) when the bench started and ended: other
		// work on a shared machine shows here.
		LoadStart string `json:"load_start"`
		LoadEnd   string `json:"load_end"`
	} `json:"machine"`
	SeedRows   map[string]int    `json:"seed_rows"`
	SeedTime   time.Duration     `json:"seed_ns"`
	Endpoints  []endpointResult  `json:"endpoints"`
	Skipped    []skipped         `json:"skipped,omitempty"`
	Deep       *deepResult       `json:"deep_page,omitempty"`
	Delivery   *deliveryResult   `json:"delivery,omitempty"`
	EventCost  []eventCostResult `json:"event_cost,omitempty"`
	Cold       coldResult        `json:"cold_start"`
	Memory     memResult         `json:"memory"`
	PileUp     *pileUpResult     `json:"pile_up,omitempty"`
	RoundTrips []rtResult        `json:"db_round_trips,omitempty"`
	Profiles   []profileRef      `json:"profiles,omitempty"`
	Total      time.Duration     `json:"total_ns"`
}

// endpointResult compares both servers on one endpoint.
type endpointResult struct {
	Name     string  `json:"name"`
	MinRatio float64 `json:"min_ratio"`
	TK       summary `json:"tenantkit"`
	Base     summary `json:"baseline"`
	// Ratio, the verdict's figure, is the median of Rounds, the
	// throughput ratios of each round's two runs; Pooled is the ratio of
	// all runs together. The same goes for P99Ratio and TailRatio.
	Ratio          float64   `json:"ratio"`
	Rounds         []float64 `json:"round_ratios"`
	Pooled         float64   `json:"pooled_ratio"`
	ThroughputPass bool      `json:"throughput_pass"`
	// HalfRate is half the baseline's throughput, the open-loop rate at
	// which both p99s are compared.
	HalfRate  int       `json:"half_rate"`
	TKHalf    summary   `json:"tenantkit_half"`
	BaseHalf  summary   `json:"baseline_half"`
	P99Ratio  float64   `json:"p99_ratio"`
	P99Rounds []float64 `json:"p99_round_ratios"`
	P99Pooled float64   `json:"p99_pooled_ratio"`
	P99Pass   bool      `json:"p99_pass"`
	// TKTail and BaseTail: closed loop with tailConcurrency in flight.
	TKTail     summary   `json:"tenantkit_tail"`
	BaseTail   summary   `json:"baseline_tail"`
	TailRatio  float64   `json:"tail_p99_ratio"`
	TailRounds []float64 `json:"tail_p99_round_ratios"`
	TailPooled float64   `json:"tail_p99_pooled_ratio"`
	TailPass   bool      `json:"tail_pass"`
}

type skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

type deepResult struct {
	Depth     int     `json:"depth"`
	TKFirst   summary `json:"tenantkit_page1"`
	TKDeep    summary `json:"tenantkit_deep"`
	BaseFirst summary `json:"baseline_page1"`
	BaseDeep  summary `json:"baseline_deep"`
	Ratio     float64 `json:"ratio"`
	Pass      bool    `json:"pass"`
}

type memResult struct {
	TKIdle   int64 `json:"tenantkit_idle"`
	BaseIdle int64 `json:"baseline_idle"`
	// Loaded: the peak during the full-speed runs (Concurrency in flight).
	TKLoaded   int64 `json:"tenantkit_loaded_peak"`
	BaseLoaded int64 `json:"baseline_loaded_peak"`
	// OpenLoop: the peak during the fixed-rate runs, where a server slower
	// than the rate piles up requests in flight.
	TKOpenLoop   int64 `json:"tenantkit_open_loop_peak"`
	BaseOpenLoop int64 `json:"baseline_open_loop_peak"`
	TKAfter      int64 `json:"tenantkit_after_load"`
	BaseAfter    int64 `json:"baseline_after_load"`
	TKHWM        int64 `json:"tenantkit_vmhwm"`
	BaseHWM      int64 `json:"baseline_vmhwm"`
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func msf(d time.Duration) float64 { return float64(d) / 1e6 }

// spread is the range of a goal's round ratios, " [0.88–1.01×]", or ""
// for a single round.
func spread(rounds []float64) string {
	if len(rounds) < 2 {
		return ""
	}
	return fmt.Sprintf(" [%.2f–%.2f×]", slices.Min(rounds), slices.Max(rounds))
}

func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }

// mbs is a series of sizes, "61 → 66 → 70 MB".
func mbs(bs []int64) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("%.0f", float64(b)/(1<<20))
	}
	return strings.Join(parts, " → ") + " MB"
}

// print writes the report as Markdown-compatible text.
func (r *report) print(w io.Writer) {
	if r.Config.EventCostOnly {
		r.printEventCostRun(w)
		return
	}
	c := r.Config
	fmt.Fprintf(w, "tenantkit vs baseline (net/http + pgx, same SQL) — %d CPUs, %s, Postgres %s; load average %s at start, %s at end\n",
		r.Machine.CPUs, r.Machine.Go, r.Machine.Postgres, r.Machine.LoadStart, r.Machine.LoadEnd)
	fmt.Fprintf(w, "load: vegeta, %d in flight, %d × %s per server per endpoint in rounds (A B, B A, …); p99 compared at %d in flight (%d × %s) and open-loop at half the baseline's throughput (%d × %s); each ratio is the median of the rounds' (their range and the ratio of all runs pooled beside it)\n",
		c.Concurrency, c.Rounds, c.Duration, tailConcurrency, c.Rounds, max(c.Duration/2, time.Second), c.Rounds, halfDuration(c))
	fmt.Fprintf(w, "data: %d tenants, %d invoices, %d tickets (seeded in %s)\n\n",
		r.SeedRows["tenants"], r.SeedRows["invoices"], r.SeedRows["tickets"], r.SeedTime.Round(time.Second))

	r.printGoals(w)
	fmt.Fprintln(w, "| endpoint | tk req/s | base req/s | ratio | target | tk p50 / p99 | base p50 / p99 | p99 at ½ base rate: tk / base | target | tk RSS: full speed / fixed rate | base RSS: full speed / fixed rate |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|---|---|---|---|---:|---:|")
	for _, e := range r.Endpoints {
		errs := ""
		if e.TK.Failed+e.Base.Failed > 0 {
			errs = fmt.Sprintf(" (errors tk %d, base %d)", e.TK.Failed, e.Base.Failed)
		}
		behind := ""
		if float64(e.HalfRate) > e.TK.RPS {
			behind = ", above tk's max"
		}
		fmt.Fprintf(w, "| %s%s | %.0f | %.0f | %.2f | ≥%.2f %s | %s / %s | %s / %s | %s / %s @%d/s%s (%.2f×) | ≤%.1f× %s | %s / %s | %s / %s |\n",
			e.Name, errs, e.TK.RPS, e.Base.RPS, e.Ratio, e.MinRatio, verdict(e.ThroughputPass),
			ms(e.TK.P50), ms(e.TK.P99), ms(e.Base.P50), ms(e.Base.P99),
			ms(e.TKHalf.P99), ms(e.BaseHalf.P99), e.HalfRate, behind, e.P99Ratio, targetP99Ratio, verdict(e.P99Pass),
			mb(e.TK.PeakRSS), mb(e.TKHalf.PeakRSS), mb(e.Base.PeakRSS), mb(e.BaseHalf.PeakRSS))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "| %s | — | — | — | skipped: %s | | | | | | |\n", s.Name, s.Reason)
	}
	fmt.Fprintln(w)
	r.printEventCost(w)

	fmt.Fprintln(w, "Where the time goes (full-speed runs; CPU per successful request, from /proc; round trips counted on sequential requests):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| endpoint | tk CPU ms/req: server + Postgres | base CPU ms/req: server + Postgres | load generator ms/req tk / base | machine busy tk / base (of which other processes) | DB round trips/req tk / base | statements parsed/req tk / base |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, e := range r.Endpoints {
		ts, tp, tl := e.TK.cpuPerRequest()
		bs, bp, bl := e.Base.cpuPerRequest()
		rt := "—"
		parses := "—"
		for _, x := range r.RoundTrips {
			if x.Endpoint == e.Name {
				rt = fmt.Sprintf("%.1f / %.1f", x.TK.RoundTrips, x.Base.RoundTrips)
				parses = fmt.Sprintf("%.1f / %.1f", x.TK.Parses, x.Base.Parses)
			}
		}
		fmt.Fprintf(w, "| %s | %.2f + %.2f | %.2f + %.2f | %.2f / %.2f | %.0f%% (%.0f%%) / %.0f%% (%.0f%%) | %s | %s |\n", e.Name,
			msf(ts), msf(tp), msf(bs), msf(bp), msf(tl), msf(bl),
			100*e.TK.busy(), 100*e.TK.CPU.other(), 100*e.Base.busy(), 100*e.Base.CPU.other(), rt, parses)
	}
	fmt.Fprintln(w)

	if d := r.Deep; d != nil {
		fmt.Fprintf(w, "- deep page (cursor after %d of the big tenant's invoices, sequential requests): tenantkit p50 %s (p99 %s) vs page 1 p50 %s (p99 %s) → %.2f× ≤%.1f× %s; baseline %s vs %s\n",
			d.Depth, ms(d.TKDeep.P50), ms(d.TKDeep.P99), ms(d.TKFirst.P50), ms(d.TKFirst.P99), d.Ratio, targetDeepRatio,
			verdict(d.Pass), ms(d.BaseDeep.P50), ms(d.BaseFirst.P50))
	} else {
		fmt.Fprintln(w, "- deep page: not measured")
	}
	if d := r.Delivery; d != nil {
		for _, run := range d.Runs {
			server, postgres := run.perDelivery(d.Backlog)
			fmt.Fprintf(w, "- delivery, %d replica(s) (%s) draining %d queued deliveries (%d ticket creates × %d endpoints) to a receiver on 127.0.0.1: %.0f/s (%s from the first delivery to the last, %s from the replicas' start; %d lost, %d duplicates); CPU per delivery %s (replicas) + %s (their Postgres backends), others using %.0f%% of the machine\n",
				run.Replicas, d.workers(), d.Backlog, d.Events, d.Endpoints, run.PerSecond, ms(run.Elapsed), ms(run.FromStart), run.Lost, run.Duplicates,
				micros(server), micros(postgres), 100*run.CPU.other())
		}
	} else {
		fmt.Fprintln(w, "- delivery throughput: not measured")
	}
	if len(r.Cold.Fresh) > 0 {
		fresh := median(r.Cold.Fresh)
		fmt.Fprintf(w, "- cold start on SQLite (exec → first 200 from /api/health/ready, median of %d): new database %s (includes migrating it), migrated database %s → ≤%s %s\n",
			len(r.Cold.Fresh), ms(fresh), ms(median(r.Cold.Migrated)), ms(targetColdStart), verdict(fresh <= targetColdStart))
	}
	m := r.Memory
	fmt.Fprintf(w, "- RSS (a fresh pair of servers per endpoint) tenantkit: idle %s, peak under full-speed load %s → ≤%s %s; peak in the fixed-rate runs %s (highest VmHWM %s); baseline: idle %s, full-speed peak %s, fixed-rate peak %s\n",
		mb(m.TKIdle), mb(m.TKLoaded), mb(targetLoadedRSS), verdict(m.TKLoaded <= targetLoadedRSS && m.TKLoaded > 0),
		mb(m.TKOpenLoop), mb(m.TKHWM), mb(m.BaseIdle), mb(m.BaseLoaded), mb(m.BaseOpenLoop))
	fmt.Fprintf(w, "\ntotal %s\n", r.Total.Round(time.Second))
	for _, p := range r.Profiles {
		fmt.Fprintf(w, "\n### %s profile: %s, %s (%s)\n", p.Kind, p.Endpoint, p.Server, p.Path)
		if p.Err != "" {
			fmt.Fprintln(w, "error:", p.Err)
			continue
		}
		fmt.Fprintf(w, "```\n%s```\n", p.Top)
	}
}

// write saves the report as JSON or Markdown, by path's extension.
func (r *report) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b []byte
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		var err error
		if b, err = json.MarshalIndent(r, "", "  "); err != nil {
			return err
		}
	case ".md", ".markdown":
		var sb strings.Builder
		fmt.Fprintf(&sb, "# tenantkit benchmark, %s\n\n`%s`\n\n", r.Started.Format(time.RFC3339), r.Command)
		r.print(&sb)
		b = []byte(sb.String())
	default:
		return fmt.Errorf("--out %s: want a .json or .md file", path)
	}
	return os.WriteFile(path, b, 0o644)
}

// printFairness lists each endpoint's statements per request (the same on
// both servers, or the check would have failed) with its round trips.
func (r *report) printFairness(w io.Writer) {
	for _, x := range r.RoundTrips {
		fmt.Fprintf(w, "%s: %d round trips (%.1f on average), %.1f parses per request (baseline %d, %.1f, %.1f); alike: %v\n",
			x.Endpoint, x.TKRoundTrips, x.TK.RoundTrips, x.TK.Parses, x.BaseRoundTrips, x.Base.RoundTrips, x.Base.Parses, x.Same)
		for i, s := range x.TKStatements {
			fmt.Fprintf(w, "  %2d. %s\n", i+1, s)
		}
	}
}

// printGoals is the table of the goals, each as a ratio of this
// run, marked PASS or MISS.
func (r *report) printGoals(w io.Writer) {
	fmt.Fprintln(w, "| goal | measured | target | |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, e := range r.Endpoints {
		fmt.Fprintf(w, "| throughput, %s | %.2f×%s (pooled %.2f×: %.0f / %.0f req/s) | ≥ %.2f× | %s |\n", e.Name, e.Ratio, spread(e.Rounds),
			e.Pooled, e.TK.RPS, e.Base.RPS, e.MinRatio, verdict(e.ThroughputPass))
	}
	for _, e := range r.Endpoints {
		fmt.Fprintf(w, "| p99 at %d in flight, %s | %.2f×%s (pooled %.2f×: %s / %s) | ≤ %.1f× | %s |\n", tailConcurrency, e.Name, e.TailRatio,
			spread(e.TailRounds), e.TailPooled, ms(e.TKTail.P99), ms(e.BaseTail.P99), targetTailRatio, verdict(e.TailPass))
	}
	for _, e := range r.Endpoints {
		fmt.Fprintf(w, "| p99 at ½ the baseline's max (%d/s), %s | %.2f×%s (pooled %.2f×: %s / %s) | ≤ %.1f× | %s |\n", e.HalfRate, e.Name, e.P99Ratio,
			spread(e.P99Rounds), e.P99Pooled, ms(e.TKHalf.P99), ms(e.BaseHalf.P99), targetP99Ratio, verdict(e.P99Pass))
	}
	if d := r.Deep; d != nil {
		fmt.Fprintf(w, "| list at cursor depth %d vs page 1 (p50) | %.2f× (%s / %s) | ≤ %.1f× | %s |\n", d.Depth, d.Ratio,
			ms(d.TKDeep.P50), ms(d.TKFirst.P50), targetDeepRatio, verdict(d.Pass))
	}
	for _, e := range r.EventCost {
		fmt.Fprintf(w, "| event log cost, %s (baseline with / without its event write) | %.1f%% (%.0f / %.0f req/s) | ≤ %.0f%% | %s |\n",
			e.Name, 100*e.Cost, e.With.RPS, e.Without.RPS, 100*targetEventCost, verdict(e.Pass))
	}
	if d := r.Delivery; d != nil && len(d.Runs) == deliveryReplicas {
		one := d.Runs[0].PerSecond
		fmt.Fprintf(w, "| delivery, one replica (%s), backlog of %d to a receiver on 127.0.0.1 | %.0f/s, %d lost | ≥ %d/s, 0 lost | %s |\n",
			d.workers(), d.Backlog, one, d.Runs[0].Lost, targetDeliveryRate, verdict(one >= targetDeliveryRate && d.Runs[0].Lost == 0))
		fmt.Fprintf(w, "| delivery, two replicas / one | %.2f× (%.0f/s), %d lost | ≥ %.1f×, 0 lost | %s |\n",
			d.Scaling, d.Runs[1].PerSecond, d.Runs[1].Lost, targetDeliveryScaling, verdict(d.Scaling >= targetDeliveryScaling && d.Runs[1].Lost == 0))
	} else {
		fmt.Fprintln(w, "| delivery throughput | not measured | — | — |")
	}
	m := r.Memory
	fmt.Fprintf(w, "| tenantkit RSS under load (highest VmHWM) | %s | ≤ %s | %s |\n", mb(m.TKHWM), mb(targetLoadedRSS),
		verdict(m.TKHWM > 0 && m.TKHWM <= targetLoadedRSS))
	if p := r.PileUp; p != nil && len(p.TKWaves) > 0 && len(p.BaseWaves) > 0 {
		fmt.Fprintf(w, "| RSS through %d pile-ups of %d requests (%s, %s stop): VmHWM after each, tenantkit / baseline | %s / %s (idle %s / %s; %d failed) | reported, no target | — |\n",
			len(p.TKWaves), p.Requests, p.Endpoint, pileUpStop, mbs(p.TKWaves), mbs(p.BaseWaves), mb(p.TKIdle), mb(p.BaseIdle), p.Failed)
	}
	if len(r.Cold.Fresh) > 0 {
		fresh, migrated := median(r.Cold.Fresh), median(r.Cold.Migrated)
		fmt.Fprintf(w, "| cold start on SQLite, new database (median of %d) | %s | ≤ %s | %s |\n", len(r.Cold.Fresh), ms(fresh), ms(targetColdStart), verdict(fresh <= targetColdStart))
		fmt.Fprintf(w, "| cold start on SQLite, migrated database (median of %d) | %s | ≤ %s | %s |\n", len(r.Cold.Migrated), ms(migrated), ms(targetColdStart), verdict(migrated <= targetColdStart))
	}
	fmt.Fprintln(w)
}
