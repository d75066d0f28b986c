package main

import (
	"slices"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"Empty", nil, 0.5, 0},
		{"One", ms(7), 0.99, 7 * time.Millisecond},
		{"MedianOdd", ms(1, 2, 3), 0.5, 2 * time.Millisecond},
		{"MedianEven", ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"P99Of100", hundred, 0.99, 99 * time.Millisecond},
		{"P50Of100", hundred, 0.50, 50 * time.Millisecond},
		{"Max", hundred, 1, 100 * time.Millisecond},
		{"TinyQ", hundred, 0.0001, 1 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.q); got != tt.want {
				t.Errorf("percentile(%v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	runs := []runResult{
		{OK: 100, Elapsed: time.Second, PeakRSS: 10, latencies: []time.Duration{1, 2, 3}},
		{OK: 300, Elapsed: time.Second, PeakRSS: 30, latencies: []time.Duration{4}},
	}
	s := summarize(runs)
	if s.RPS != 200 {
		t.Errorf("RPS = %v, want 200", s.RPS)
	}
	if s.PeakRSS != 30 {
		t.Errorf("PeakRSS = %v, want 30", s.PeakRSS)
	}
	if s.P50 != 2 || s.P99 != 4 {
		t.Errorf("P50, P99 = %v, %v, want 2, 4", s.P50, s.P99)
	}
}

func TestCursorSpelling(t *testing.T) {
	// The spelling tenantkit's httpapi uses: base64url("v1:" + id), no padding.
	if got, want := encodeCursor("inv_01"), "djE6aW52XzAx"; got != want {
		t.Errorf("encodeCursor = %q, want %q", got, want)
	}
}

func TestPairedRatios(t *testing.T) {
	run := func(ok int, lat ...time.Duration) runResult {
		return runResult{OK: ok, Elapsed: time.Second, latencies: lat}
	}
	tests := []struct {
		name string
		a, b []runResult
		stat func(runResult) float64
		want []float64
	}{
		{"Throughput", []runResult{run(90), run(120)}, []runResult{run(100), run(100)}, runResult.Throughput, []float64{0.9, 1.2}},
		{"P99", []runResult{run(1, 3*time.Millisecond)}, []runResult{run(1, 2*time.Millisecond)}, runResult.p99, []float64{1.5}},
		{"UnevenRounds", []runResult{run(50), run(60)}, []runResult{run(100)}, runResult.Throughput, []float64{0.5}},
		{"ZeroBaseline", []runResult{run(50)}, []runResult{run(0)}, runResult.Throughput, []float64{0}},
		{"None", nil, nil, runResult.Throughput, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pairedRatios(tt.a, tt.b, tt.stat)
			if !slices.Equal(got, tt.want) {
				t.Errorf("pairedRatios = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	tests := []struct {
		rounds []float64
		want   string
	}{
		{nil, ""},
		{[]float64{0.93}, ""},
		{[]float64{0.95, 0.88, 1.01}, " [0.88–1.01×]"},
	}
	for _, tt := range tests {
		if got := spread(tt.rounds); got != tt.want {
			t.Errorf("spread(%v) = %q, want %q", tt.rounds, got, tt.want)
		}
	}
}

func TestMbs(t *testing.T) {
	tests := []struct {
		in   []int64
		want string
	}{
		{[]int64{61 << 20}, "61 MB"},
		{[]int64{61 << 20, 66 << 20, 70<<20 + 1<<18}, "61 → 66 → 70 MB"},
	}
	for _, tt := range tests {
		if got := mbs(tt.in); got != tt.want {
			t.Errorf("mbs(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
