package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcHeapFloor is the headroom `server serve` gives the garbage collector
// over the live heap where the environment sets no GOGC: after each
// collection, GOGC is set so that the next one starts when the heap has
// grown by gcHeapFloor or doubled, whichever is more (gcPercentFor).
//
// A request allocates a few kilobytes that die with it, and the live heap
// of a serving process is 2–3 MB, so Go's default GOGC=100 collects
// every 3 MB or so, often for little. A fixed GOGC=200 (until 2026-11-28)
// bought throughput, but it also tripled the heap when requests piled up
// behind a stall of the machine, when the live heap is 15–20 MB (a
// thousand requests in flight): the fixed-rate runs' peak RSS was 77 MB.
// The floor keeps the small heap's headroom and gives a big heap
// GOGC=100's. Measured with `cd bench && go run . --only "get invoice"`,
// one run each: GOGC=200 throughput 0.93× the baseline's, fixed-rate peak
// RSS 77 MB; GOGC=100 0.88× and 62 MB. With the floor, a full run (`cd
// bench && go run .`): the highest peak of the fixed-rate runs 64 MB,
// every endpoint's throughput as with GOGC=200 within the runs' noise
// (0.87–1.12×). A floor of 12 MiB bought no throughput on entitlements and
// invoice preview and raised their full-speed peak from 46 to 59 MB.
//
// serve sets no soft memory limit (GOMEMLIMIT): one of 40 MiB, set until
// 2026-11-27, did not bind at full speed and hurt when requests piled up:
// with the heap near the limit the collector ran back to back while the
// backlog waited, and tenantkit's p99 at half the baseline's rate was
// 1.5–4× the baseline's on four endpoints where without it it was 0.8–1.4×
// (`cd bench && go run .`).
const gcHeapFloor = 8 << 20

// gcPercentFor is the GOGC that gives a live heap of live bytes room to
// grow by floor bytes or double, whichever is more, in steps of 25 so
// that a steady heap does not change it after every collection, and at
// most 800.
func gcPercentFor(live, floor uint64) int {
	if live == 0 || live >= floor {
		return 100
	}
	p := int(100*floor/live) / 25 * 25
	return min(max(p, 100), 800)
}

// gcTuner sets GOGC after each collection from the live heap it left.
type gcTuner struct {
	floor   uint64
	percent atomic.Int64
	stopped atomic.Bool
	sample  []metrics.Sample
}

// tuneGC starts the garbage collector's tuning for serve, unless the
// environment sets GOGC. The returned function stops it.
func tuneGC() (stop func()) {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return func() {}
	}
	t := startGCTuner(gcHeapFloor)
	return t.stop
}

// startGCTuner applies floor from now on, starting from the live heap of
// the last collection.
func startGCTuner(floor uint64) *gcTuner {
	t := &gcTuner{floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.percent.Store(-1) // not yet set: the first adjust sets it
	t.adjust()
	t.arm()
	return t
}

// gcSentinel is allocated for its cleanup, which runs after the next
// collection has found it unreachable. It holds a pointer so that it is
// never batched with other small objects, whose cleanups may not run.
type gcSentinel struct{ _ *byte }

// arm makes the next collection call adjust, and arm again.
func (t *gcTuner) arm() {
	runtime.AddCleanup(&gcSentinel{}, func(t *gcTuner) {
		if !t.stopped.Load() {
			t.adjust()
			t.arm()
		}
	}, t)
}

// adjust sets GOGC for the live heap the last collection left. Setting it
// stops the world briefly, so it is set only when the step changes.
func (t *gcTuner) adjust() {
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	p := gcPercentFor(t.sample[0].Value.Uint64(), t.floor)
	if int64(p) != t.percent.Load() {
		t.percent.Store(int64(p))
		debug.SetGCPercent(p)
	}
}

// stop ends the tuning; GOGC stays as last set.
func (t *gcTuner) stop() { t.stopped.Store(true) }
