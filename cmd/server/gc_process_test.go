package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeTunesGC: `server serve` sets GOGC from its live heap, well
// under the 8 MiB floor when idle, so above 100; with GOGC in the
// environment it leaves the collector alone. Read from /metrics, where
// the Go collector reports GOGC as go_gc_gogc_percent.
func TestServeTunesGC(t *testing.T) {
	t.Run("Tuned", func(t *testing.T) {
		t.Setenv("GOGC", "") // restores it after the test
		os.Unsetenv("GOGC")  // an empty GOGC would still be set
		srv := mustStartServerProc(t, freeAddr(t), "--database-url", "sqlite:"+filepath.Join(t.TempDir(), "gc.db"))
		deadline := time.Now().Add(15 * time.Second)
		for {
			p := gogcPercent(t, srv.URL()) // each scrape allocates: collections follow
			if p > 100 && p <= 800 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("go_gc_gogc_percent %v, want above 100 (an idle heap far under the floor) and at most 800", p)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("EnvironmentWins", func(t *testing.T) {
		t.Setenv("GOGC", "150")
		srv := mustStartServerProc(t, freeAddr(t), "--database-url", "sqlite:"+filepath.Join(t.TempDir(), "gc.db"))
		for range 20 {
			if p := gogcPercent(t, srv.URL()); p != 150 {
				t.Fatalf("go_gc_gogc_percent %v with GOGC=150 in the environment", p)
			}
		}
	})
}

// gogcPercent reads go_gc_gogc_percent from the server's /metrics.
func gogcPercent(t *testing.T, base string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(line, "go_gc_gogc_percent "); ok {
			p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	t.Fatalf("/metrics has no go_gc_gogc_percent:\n%s", body)
	return 0
}
