package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, floor uint64
		want        int
	}{
		{live: 0, floor: 8 * mb, want: 100},
		{live: 3 * mb, floor: 8 * mb, want: 250},     // 266 → the step below
		{live: 2 * mb, floor: 8 * mb, want: 400},     // room of the floor: 8 MB
		{live: 4 * mb, floor: 8 * mb, want: 200},     // as much as GOGC=200
		{live: 6 * mb, floor: 8 * mb, want: 125},     // 133 → 125
		{live: 8 * mb, floor: 8 * mb, want: 100},     // the floor is the heap: double it
		{live: 20 * mb, floor: 8 * mb, want: 100},    // a pile-up's heap doubles, not triples
		{live: 100 * 1024, floor: 8 * mb, want: 800}, // at most 800
	} {
		if got := gcPercentFor(tc.live, tc.floor); got != tc.want {
			t.Errorf("gcPercentFor(%d, %d) = %d, want %d", tc.live, tc.floor, got, tc.want)
		}
	}
}

// TestGCTunerFollowsTheLiveHeap runs the tuner on this process's own
// collector: GOGC goes down to 100 when the live heap passes the floor
// and back up when it shrinks again.
func TestGCTunerFollowsTheLiveHeap(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
	runtime.GC()
	live := readUint64Metric(t, "/gc/heap/live:bytes")
	tuner := startGCTuner(4 * live)
	defer tuner.stop()
	if got := readUint64Metric(t, "/gc/gogc:percent"); got <= 150 {
		t.Fatalf("GOGC %d with a live heap of a quarter of the floor, want about 400", got)
	}

	hold := make([]byte, 6*live) // pointer-free: live for the collector without being scanned
	waitForGOGC(t, func(p uint64) bool { return p == 100 }, "100 once the live heap passed the floor")
	runtime.KeepAlive(hold)
	hold = nil
	waitForGOGC(t, func(p uint64) bool { return p > 150 }, "back above 150 once the live heap shrank")

	tuner.stop()
	runtime.GC()
	time.Sleep(10 * time.Millisecond) // a cleanup in flight may still arm once more, and then stop
	stopped := readUint64Metric(t, "/gc/gogc:percent")
	hold = make([]byte, 6*live)
	for range 3 {
		runtime.GC()
	}
	runtime.KeepAlive(hold)
	if got := readUint64Metric(t, "/gc/gogc:percent"); got != stopped {
		t.Errorf("GOGC changed from %d to %d after the tuner stopped", stopped, got)
	}
}

// waitForGOGC collects until GOGC satisfies ok, for up to 10 s.
func waitForGOGC(t *testing.T, ok func(uint64) bool, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(5 * time.Millisecond) // the cleanup runs on its own goroutine
		p := readUint64Metric(t, "/gc/gogc:percent")
		if ok(p) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d, want %s", p, want)
		}
	}
}

func readUint64Metric(t *testing.T, name string) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("runtime/metrics has no %s", name)
	}
	return s[0].Value.Uint64()
}
