package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// serverGCPercent is the garbage collector's setting for `server serve`
// while the live heap is small, where the environment sets no GOGC (GOGC
// wins when set). A request allocates a few kilobytes that die with it, so
// Go's default GOGC=100 collects often for little: at 200 the collector
// runs half as often. What it buys (`cd bench && go run . --quick --only
// "get invoice,create invoice,list invoices,entitlements"`, one run before
// and after): server CPU per GET invoice 0.28 → 0.25 ms, throughput
// against the baseline get invoice 0.69 → 0.80×, list 0.83 → 0.91×,
// create invoice and entitlements unchanged within the run's noise.
//
// serve sets no soft memory limit (GOMEMLIMIT) of its own. One of 40 MiB,
// set until 2026-11-27, did not bind at full speed (peak RSS 57 MB with
// and without it) and hurt when requests piled up during a stall of the
// machine: with the heap near the limit, the collector ran back to back
// while the backlog waited. In the bench's fixed-rate runs at half the
// baseline's throughput (median of 6 rounds) tenantkit's p99 on list
// invoices, invoice preview, get invoice and entitlements was 1.72×,
// 4.00×, 1.54× and 1.57× the baseline's with the limit (`cd bench && go
// run .`, a full run) and 0.96×, 1.43×, 0.85× and 0.84× without it
// (`GOMEMLIMIT=off go run . --only "list invoices,invoice preview,get
// invoice,entitlements"`, one run each), and the peak RSS of those runs
// was 97 MB with it and 83 MB without. Tried again with the workers of
// limitInFlight, entitlements only: half-rate p99 2.07× with the limit,
// 0.77× without (`go run . --only entitlements`, 6 rounds each).
const serverGCPercent = 200

// gcHeadroom is what gcPercentFor adds to Go's default heap goal (twice
// the live heap). A server at work keeps 4–6 MiB live, for which that
// would be GOGC 233–300, so serverGCPercent holds. When a thousand waiting
// connections hold 20 MiB live, it is GOGC 140, a heap goal of 48 MiB
// where 200 would give 60 and the baseline, at Go's default, 40.
const gcHeadroom = 8 << 20

// gcPercentFor is the GOGC that puts the next heap goal at twice live
// plus gcHeadroom, between Go's default 100 and serverGCPercent.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return serverGCPercent
	}
	return min(serverGCPercent, max(100, 100+int(100*gcHeadroom/live)))
}

// tuneGC applies serverGCPercent unless GOGC is set, and from then on,
// after every collection, gcPercentFor the heap it left live.
func tuneGC() {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return
	}
	debug.SetGCPercent(serverGCPercent)
	last := serverGCPercent
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	afterEachGC(func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if p := gcPercentFor(sample[0].Value.Uint64()); p != last {
			debug.SetGCPercent(p)
			last = p
		}
	})
}

// afterEachGC calls fn, on the finalizer goroutine, after every garbage
// collection from now on: a sentinel object left unreachable is finalized
// by the cycle that finds it so, and each call leaves a new one.
func afterEachGC(fn func()) {
	s := new(gcSentinel)
	runtime.SetFinalizer(s, func(*gcSentinel) {
		fn()
		afterEachGC(fn)
	})
}

// gcSentinel is big enough (16 bytes, with a pointer) not to share a tiny
// allocation block, whose finalizer could wait on its neighbours.
type gcSentinel struct {
	_ *byte
	_ uint64
}
