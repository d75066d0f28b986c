package main

// Helpers for the tests that run the server as separate OS processes, the
// way operators do: several replicas on one database (replica_test.go),
// and a server killed and restarted under load (fault_test.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binDirPrefix names the directories serverBinary builds into, under the
// system's temporary directory, followed by the test binary's pid.
const binDirPrefix = "tenantkit-server-test-"

// serverBinary builds this package (the server) once per test binary, with
// the race detector when the tests have it, and returns the executable's
// path. The build goes to a directory named for this process, and
// directories left behind by test binaries that have exited are removed
// first: a test binary has no hook that runs after its last test.
var serverBinary = sync.OnceValues(func() (string, error) {
	sweepStaleBinaries()
	dir := filepath.Join(os.TempDir(), binDirPrefix+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "server")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	// go test runs in the package's directory.
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin, nil
})

// sweepStaleBinaries removes the build directories of test binaries that
// are no longer running.
func sweepStaleBinaries() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), binDirPrefix+"*"))
	for _, dir := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), binDirPrefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			_ = os.RemoveAll(dir)
		}
	}
}

// mustServerBinary returns the path of the server built by serverBinary.
func mustServerBinary(tb testing.TB) string {
	tb.Helper()
	bin, err := serverBinary()
	if err != nil {
		tb.Fatalf("build the server: %v", err)
	}
	return bin
}

// hermeticEnv is the test's environment without TENANTKIT_* variables, so
// that a developer's own configuration cannot steer the processes a test
// starts: everything they need is on their command line. A race-enabled
// child exits without the race runtime's default 1 s pause, which would
// otherwise be paid by every CLI call. The one TENANTKIT_ variable it sets
// is a secret key, so that no server a test starts leaves a key file in
// the package's folder.
func hermeticEnv() []string {
	env := []string{"GORACE=atexit_sleep_ms=0 " + os.Getenv("GORACE"), "TENANTKIT_SECRET_KEY=" + testSecretKey}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TENANTKIT_") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	return env
}

// mustExecCLI runs one admin command of the built server against dbURL
// with --json and decodes what it prints.
func mustExecCLI(tb testing.TB, dbURL string, args ...string) map[string]any {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append(args, "--database-url", dbURL, "--log-level", "warn", "--json")
	cmd := exec.CommandContext(ctx, mustServerBinary(tb), args...)
	cmd.Env = hermeticEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("server %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		tb.Fatalf("server %s printed %q: %v", strings.Join(args, " "), stdout.String(), err)
	}
	return out
}

// mustCreateKey creates an API key for email with the comma-separated
// scopes, pinned to tenant unless it is "", and returns the key.
func mustCreateKey(tb testing.TB, dbURL, email, scopes, tenant string) string {
	tb.Helper()
	args := []string{"apikey", "create", "--email", email, "--scopes", scopes}
	if tenant != "" {
		args = append(args, "--tenant", tenant)
	}
	key, _ := mustExecCLI(tb, dbURL, args...)["key"].(string)
	if !strings.HasPrefix(key, "tk_") {
		tb.Fatalf("apikey create printed no key")
	}
	return key
}

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serverProc is the server running as a child process: `server serve` on
// a fixed address, so that it can be killed and started again where its
// clients expect it.
type serverProc struct {
	bin, addr string
	args      []string
	log       *procLog // stderr of every run

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when the current run has ended
}

// mustStartServerProc starts `server serve --addr addr args…`, waits until
// it accepts connections, and stops it (SIGTERM) when the test ends, failing
// the test if the race detector reported anything.
func mustStartServerProc(tb testing.TB, addr string, args ...string) *serverProc {
	tb.Helper()
	p := launchServerProc(tb, addr, args...)
	p.mustWaitServing(tb)
	return p
}

// launchServerProc starts the process without waiting for it to serve,
// so that several can start together; see mustWaitServing.
func launchServerProc(tb testing.TB, addr string, args ...string) *serverProc {
	tb.Helper()
	p := &serverProc{bin: mustServerBinary(tb), addr: addr, args: args, log: &procLog{}}
	p.mustLaunch(tb)
	tb.Cleanup(func() {
		p.stop(tb)
		if p.log.raced() {
			tb.Errorf("server %s: the race detector reported a data race:\n%s", addr, p.log.tail(64<<10))
		} else if tb.Failed() {
			tb.Logf("server %s log (tail):\n%s", addr, p.log.tail(8<<10))
		}
	})
	return p
}

// URL is the base URL the process answers on.
func (p *serverProc) URL() string { return "http://" + p.addr }

// mustLaunch starts a new run of the process.
func (p *serverProc) mustLaunch(tb testing.TB) {
	tb.Helper()
	args := append([]string{"serve", "--addr", p.addr, "--log-level", "warn"}, p.args...)
	cmd := exec.Command(p.bin, args...)
	cmd.Env = hermeticEnv()
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start server: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p.mu.Lock()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()
}

// current returns the current run.
func (p *serverProc) current() (*exec.Cmd, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd, p.exited
}

// mustWaitServing waits until the process accepts connections: it listens
// only once it has opened and migrated the database. A TCP connect, rather
// than an HTTP request, keeps the probe out of the per-IP rate limit.
func (p *serverProc) mustWaitServing(tb testing.TB) {
	tb.Helper()
	_, exited := p.current()
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-exited:
			tb.Fatalf("server %s exited before serving:\n%s", p.addr, p.log.tail(8<<10))
		default:
		}
		conn, err := net.DialTimeout("tcp", p.addr, 250*time.Millisecond)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("server %s did not listen within a minute:\n%s", p.addr, p.log.tail(8<<10))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pid is the process id of the current run.
func (p *serverProc) pid() int {
	cmd, _ := p.current()
	return cmd.Process.Pid
}

// alive reports whether the current run is still going.
func (p *serverProc) alive() bool {
	_, exited := p.current()
	select {
	case <-exited:
		return false
	default:
		return true
	}
}

// mustKill ends the current run with SIGKILL, as a crash would: nothing
// is drained, no transaction is finished.
func (p *serverProc) mustKill(tb testing.TB) {
	tb.Helper()
	cmd, exited := p.current()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatalf("kill -9 server: %v", err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		tb.Fatal("server did not die from SIGKILL within 10s")
	}
}

// stop ends the current run gracefully (SIGTERM), or with SIGKILL when it
// has not drained within 15 s.
func (p *serverProc) stop(tb testing.TB) {
	cmd, exited := p.current()
	select {
	case <-exited:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			tb.Errorf("server %s exited with status %d after SIGTERM", p.addr, code)
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		tb.Errorf("server %s did not stop within 15s of SIGTERM", p.addr)
	}
}

// procLog collects a child's output: the last few MiB of it, and whether
// the race detector spoke anywhere in it.
type procLog struct {
	mu   sync.Mutex
	buf  []byte
	race bool
}

// maxProcLog bounds what a procLog keeps.
const maxProcLog = 4 << 20

func (l *procLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if bytes.Contains(b, []byte("WARNING: DATA RACE")) {
		l.race = true
	}
	l.buf = append(l.buf, b...)
	if len(l.buf) > maxProcLog {
		l.buf = append([]byte(nil), l.buf[len(l.buf)-maxProcLog/2:]...)
	}
	return len(b), nil
}

// raced reports whether the race detector reported a race.
func (l *procLog) raced() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.race
}

// tail returns the last n bytes of the log.
func (l *procLog) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf[max(len(l.buf)-n, 0):])
}

// apiResult is one answer of the API.
type apiResult struct {
	Status int
	Header http.Header
	// Body is the JSON object answered, or nil.
	Body map[string]any
}

// callAPI sends one request to the API and decodes its JSON answer; it
// fails only when no answer came (connection refused or reset, timeout).
func callAPI(ctx context.Context, method, url string, header map[string]string, body string) (apiResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return apiResult{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return apiResult{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return apiResult{}, err
	}
	res := apiResult{Status: resp.StatusCode, Header: resp.Header}
	_ = json.Unmarshal(raw, &res.Body)
	return res, nil
}

// mustCallAPI is callAPI failing the test when no answer came.
func mustCallAPI(tb testing.TB, method, url string, header map[string]string, body string) apiResult {
	tb.Helper()
	res, err := callAPI(context.Background(), method, url, header, body)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	return res
}

// bearer is the header that presents an API key, plus extra pairs
// (name, value, name, value…).
func bearer(key string, extra ...string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + key}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}
