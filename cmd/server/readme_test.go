package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The README's shell recipes are run as a newcomer runs them, against the
// built server. A recipe is a ```sh block after a marker comment
// <!-- readme-test: KIND -->:
//
//	demo-serve    the command that starts the demo (given a free --addr here)
//	demo          recipes pasted in a second shell while the demo runs
//	byhand-setup  admin commands building a database by hand
//	byhand-serve  the command serving it (its 127.0.0.1:8090 becomes a free address)
//	byhand-calls  calls to that server, in the shell of byhand-setup
//
// In a recipe, a comment line holding a JSON object is output the commands
// before it must print.

// readmeRecipe matches a marked shell block of the README.
var readmeRecipe = regexp.MustCompile("(?s)<!-- readme-test: ([a-z-]+) -->\n```sh\n(.*?)```")

// byHandAddr is the address the README's by-hand server listens on.
const byHandAddr = "127.0.0.1:8090"

// mustReadmeRecipes returns the README's recipes by kind, failing when a
// kind is missing: a recipe the test cannot find is a recipe nobody runs.
func mustReadmeRecipes(t *testing.T) map[string][]string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	recipes := map[string][]string{}
	for _, m := range readmeRecipe.FindAllStringSubmatch(string(readme), -1) {
		recipes[m[1]] = append(recipes[m[1]], m[2])
	}
	for kind, want := range map[string]int{"demo-serve": 1, "demo": 2, "byhand-setup": 1, "byhand-serve": 1, "byhand-calls": 1} {
		if len(recipes[kind]) < want {
			t.Fatalf("README has %d %q recipes, want at least %d", len(recipes[kind]), kind, want)
		}
	}
	return recipes
}

// goRunArgs returns the arguments of a one-line `go run ./cmd/server …`.
func goRunArgs(t *testing.T, recipe string) []string {
	t.Helper()
	args, ok := strings.CutPrefix(strings.TrimSpace(recipe), "go run ./cmd/server")
	if !ok || strings.Contains(args, "\n") {
		t.Fatalf("recipe %q: want one line `go run ./cmd/server …`", recipe)
	}
	return strings.Fields(args)
}

// readmeProc is the built server started from a recipe, in a directory.
type readmeProc struct {
	stdout, stderr *procLog
}

// mustStartIn starts the built server with args in dir, waits until addr
// accepts connections, and stops it (SIGTERM) when the test ends.
func mustStartIn(t *testing.T, dir, addr string, args ...string) *readmeProc {
	t.Helper()
	p := &readmeProc{stdout: &procLog{}, stderr: &procLog{}}
	cmd := exec.Command(mustServerBinary(t), args...)
	cmd.Dir, cmd.Env = dir, hermeticEnv()
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("server %s did not stop within 15s of SIGTERM", strings.Join(args, " "))
		}
		if t.Failed() {
			t.Logf("server %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), p.stdout.tail(8<<10), p.stderr.tail(8<<10))
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-exited:
			t.Fatalf("server %s exited:\n%s", strings.Join(args, " "), p.stderr.tail(8<<10))
		default:
		}
		if conn, err := net.DialTimeout("tcp", addr, 250*time.Millisecond); err == nil {
			conn.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s did not listen on %s within a minute", strings.Join(args, " "), addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mustRunRecipe runs a recipe with sh in dir, where `go run ./cmd/server`
// is the built server and curl fails on an HTTP error, and checks the
// output the recipe's comments announce. It returns the standard output.
func mustRunRecipe(t *testing.T, dir, recipe string) string {
	t.Helper()
	fail := "--fail-with-body"
	if exec.Command("curl", fail, "--version").Run() != nil {
		fail = "--fail" // curl before 7.76
	}
	prelude := `set -eu
go() {
	if [ "$#" -ge 2 ] && [ "$1" = run ] && [ "$2" = ./cmd/server ]; then
		shift 2
		"$TK_TEST_SERVER" "$@"
		return
	fi
	echo "not go run ./cmd/server: go $*" >&2
	return 1
}
curl() { command curl ` + fail + ` --max-time 30 "$@"; }
`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", prelude+recipe)
	cmd.Dir = dir
	cmd.Env = append(hermeticEnv(), "TK_TEST_SERVER="+mustServerBinary(t))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("recipe failed (%v):\n%s\nstdout:\n%s\nstderr:\n%s", err, recipe, stdout.String(), stderr.String())
	}
	for _, line := range strings.Split(recipe, "\n") {
		if want, ok := strings.CutPrefix(strings.TrimSpace(line), "# {"); ok && !strings.Contains(stdout.String(), "{"+want) {
			t.Errorf("recipe:\n%s\nprinted:\n%s\nwant %s", recipe, stdout.String(), "{"+want)
		}
	}
	return stdout.String()
}

// TestREADMERecipes runs the README's recipes, after the demo and by hand,
// and the curl calls the demo prints.
func TestREADMERecipes(t *testing.T) {
	for _, tool := range []string{"sh", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's recipes need %s: %v", tool, err)
		}
	}
	recipes := mustReadmeRecipes(t)

	t.Run("Demo", func(t *testing.T) {
		dir, addr := t.TempDir(), freeAddr(t)
		demo := mustStartIn(t, dir, addr, append(goRunArgs(t, recipes["demo-serve"][0]), "--addr", addr)...)
		// The env file follows the first listen.
		deadline := time.Now().Add(30 * time.Second)
		for {
			env, _ := readDemoEnv(filepath.Join(dir, defaultDemoEnv))
			if env["TK_URL"] == "http://"+addr {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s with TK_URL http://%s after 30s: %v", defaultDemoEnv, addr, env)
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, recipe := range recipes["demo"] {
			mustRunRecipe(t, dir, recipe)
		}
		t.Run("PrintedCalls", func(t *testing.T) {
			_, calls, ok := strings.Cut(demo.stdout.tail(64<<10), "\nTry:\n")
			if !ok || !strings.Contains(calls, "curl") {
				t.Fatalf("the demo printed no calls:\n%s", demo.stdout.tail(64<<10))
			}
			mustRunRecipe(t, dir, calls)
		})
	})

	t.Run("ByHand", func(t *testing.T) {
		dir, addr := t.TempDir(), freeAddr(t)
		serve := goRunArgs(t, strings.ReplaceAll(recipes["byhand-serve"][0], byHandAddr, addr))
		if !strings.Contains(strings.Join(serve, " "), "--database-url sqlite:./byhand.db") {
			t.Fatalf("the by-hand server %q does not use a database of its own", serve)
		}
		mustStartIn(t, dir, addr, serve...)
		script := recipes["byhand-setup"][0] + strings.ReplaceAll(recipes["byhand-calls"][0], byHandAddr, addr)
		if out := mustRunRecipe(t, dir, script); !strings.Contains(out, `"email":"ann@acme.test"`) {
			t.Fatalf("GET /api/auth/me with ann's key printed:\n%s", out)
		}
	})

	t.Run("ByHandAfterDemo", func(t *testing.T) {
		// In the directory where the demo ran, the by-hand recipes still
		// work: they use a database of their own.
		dir := t.TempDir()
		mustCLI(t, "sqlite:"+filepath.Join(dir, "tenantkit.db"), "seed", "--demo", "--demo-env", filepath.Join(dir, defaultDemoEnv))
		mustRunRecipe(t, dir, recipes["byhand-setup"][0])
	})
}
