package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// mustServeLogging starts the real server as mustServe does, its log
// (debug level, JSON) written to logOut, and returns it with a stop that
// shuts it down once (also when the test ends), so that the log is
// complete when stop returns.
func mustServeLogging(t *testing.T, dbURL string, logOut io.Writer, args ...string) (*server, func()) {
	t.Helper()
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	if err := serveFlags(fs, &cfg); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--addr", "127.0.0.1:0", "--database-url", dbURL, "--log-level", "debug", "--log-format", "json"}, args...)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	s, err := startServer(context.Background(), cfg, logOut)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := s.shutdown(ctx); err != nil {
				t.Errorf("shutdown: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return s, stop
}

// secretForms are the ways a whsec_ secret could leak into a log: whole,
// its base64 body, and its key re-encoded (URL-safe base64, hex).
func secretForms(t *testing.T, secret string) []string {
	t.Helper()
	body, ok := strings.CutPrefix(secret, "whsec_")
	if !ok || body == "" {
		t.Fatalf("secret %q is not whsec_…", secret)
	}
	key, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		t.Fatalf("secret %q: %v", secret, err)
	}
	return []string{secret, body, base64.RawURLEncoding.EncodeToString(key), base64.RawStdEncoding.EncodeToString(key), hex.EncodeToString(key)}
}

// TestWebhookSecretsNeverLogged runs the server at debug level with its
// log captured while a tenant creates an endpoint, rotates its secret,
// sends a test event and changes a module, and the queue delivers both
// (the first attempt of each answered 500, so failures and retries are
// logged too); an invalid update and the rotation of an unknown endpoint
// add error answers. Neither the old nor the new secret,
// in any form, may appear anywhere in the log, which must hold the
// requests made (so the capture is real).
func TestWebhookSecretsNeverLogged(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		var mu sync.Mutex
		seen := map[string]int{}
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			mu.Lock()
			id := r.Header.Get("webhook-id")
			seen[id]++
			first := seen[id] == 1
			mu.Unlock()
			if first {
				http.Error(w, "not yet", http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		defer receiver.Close()

		logs := &procLog{}
		srv, stop := mustServeLogging(t, dbURL, logs,
			"--webhook-allow-hosts", "127.0.0.1", "--webhook-workers", "2", "--webhook-retry-base", "50ms")
		key := mustOwnerKey(t, dbURL, "acme")
		api := srv.URL() + "/api/webhook-endpoints"

		res := mustCallAPI(t, "POST", api, bearer(key), `{"url":"`+receiver.URL+`/hook","event_types":["module.toggled"]}`)
		old, _ := res.Body["secret"].(string)
		if res.Status != http.StatusCreated || old == "" {
			t.Fatalf("create: %d %v, want 201 with the secret", res.Status, res.Body)
		}
		epID := res.Body["id"].(string)
		res = mustCallAPI(t, "POST", api+"/"+epID+"/rotate-secret", bearer(key), "")
		rotated, _ := res.Body["secret"].(string)
		if res.Status != http.StatusOK || rotated == "" || rotated == old {
			t.Fatalf("rotate: %d %v, want 200 with a new secret", res.Status, res.Body)
		}
		if res = mustCallAPI(t, "POST", api+"/"+epID+"/test", bearer(key), ""); res.Status != http.StatusAccepted {
			t.Fatalf("test: %d %v", res.Status, res.Body)
		}
		mustToggle(t, srv.URL(), key, false)
		if res = mustCallAPI(t, "PATCH", api+"/"+epID, bearer(key), `{"url":"ftp://hooks.example.com/"}`); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("invalid update: %d %v, want 422", res.Status, res.Body)
		}
		if res = mustCallAPI(t, "POST", api+"/wep_00000000000000000000000000/rotate-secret", bearer(key), ""); res.Status != http.StatusNotFound {
			t.Fatalf("rotate an unknown endpoint: %d %v, want 404", res.Status, res.Body)
		}

		deadline := time.Now().Add(20 * time.Second)
		for {
			res = mustCallAPI(t, "GET", api+"/"+epID+"/deliveries", bearer(key), "")
			ds, done := items(res), 0
			for _, d := range ds {
				if d["status"] == "succeeded" {
					done++
				}
			}
			if len(ds) == 2 && done == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("deliveries after 20s: %v, want two succeeded", res.Body)
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop()

		log := logs.tail(maxProcLog)
		for _, want := range []string{`"route":"POST /api/webhook-endpoints"`, "rotate-secret", "/test", `"status":422`, "tenantkit serving"} {
			if !strings.Contains(log, want) {
				t.Fatalf("the captured log lacks %q; the capture is not the server's log:\n%s", want, log)
			}
		}
		for _, secret := range []string{old, rotated} {
			for _, form := range secretForms(t, secret) {
				if i := strings.Index(log, form); i >= 0 {
					t.Fatalf("the log shows a secret (%q) at byte %d: …%s…", form, i, log[max(i-200, 0):min(i+len(form)+50, len(log))])
				}
			}
		}
	})
}
