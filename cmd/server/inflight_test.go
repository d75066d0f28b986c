package main

import (
	"context"
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
