package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// coldResult is the time from exec of the server binary to its first 200
// from /api/health/ready, on SQLite with no other configuration.
type coldResult struct {
	// Fresh: a new database file, so the start includes migrating it.
	Fresh []time.Duration `json:"fresh_ns"`
	// Migrated: the same file again, already migrated.
	Migrated []time.Duration `json:"migrated_ns"`
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return percentile(s, 0.5)
}

// coldStart starts the server trials times on a fresh SQLite file and
// once more on the migrated file each time.
func coldStart(ctx context.Context, bin, dir string, trials int) (coldResult, error) {
	var res coldResult
	for i := range trials {
		db := filepath.Join(dir, fmt.Sprintf("cold-%d.db", i))
		for _, list := range []*[]time.Duration{&res.Fresh, &res.Migrated} {
			d, err := startToReady(ctx, bin, db, filepath.Join(dir, fmt.Sprintf("cold-%d.log", i)))
			if err != nil {
				return res, err
			}
			*list = append(*list, d)
		}
	}
	return res, nil
}

// startToReady execs the server on the SQLite file db and polls
// /api/health/ready every millisecond until it answers 200.
func startToReady(ctx context.Context, bin, db, logPath string) (time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--database-url", "sqlite:"+db)
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	url := fmt.Sprintf("http://127.0.0.1:%d/api/health/ready", port)
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	for time.Since(start) < 30*time.Second {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start), nil
			}
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		time.Sleep(time.Millisecond)
	}
	return 0, fmt.Errorf("cold start: server on %s not ready after 30s (log %s)", db, logPath)
}
