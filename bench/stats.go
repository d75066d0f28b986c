package main

import (
	"math"
	"slices"
	"time"
)

// percentile returns the q-quantile (0 < q ≤ 1) of sorted latencies by
// the nearest-rank method: the smallest value with at least q of the
// samples at or below it. Zero for no samples.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// runResult is what one load run against one server measured.
type runResult struct {
	Server   string        `json:"server"`
	Endpoint string        `json:"endpoint"`
	Rate     int           `json:"rate,omitempty"` // requests/s asked for; 0 = as fast as it answers
	Elapsed  time.Duration `json:"elapsed_ns"`
	OK       int           `json:"ok"`
	Failed   int           `json:"failed"`
	// Codes counts responses by status (0: no response).
	Codes      map[int]int `json:"codes"`
	FirstError string      `json:"first_error,omitempty"`
	PeakRSS    int64       `json:"peak_rss_bytes"`
	CPU        cpuUse      `json:"cpu"`
	// latencies of the successful requests, sorted.
	latencies []time.Duration
}

// Throughput is successful requests per second.
func (r runResult) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK) / r.Elapsed.Seconds()
}

// p99 is the run's p99 latency in nanoseconds.
func (r runResult) p99() float64 { return float64(percentile(r.latencies, 0.99)) }

// pairedRatios is stat(a[i]) / stat(b[i]) for each round i, the ratio of
// two runs made back to back (0 where stat(b[i]) is 0), over the rounds
// both made.
func pairedRatios(a, b []runResult, stat func(runResult) float64) []float64 {
	out := make([]float64, 0, min(len(a), len(b)))
	for i := range min(len(a), len(b)) {
		out = append(out, ratio(stat(a[i]), stat(b[i])))
	}
	return out
}

// summary merges the runs of one server on one endpoint.
type summary struct {
	Runs       int           `json:"runs"`
	RPS        float64       `json:"rps"`
	PerRunRPS  []float64     `json:"per_run_rps"`
	P50        time.Duration `json:"p50_ns"`
	P99        time.Duration `json:"p99_ns"`
	OK         int           `json:"ok"`
	Failed     int           `json:"failed"`
	FirstError string        `json:"first_error,omitempty"`
	PeakRSS    int64         `json:"peak_rss_bytes"`
	CPU        cpuUse        `json:"cpu"`
}

// cpuPerRequest is CPU time per successful request of the server, of
// Postgres and of the load generator.
func (s summary) cpuPerRequest() (server, postgres, loader time.Duration) {
	if s.OK == 0 {
		return 0, 0, 0
	}
	n := time.Duration(s.OK)
	return s.CPU.Server / n, s.CPU.Postgres / n, s.CPU.Loader / n
}

// busy is the fraction of the machine's CPU in use during the runs.
func (s summary) busy() float64 { return ratio(float64(s.CPU.Busy), float64(s.CPU.Total)) }

// summarize merges runs: throughput over their summed time, percentiles
// over all their latencies, the highest RSS.
func summarize(runs []runResult) summary {
	var (
		s       summary
		elapsed time.Duration
		all     []time.Duration
	)
	for _, r := range runs {
		s.Runs++
		s.OK += r.OK
		s.Failed += r.Failed
		elapsed += r.Elapsed
		s.PerRunRPS = append(s.PerRunRPS, r.Throughput())
		s.PeakRSS = max(s.PeakRSS, r.PeakRSS)
		s.CPU = s.CPU.add(r.CPU)
		if s.FirstError == "" {
			s.FirstError = r.FirstError
		}
		all = append(all, r.latencies...)
	}
	slices.Sort(all)
	if elapsed > 0 {
		s.RPS = float64(s.OK) / elapsed.Seconds()
	}
	s.P50, s.P99 = percentile(all, 0.50), percentile(all, 0.99)
	return s
}

// ratio is a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// verdict is a target's outcome.
func verdict(pass bool) string {
	if pass {
		return "PASS"
	}
	return "MISS"
}
