package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLimitInFlight(t *testing.T) {
	tests := []struct {
		name string
		n    int
		path string
		// want is how many of 4 concurrent requests run at once.
		want int32
	}{
		{"LimitedToN", 2, "/api/tenant/entitlements/limit", 2},
		{"NoLimit", 0, "/api/tenant/entitlements/limit", 4},
		{"HealthChecksNeverWait", 1, "/api/health/ready", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var running, peak atomic.Int32
			release := make(chan struct{})
			h := limitInFlight(tt.n, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				now := running.Add(1)
				for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
				}
				<-release
				running.Add(-1)
			}))
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tt.path, nil)) })
			}
			deadline := time.Now().Add(5 * time.Second)
			for running.Load() < tt.want && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond) // a request let through too many would show now
			close(release)
			wg.Wait()
			if got := peak.Load(); got != tt.want {
				t.Errorf("%d requests ran at once, want %d", got, tt.want)
			}
		})
	}
}

func TestLimitInFlightGivesUpWithTheClient(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	h := limitInFlight(1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started) // only the first request gets here
		<-release
	}))
	go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/events", nil))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/events", nil).WithContext(ctx))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting request whose client left did not return")
	}
}

func TestLimitInFlightPassesPanicsToTheConnection(t *testing.T) {
	h := limitInFlight(1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/abort" {
			panic(http.ErrAbortHandler)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("ServeHTTP panicked with %v, want http.ErrAbortHandler", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/abort", nil))
	}()
	// The worker survived its request's panic and serves the next one.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/fine", nil))
	if rec.Code != http.StatusNoContent {
		t.Errorf("after a panic the next request got %d, want 204", rec.Code)
	}
}

func TestLimitInFlightWorkersEndWhenIdle(t *testing.T) {
	d := limitInFlight(4, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).(*door)
	d.idle = 20 * time.Millisecond
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { d.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/events", nil)) })
	}
	wg.Wait()
	if n := len(d.workers); n < 1 || n > 4 {
		t.Fatalf("%d workers after 16 requests, want 1 to 4", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(d.workers) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(d.workers); n != 0 {
		t.Errorf("%d workers still running after %s idle, want 0", n, d.idle)
	}
}

// BenchmarkLimitInFlight is the door's cost per request, beside no door:
// 16 requests in flight, each hashing 8 KiB (about 7 µs of CPU) so that
// the workers' hand-offs meet the scheduling a real handler sees.
func BenchmarkLimitInFlight(b *testing.B) {
	var work [8 << 10]byte
	for _, n := range []int{0, 16} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var sink atomic.Int32
			h := limitInFlight(n, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sum := sha256.Sum256(work[:])
				sink.Add(int32(sum[0]))
			}))
			r := httptest.NewRequest("GET", "/api/tenant/entitlements/limit", nil)
			b.SetParallelism(8)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				w := httptest.NewRecorder()
				for pb.Next() {
					h.ServeHTTP(w, r)
				}
			})
		})
	}
}
