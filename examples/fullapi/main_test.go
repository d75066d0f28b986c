package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// syncBuffer is what the command prints, read while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var (
	listening = regexp.MustCompile(`API on (http://\S+) `)
	apiKey    = regexp.MustCompile(`\(shown once\): (tk_\S+)`)
)

// mustRun runs the command with args until the test ends and returns what
// it printed once it listens.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("fullapi: %v", err)
		}
	})
	deadline := time.Now().Add(time.Minute)
	for strings.Count(out.String(), "\n") < 2 { // where it listens, then the key
		select {
		case err := <-done:
			done <- nil
			t.Fatalf("fullapi %v ended: %v\n%s", args, err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("fullapi printed no address within a minute: %q", out.String())
		}
	}
	return out.String()
}

// call sends a GET with an optional API key and returns the status and body.
func call(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestFullAPI runs the command on SQLite (its default: ./fullapi.db) and
// on Postgres: it prints where it listens and a key, serves the API and its
// metrics, and seeds only once.
func TestFullAPI(t *testing.T) {
	for name, dbArgs := range map[string]func(t *testing.T) []string{
		"sqlite": func(t *testing.T) []string {
			t.Chdir(t.TempDir())
			return nil
		},
		"postgres": func(t *testing.T) []string { return []string{"-db", dbtest.PostgresURL(t)} },
	} {
		t.Run(name, func(t *testing.T) {
			args := dbArgs(t)
			t.Run("First", func(t *testing.T) {
				out := mustRun(t, args...)
				url := listening.FindStringSubmatch(out)[1]
				key := apiKey.FindStringSubmatch(out)
				if key == nil {
					t.Fatalf("no API key printed:\n%s", out)
				}
				if args == nil && !strings.Contains(out, "(SQLite fullapi.db)") {
					t.Errorf("default database: %s", out)
				}
				status, body := call(t, url+"/api/auth/me", key[1])
				var me struct {
					Email          string `json:"email"`
					ActiveTenantID string `json:"active_tenant_id"`
				}
				if err := json.Unmarshal([]byte(body), &me); err != nil || status != 200 || me.Email != "host@example.com" || me.ActiveTenantID == "" {
					t.Fatalf("GET /api/auth/me = %d %s", status, body)
				}
				status, body = call(t, url+"/metrics", "")
				if status != 200 || !strings.Contains(body, `tenantkit_http_requests_total{method="GET",route="GET /api/auth/me",status="200"} 1`) {
					t.Fatalf("GET /metrics = %d %s", status, body)
				}
			})
			t.Run("Again", func(t *testing.T) {
				out := mustRun(t, args...)
				if apiKey.MatchString(out) || !strings.Contains(out, "seeded on an earlier start") {
					t.Fatalf("second start printed:\n%s", out)
				}
			})
		})
	}
}
