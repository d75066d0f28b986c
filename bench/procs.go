package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// binaries are the executables under test, built into a temporary
// directory so that each runs as its own process with its own RSS.
type binaries struct {
	Server, Baseline string
	// Profiling: the server was built with the bench's pprof overlay.
	Profiling bool
}

// build compiles cmd/server (in the library's tree) and bench/baseline
// (in the bench module) into dir. With profiling, the server gets the pprof
// overlay (see profile.go); cmd/server's files on disk are untouched.
func build(ctx context.Context, src sources, dir string, profiling bool) (binaries, error) {
	b := binaries{Server: filepath.Join(dir, "server"), Baseline: filepath.Join(dir, "baseline"), Profiling: profiling}
	serverArgs := []string{"build", "-o", b.Server}
	if profiling {
		overlay, err := writeOverlay(src.Library, dir)
		if err != nil {
			return b, err
		}
		serverArgs = append(serverArgs, "-overlay", overlay)
	}
	for _, step := range []struct {
		dir  string
		args []string
	}{
		{src.Library, append(serverArgs, "./cmd/server")},
		{src.Bench, []string{"build", "-o", b.Baseline, "./baseline"}},
	} {
		cmd := exec.CommandContext(ctx, "go", step.args...)
		cmd.Dir = step.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("go %s (in %s): %w\n%s", strings.Join(step.args, " "), step.dir, err, out)
		}
	}
	return b, nil
}

// sources are the two module directories the bench works in.
type sources struct {
	// Bench is the bench module's directory (bench/): the baseline is
	// built here and results are kept under its results/.
	Bench string
	// Library is the directory tenantkit resolves to from the bench
	// module: the working tree above bench/, through go.mod's replace.
	Library string
}

// findSources asks the go command where the bench module and the library
// it builds against are. It fails outside the bench module.
func findSources(ctx context.Context) (sources, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}",
		"github.com/tenantkit/tenantkit/bench", "github.com/tenantkit/tenantkit")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return sources{}, fmt.Errorf("run the bench from its own module (cd bench && go run .): go list -m: %w\n%s", err, stderr.String())
	}
	dirs := strings.Fields(string(out))
	if len(dirs) != 2 {
		return sources{}, fmt.Errorf("go list -m: want the bench and library directories, got %q", out)
	}
	return sources{Bench: dirs[0], Library: dirs[1]}, nil
}

// childEnv is the environment of a child: the harness's without any
// TENANTKIT_* variable, so that only the flags the bench passes apply,
// plus a secret key for outbound webhook secrets (without one, `serve`
// would create a key file in the working directory).
func childEnv(extra ...string) []string {
	env := []string{"TENANTKIT_SECRET_KEY=" + benchSecretKey}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TENANTKIT_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// benchSecretKey is the servers' secret key: base64 of 32 bytes.
const benchSecretKey = "YmVuY2gtYmVuY2gtYmVuY2gtYmVuY2gtYmVuY2gtYmU="

// runCLI runs the server binary's admin CLI and returns its stdout.
func runCLI(ctx context.Context, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = childEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("server %s: %w\n%s", args[0], err, tail(stderr.String(), 2000))
	}
	return out, nil
}

// proc is a running server.
type proc struct {
	Name     string
	App      string // application_name of its database connections
	URL      string // http://127.0.0.1:port
	PprofURL string // when built for profiling
	LogPath  string
	cmd      *exec.Cmd
	done     chan struct{}
	waitErr  error
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startProc starts bin with args (which must make it listen on port),
// logging to logPath.
func startProc(name, bin string, port int, args []string, env []string, logPath string) (*proc, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{Name: name, URL: fmt.Sprintf("http://127.0.0.1:%d", port), LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// waitReady polls GET path until it answers 200, the process exits or
// timeout passes. It returns the time from start of the poll.
func (p *proc) waitReady(ctx context.Context, path string, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path, nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready (%v); log:\n%s", p.Name, p.waitErr, p.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s; log:\n%s", p.Name, timeout, p.logTail())
		}
	}
}

// stop sends SIGTERM and waits for the process to drain and exit; past
// 15 s it kills it.
func (p *proc) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// memory reads the process's resident set size now (VmRSS) and at its
// peak (VmHWM), in bytes.
func (p *proc) memory() (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", key, err)
		}
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	return rss, hwm, sc.Err()
}

// sampleRSS records p's highest VmRSS every 50 ms until stop is closed.
func (p *proc) sampleRSS(stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if rss, _, err := p.memory(); err == nil {
				peak = max(peak, rss)
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

func (p *proc) logTail() string {
	b, _ := os.ReadFile(p.LogPath)
	return tail(string(b), 3000)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
