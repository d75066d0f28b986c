package main

import (
	"runtime"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		live uint64
		want int
	}{
		{0, serverGCPercent},
		{4 * mib, serverGCPercent},
		{8 * mib, 200},
		{16 * mib, 150},
		{20 * mib, 140},
		{80 * mib, 110},
		{1 << 40, 100},
	}
	for _, tt := range tests {
		if got := gcPercentFor(tt.live); got != tt.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tt.live/mib, got, tt.want)
		}
	}
}

func TestAfterEachGC(t *testing.T) {
	calls := make(chan struct{}, 1)
	afterEachGC(func() {
		select {
		case calls <- struct{}{}:
		default:
		}
	})
	// fn re-arms only after it returns, so a collection right after a
	// call may find no sentinel yet: collect until the next call comes.
	for i := range 3 {
		deadline := time.Now().Add(5 * time.Second)
		for called := false; !called; {
			if time.Now().After(deadline) {
				t.Fatalf("fn was not called after collection %d", i+1)
			}
			runtime.GC()
			select {
			case <-calls:
				called = true
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}
