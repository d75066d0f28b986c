package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer a server goroutine writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// demoRun is `server --demo` running in the test's process.
type demoRun struct {
	stdout *lockedBuffer
	url    string
}

// mustRunDemo runs `server [args…] --demo` until the test ends, waits until
// it has printed its walk-through, and returns it with the URL it printed.
func mustRunDemo(t *testing.T, args ...string) demoRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	args = append([]string{"--demo", "--log-level", "warn"}, args...)
	go func() { done <- run(ctx, args, out, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server --demo: %v", err)
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if _, rest, ok := strings.Cut(out.String(), "tenantkit demo is ready at "); ok {
			url, _, _ := strings.Cut(rest, " ")
			url, _, _ = strings.Cut(url, "\n")
			return demoRun{stdout: out, url: url}
		}
		select {
		case err := <-done:
			done <- nil
			t.Fatalf("server %s ended before it was ready: %v\n%s", strings.Join(args, " "), err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server --demo was not ready within a minute:\n%s", out.String())
		}
	}
}

// mustCount counts the rows of a table.
func mustCount(t *testing.T, dbURL, table string) int {
	t.Helper()
	ctx := context.Background()
	a, err := openApp(ctx, config{DatabaseURL: dbURL, LogLevel: "warn", LogFormat: "json"}, io.Discard, false)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	n, err := a.db.NewSelect().Table(table).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// mustReadEnv reads the demo's env file.
func mustReadEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	env, err := readDemoEnv(path)
	if err != nil {
		t.Fatalf("the demo's env file: %v", err)
	}
	return env
}

// demoEnvNames are the variables the README's recipes use.
var demoEnvNames = []string{"TK_URL", "TK_ALICE", "TK_BOB", "TK_DAVE", "TK_CAROL", "TENANT_ACME", "TENANT_GLOBEX", "INVOICE_ID", "TENANTKIT_WEBHOOK_SECRET"}

// mustPayDemoInvoice signs a payment of the demo invoice with the env
// file's secret, as the README does, and posts it to the server.
func mustPayDemoInvoice(t *testing.T, env map[string]string, eventID string) map[string]any {
	t.Helper()
	event := fmt.Sprintf(`{"id":%q,"type":"payment.succeeded","created_at":"2026-11-21T10:00:00Z","data":{"payment_id":"pay_1","invoice_id":%q,"amount":1999,"currency":"USD","failure_reason":null}}`,
		eventID, env["INVOICE_ID"])
	var headers map[string]string
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"webhook", "sign", "--secret", env["TENANTKIT_WEBHOOK_SECRET"], "--file", writeFile(t, event), "--json"}, &stdout, &stderr); err != nil {
		t.Fatalf("webhook sign: %v %s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &headers); err != nil {
		t.Fatal(err)
	}
	status, ack := post(t, env["TK_URL"]+"/api/webhooks/payment-provider", headers, event)
	if status != http.StatusOK {
		t.Fatalf("payment webhook signed with the env file's secret: %d %v", status, ack)
	}
	return ack
}

// TestDemoTwice: the demo seeds once and writes its keys, ids and webhook
// secret to an env file; run again it creates nothing, and the env file
// (and the keys it shows) stay valid; without the file it says how to
// start over.
func TestDemoTwice(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		envFile := filepath.Join(t.TempDir(), "demo.env")
		args := []string{"--addr", "127.0.0.1:0", "--database-url", dbURL, "--demo-env", envFile}

		var env map[string]string
		t.Run("First", func(t *testing.T) {
			d := mustRunDemo(t, args...)
			env = mustReadEnv(t, envFile)
			for _, name := range demoEnvNames {
				if env[name] == "" {
					t.Errorf("env file lacks %s:\n%v", name, env)
				}
			}
			if env["TK_URL"] != d.url || !strings.Contains(d.stdout.String(), env["TK_ALICE"]) {
				t.Fatalf("env file %v does not match the walk-through:\n%s", env, d.stdout.String())
			}
			if fi, err := os.Stat(envFile); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("env file mode: %v %v, want 0600 (it holds secrets)", fi.Mode(), err)
			}
			status, inv := get(t, env["TK_URL"]+"/api/v1/collections/invoices/"+env["INVOICE_ID"], env["TK_BOB"])
			if status != 200 || inv["status"] != "open" || inv["total"] != 1999.0 || inv["currency"] != "USD" {
				t.Fatalf("demo invoice: %d %v", status, inv)
			}
			if ack := mustPayDemoInvoice(t, env, "evt_demo_1"); ack["outcome"] != "applied" {
				t.Fatalf("payment: %v", ack)
			}
			// A one-time portal sign-in link for each demo user; alice's
			// signs her in, to choose between her two tenants.
			links := map[string]string{}
			for _, m := range regexp.MustCompile(`(\S+@\S+)\s+(\S+/portal/login\?token=\S+)`).FindAllStringSubmatch(d.stdout.String(), -1) {
				links[m[1]] = m[2]
			}
			if len(links) != 4 || links["alice@acme.test"] == "" {
				t.Fatalf("sign-in links printed: %v\n%s", links, d.stdout.String())
			}
			jar, _ := cookiejar.New(nil)
			if status, page := signInWith(t, &http.Client{Jar: jar}, d.url, links["alice@acme.test"]); status != http.StatusOK || !strings.Contains(page, "<h1>Choose a tenant</h1>") {
				t.Fatalf("alice's sign-in link: %d\n%s", status, page)
			}
		})
		counts := map[string]int{}
		for _, table := range []string{"tenants", "users", "memberships", "api_keys", "invoices"} {
			counts[table] = mustCount(t, dbURL, table)
		}

		t.Run("Again", func(t *testing.T) {
			d := mustRunDemo(t, args...)
			again := mustReadEnv(t, envFile)
			if again["TK_URL"] != d.url {
				t.Errorf("TK_URL = %s, want the new server's %s", again["TK_URL"], d.url)
			}
			delete(again, "TK_URL")
			want := maps.Clone(env)
			delete(want, "TK_URL")
			if !maps.Equal(again, want) {
				t.Fatalf("second run changed the env file:\n%v\nwant\n%v", again, want)
			}
			out := d.stdout.String()
			if !strings.Contains(out, "nothing new was created") || !strings.Contains(out, env["TK_ALICE"]) || !strings.Contains(out, "To start over") {
				t.Fatalf("second run printed:\n%s", out)
			}
			if status, me := get(t, d.url+"/api/auth/me", env["TK_ALICE"]); status != 200 || me["email"] != "alice@acme.test" {
				t.Fatalf("alice's key after the second run: %d %v", status, me)
			}
			env["TK_URL"] = d.url
			// The second server verifies with the same secret.
			if ack := mustPayDemoInvoice(t, env, "evt_demo_1"); ack["duplicate"] != true {
				t.Fatalf("redelivery to the second run: %v", ack)
			}
		})
		for table, n := range counts {
			if got := mustCount(t, dbURL, table); got != n {
				t.Errorf("%s: %d rows after the second run, %d after the first", table, got, n)
			}
		}

		t.Run("WithoutTheEnvFile", func(t *testing.T) {
			if err := os.Remove(envFile); err != nil {
				t.Fatal(err)
			}
			var seed demoSeed
			if err := json.Unmarshal(mustCLI(t, dbURL, "seed", "--demo", "--json", "--demo-env", envFile), &seed); err != nil {
				t.Fatal(err)
			}
			if !seed.AlreadySeeded || len(seed.APIKeys) != 0 || seed.EnvFile != "" || seed.Tenants[0].ID != env["TENANT_ACME"] {
				t.Fatalf("seed --demo without the env file = %+v", seed)
			}
			if _, err := os.Stat(envFile); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("seed --demo wrote an env file without keys: %v", err)
			}
			out := string(mustCLI(t, dbURL, "seed", "--demo", "--demo-env", envFile))
			if !strings.Contains(out, "shown once") || !strings.Contains(out, "start over") {
				t.Fatalf("seed --demo without the env file printed:\n%s", out)
			}
			if got := mustCount(t, dbURL, "api_keys"); got != counts["api_keys"] {
				t.Fatalf("api_keys: %d, want %d", got, counts["api_keys"])
			}
		})
	})
}

// TestDemoRefusesForeignData: a database whose tenant acme the demo did not
// create is left alone.
func TestDemoRefusesForeignData(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tk.db")
	mustCLIJSON(t, url, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "growth")
	code, stdout, stderr := cliRun(t, "seed", "--demo", "--json", "--log-level", "warn", "--database-url", url,
		"--demo-env", filepath.Join(t.TempDir(), "demo.env"))
	if code != 1 || stdout != "" || !strings.Contains(stderr, `"code":"conflict"`) || !strings.Contains(stderr, "empty database") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDemoAddress: the demo, whose keys may do everything, listens on the
// loopback interface unless --addr or TENANTKIT_ADDR says otherwise.
func TestDemoAddress(t *testing.T) {
	tests := []struct {
		name, env string
		args      []string
		want      string // the address, or its host when the port is :0
	}{
		{"Default", "", nil, demoAddr},
		{"Flag", "", []string{"--addr", "127.0.0.1:0"}, "127.0.0.1"},
		{"Environment", "127.0.0.1:0", nil, "127.0.0.1"},
		{"FlagOverEnvironment", "0.0.0.0:1", []string{"--addr", "127.0.0.1:0"}, "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TENANTKIT_ADDR", tt.env)
			if tt.env == "" {
				os.Unsetenv("TENANTKIT_ADDR") // restored by t.Setenv
			}
			dir := t.TempDir()
			args := append([]string{"--demo", "--log-level", "warn", "--database-url", "sqlite:" + filepath.Join(dir, "tk.db"),
				"--demo-env", filepath.Join(dir, "demo.env")}, tt.args...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- run(ctx, args, io.Discard, io.Discard) }()
			deadline := time.After(time.Minute)
			for {
				select {
				case err := <-done:
					// Only a busy port may stop the default: it names the address tried.
					if tt.want != demoAddr || err == nil || !strings.Contains(err.Error(), "listen on "+demoAddr) {
						t.Fatalf("server %s: %v", strings.Join(args, " "), err)
					}
					return
				case <-deadline:
					t.Fatal("the demo did not write its env file within a minute")
				case <-time.After(20 * time.Millisecond):
				}
				env, err := readDemoEnv(filepath.Join(dir, "demo.env"))
				if err != nil {
					continue
				}
				want := "http://" + tt.want
				if tt.want != demoAddr {
					want += ":"
				}
				if !strings.HasPrefix(env["TK_URL"], want) {
					t.Fatalf("demo listens at %s, want %s", env["TK_URL"], want)
				}
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				return
			}
		})
	}
}
