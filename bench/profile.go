package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// pprofOverlay is the file the profiling build adds to cmd/server's
// package through go build -overlay: it serves net/http/pprof on
// $TENANTKIT_BENCH_PPROF_ADDR. Nothing on disk under cmd/server changes,
// and the plain build (every run without --profile) does not have it.
//
//go:embed overlay/pprof_server.go.txt
var pprofOverlay []byte

// pprofEnv names the address the profiling build serves pprof on.
const pprofEnv = "TENANTKIT_BENCH_PPROF_ADDR"

// writeOverlay writes the overlay file and its go build -overlay JSON
// into dir and returns the JSON's path. library is the directory of the
// tenantkit tree whose cmd/server is built.
func writeOverlay(library, dir string) (string, error) {
	src := filepath.Join(dir, "zz_bench_pprof.go")
	if err := os.WriteFile(src, pprofOverlay, 0o644); err != nil {
		return "", err
	}
	target := filepath.Join(library, "cmd", "server", "zz_bench_pprof.go")
	if _, err := os.Stat(target); err == nil {
		return "", fmt.Errorf("%s exists; the overlay would replace it", target)
	}
	spec, _ := json.Marshal(map[string]map[string]string{"Replace": {target: src}})
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, spec, 0o644)
}

// profileRef is a profile taken during a run.
type profileRef struct {
	Endpoint string `json:"endpoint"`
	Server   string `json:"server"`
	Kind     string `json:"kind"` // "cpu", or "heap" (in-use, taken near the end of the run)
	Path     string `json:"path"`
	Binary   string `json:"-"`
	Top      string `json:"top,omitempty"`
	Err      string `json:"error,omitempty"`
}

// captureProfiles samples p's CPU for d into cpuPath, then takes a heap
// profile into heapPath, in the background; the load must outlast d.
func captureProfiles(ctx context.Context, p *proc, d time.Duration, cpuPath, heapPath string) <-chan error {
	done := make(chan error, 1)
	go func() {
		secs := max(int(d.Seconds()), 1)
		err := fetchProfile(ctx, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", p.PprofURL, secs), cpuPath)
		if err == nil {
			err = fetchProfile(ctx, p.PprofURL+"/debug/pprof/heap", heapPath)
		}
		done <- err
	}()
	return done
}

func fetchProfile(ctx context.Context, url, path string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("pprof %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// topFunctions is `go tool pprof -top` of a profile: the n functions with
// the most CPU (or in-use memory) of their own, then the n with the most
// cumulative.
func topFunctions(ctx context.Context, dir, bin, path, kind string, n int) (string, error) {
	var b strings.Builder
	for _, order := range []string{"-flat", "-cum"} {
		args := []string{"tool", "pprof", "-top", order, fmt.Sprintf("-nodecount=%d", n)}
		if kind == "heap" {
			args = append(args, "-sample_index=inuse_space")
		}
		cmd := exec.CommandContext(ctx, "go", append(args, bin, path)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("go tool pprof: %w\n%s", err, out)
		}
		b.Write(out)
	}
	return b.String(), nil
}
