package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// databases runs fn against an empty SQLite and an empty Postgres database.
func databases(t *testing.T, fn func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, dbtest.SQLiteURL(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, dbtest.PostgresURL(t)) })
}

// mustCLI runs one admin command and returns its standard output.
func mustCLI(t *testing.T, dbURL string, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append(args, "--database-url", dbURL, "--log-level", "warn")
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("server %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// mustCLIJSON runs an admin command with --json and decodes its output.
func mustCLIJSON(t *testing.T, dbURL string, args ...string) map[string]any {
	t.Helper()
	var out map[string]any
	b := mustCLI(t, dbURL, append(args, "--json")...)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return out
}

// mustServe starts the real server on a free port, as `server serve` would
// with args, and stops it when the test ends.
func mustServe(t *testing.T, dbURL string, args ...string) *server {
	t.Helper()
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	if err := serveFlags(fs, &cfg); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--addr", "127.0.0.1:0", "--database-url", dbURL, "--log-level", "warn"}, args...)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	s, err := startServer(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s
}

func get(t *testing.T, url, key string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	checkOpenAPI(t, req, resp, raw)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	return resp.StatusCode, body
}

// openAPIRouter routes requests to the operations of the API's OpenAPI
// document, parsed (and validated) once.
var openAPIRouter = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(httpapi.OpenAPIDocument())
	if err != nil {
		return nil, err
	}
	doc.Servers = nil // route on the path, whatever the server's address
	return legacy.NewRouter(doc)
})

// checkOpenAPI fails the test when the real server's response departs
// from the OpenAPI document: an undocumented status, a missing header,
// the wrong content type or a body that breaks its schema. (httpapi's
// tests also validate the requests; here the server is the subject.)
func checkOpenAPI(t *testing.T, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	router, err := openAPIRouter()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		// No operation: the API's 404 problem (the route table serves
		// every path of the document).
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: no operation in openapi.json, yet %d %s", req.Method, req.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	err = openapi3filter.ValidateResponse(req.Context(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                opts,
	})
	if err == nil {
		err = checkProblemCode(route.Operation.Responses.Status(resp.StatusCode), body)
	}
	if err != nil {
		t.Errorf("%s %s → %d does not match httpapi/openapi.json: %v", req.Method, req.URL.Path, resp.StatusCode, err)
	}
}

// checkProblemCode checks that a problem's code is one its response lists
// in x-problem-codes: the error responses share one Problem schema, so the
// schema alone allows any code.
func checkProblemCode(ref *openapi3.ResponseRef, body []byte) error {
	if ref == nil || ref.Value == nil || ref.Value.Content.Get("application/problem+json") == nil {
		return nil
	}
	var p struct{ Code string }
	if err := json.Unmarshal(body, &p); err != nil {
		return err
	}
	codes, _ := ref.Value.Extensions["x-problem-codes"].([]any)
	if !slices.Contains(codes, any(p.Code)) {
		return fmt.Errorf("problem code %q is not among the response's x-problem-codes %v", p.Code, codes)
	}
	return nil
}

func TestEndToEnd(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		if got := mustCLIJSON(t, dbURL, "migrate"); got["applied"] == nil {
			t.Fatalf("migrate --json = %v", got)
		}
		ten := mustCLIJSON(t, dbURL, "tenant", "create", "--slug", "acme", "--name", "Acme Corp", "--plan", "growth")
		if ten["slug"] != "acme" || ten["plan_id"] != "growth" || !strings.HasPrefix(ten["id"].(string), "ten_") {
			t.Fatalf("tenant create --json = %v", ten)
		}
		usr := mustCLIJSON(t, dbURL, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
		if usr["email"] != "ann@acme.test" || !strings.HasPrefix(usr["id"].(string), "usr_") {
			t.Fatalf("user create --json = %v", usr)
		}
		mustCLIJSON(t, dbURL, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
		key := mustCLIJSON(t, dbURL, "apikey", "create", "--email", "ann@acme.test", "--scopes", "collections:read,tickets:read")
		secret, _ := key["key"].(string)
		if !strings.HasPrefix(secret, "tk_") || len(key["scopes"].([]any)) != 2 || key["tenant_id"] != nil {
			t.Fatalf("apikey create --json = %v", key)
		}

		s := mustServe(t, dbURL)
		status, me := get(t, s.URL()+"/api/auth/me", secret)
		if status != 200 || me["email"] != "ann@acme.test" || me["active_tenant_id"] != ten["id"] {
			t.Fatalf("GET /api/auth/me = %d %v", status, me)
		}
		status, matrix := get(t, s.URL()+"/api/tenant/access-matrix", secret)
		if status != 200 || matrix["role"] != "owner" {
			t.Fatalf("GET /api/tenant/access-matrix = %d %v", status, matrix)
		}
		if status, _ := get(t, s.URL()+"/api/health/ready", ""); status != 200 {
			t.Fatalf("ready = %d", status)
		}
		if status, _ := get(t, s.URL()+"/api/nope", ""); status != 404 {
			t.Fatalf("unknown path = %d", status)
		}
		del, _ := http.NewRequest("DELETE", s.URL()+"/api/tickets", nil)
		resp405, err := http.DefaultClient.Do(del)
		if err != nil {
			t.Fatal(err)
		}
		resp405.Body.Close()
		if resp405.StatusCode != 405 || resp405.Header.Get("Allow") != "GET, POST" {
			t.Fatalf("DELETE /api/tickets = %d Allow %q, want 405 Allow \"GET, POST\"", resp405.StatusCode, resp405.Header.Get("Allow"))
		}
		resp, err := http.Get(s.URL() + "/metrics")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("metrics: %v %v", err, resp)
		}
		metrics, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, want := range []string{
			`tenantkit_http_requests_total{method="GET",route="GET /api/auth/me",status="200"} 1`,
			`tenantkit_http_request_duration_seconds_bucket{method="GET",route="GET /api/tenant/access-matrix"`,
			`route="unmatched",status="404"`,
			"go_goroutines", "go_sql_open_connections",
		} {
			if !strings.Contains(string(metrics), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}

		lim := mustCLIJSON(t, dbURL, "limit", "set", "--tenant", "acme", "--feature", "support.tickets", "--limit", "7")
		if lim["limit"] != 7.0 || lim["tenant_id"] != ten["id"] {
			t.Fatalf("limit set --json = %v", lim)
		}
		status, ent := get(t, s.URL()+"/api/tenant/entitlements/limit?feature=support.tickets", secret)
		if status != 200 || ent["limit"] != 7.0 || ent["usage"] != 0.0 || ent["remaining"] != 7.0 {
			t.Fatalf("entitlement after limit set = %d %v", status, ent)
		}
		mustCLIJSON(t, dbURL, "limit", "set", "--tenant", "acme", "--feature", "support.tickets", "--limit", "unlimited")
		if _, ent := get(t, s.URL()+"/api/tenant/entitlements/limit?feature=support.tickets", secret); ent["limit"] != nil {
			t.Fatalf("unlimited: %v", ent)
		}

		mustCLIJSON(t, dbURL, "apikey", "revoke", key["id"].(string))
		if status, _ := get(t, s.URL()+"/api/auth/me", secret); status != 401 {
			t.Fatalf("revoked key: status %d, want 401", status)
		}
	})
}

func TestSeedDemo(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		envFile := filepath.Join(t.TempDir(), "demo.env")
		var seed demoSeed
		if err := json.Unmarshal(mustCLI(t, dbURL, "seed", "--demo", "--json", "--demo-env", envFile), &seed); err != nil {
			t.Fatal(err)
		}
		if len(seed.Tenants) != 2 || len(seed.Users) < 3 || len(seed.APIKeys) < 3 || !strings.HasPrefix(seed.WebhookSecret, "whsec_") {
			t.Fatalf("seed = %+v", seed)
		}
		// acme-test is a test tenant, on its own clock.
		if seed.TestTenant.Slug != "acme-test" {
			t.Fatalf("seed test tenant = %+v, want acme-test", seed.TestTenant)
		}
		if tenants := mustCLIJSON(t, dbURL, "tenant", "list", "--query", "acme-test")["data"].([]any); len(tenants) != 1 || tenants[0].(map[string]any)["test"] != true {
			t.Fatalf("tenant list --query acme-test = %v, want one test tenant", tenants)
		}
		s := mustServe(t, dbURL)
		// alice belongs to both tenants: she must choose one.
		status, me := get(t, s.URL()+"/api/auth/me", seed.APIKeys[0].Key)
		if status != 200 || len(me["tenants"].([]any)) != 2 || me["active_tenant_id"] != nil {
			t.Fatalf("alice me = %d %v", status, me)
		}
		// Seeding twice creates nothing and shows the same keys.
		var again demoSeed
		if err := json.Unmarshal(mustCLI(t, dbURL, "seed", "--demo", "--json", "--demo-env", envFile), &again); err != nil {
			t.Fatal(err)
		}
		if !again.AlreadySeeded || again.Tenants[0].ID != seed.Tenants[0].ID || again.APIKeys[0].Key != seed.APIKeys[0].Key ||
			again.WebhookSecret != seed.WebhookSecret || again.InvoiceID != seed.InvoiceID || again.TestTenant != seed.TestTenant {
			t.Fatalf("second seed = %+v, want the first's data %+v", again, seed)
		}
	})
}

func TestServeShutsDownOnSignal(t *testing.T) {
	// Reserve a free port, so the test knows where the server listens.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--database-url", dbtest.SQLiteURL(t), "--log-level", "warn"}, io.Discard, io.Discard)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/health/live")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
}
