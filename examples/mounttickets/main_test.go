package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

func TestMountedTickets(t *testing.T) {
	ctx := context.Background()
	sqldb, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "host.db")+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	app, svc, err := hostApp(ctx, db, sessions{"s1": "ann@host.example"})
	if err != nil {
		t.Fatal(err)
	}
	if err := seed(ctx, svc, "ann@host.example"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	defer srv.Close()

	call := func(method, path, body string, cookie bool) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if cookie {
			req.AddCookie(&http.Cookie{Name: "host_session", Value: "s1"})
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	status, body := call("POST", "/support/api/tickets", `{"subject":"VPN down","description":"Since 9am."}`, true)
	if status != http.StatusCreated {
		t.Fatalf("create ticket through the host: %d %s", status, body)
	}
	var ticket struct {
		Requester struct{ Email string } `json:"requester"`
	}
	_ = json.Unmarshal([]byte(body), &ticket)
	if ticket.Requester.Email != "ann@host.example" {
		t.Fatalf("requester = %q, want the host's session user", ticket.Requester.Email)
	}
	if status, body := call("GET", "/support/api/tickets", "", true); status != 200 || !strings.Contains(body, "VPN down") {
		t.Fatalf("list: %d %s", status, body)
	}
	if status, _ := call("GET", "/support/api/tickets", "", false); status != http.StatusUnauthorized {
		t.Fatalf("without the host session: %d, want 401", status)
	}
	// Only the support group is mounted.
	if status, _ := call("GET", "/support/api/auth/me", "", true); status != http.StatusNotFound {
		t.Fatalf("auth group: %d, want 404", status)
	}
	if status, body := call("GET", "/", "", false); status != 200 || body != "host home\n" {
		t.Fatalf("host page: %d %q", status, body)
	}
}

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

// curlLine is the call the command prints.
var curlLine = regexp.MustCompile(`curl -s -b host_session=demo (http://\S+)`)

// TestCommand runs the command as its doc comment says, on the address and
// database its flags give, twice on the same database, and makes the call
// it prints.
func TestCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "host.db")
	for _, start := range []string{"First", "Again"} {
		t.Run(start, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			out := &syncBuffer{}
			done := make(chan error, 1)
			go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-db", file}, out) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("mounttickets: %v", err)
				}
			}()
			deadline := time.Now().Add(time.Minute)
			for !curlLine.MatchString(out.String()) {
				select {
				case err := <-done:
					done <- nil
					t.Fatalf("mounttickets ended: %v\n%s", err, out.String())
				case <-time.After(20 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("mounttickets printed no call within a minute: %q", out.String())
				}
			}
			req, _ := http.NewRequest("GET", curlLine.FindStringSubmatch(out.String())[1], nil)
			req.AddCookie(&http.Cookie{Name: "host_session", Value: "demo"})
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("the printed call: %d, want 200", resp.StatusCode)
			}
		})
	}
}
