package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// mustOwnerKey creates the tenant slug on the growth plan with an owner
// and returns the owner's API key, pinned to it, for webhook endpoints.
func mustOwnerKey(t *testing.T, dbURL, slug string) string {
	t.Helper()
	owner := "owner@" + slug + ".test"
	mustCLIJSON(t, dbURL, "tenant", "create", "--slug", slug, "--name", slug, "--plan", "growth")
	mustCLIJSON(t, dbURL, "user", "create", "--email", owner, "--name", "Owner")
	mustCLIJSON(t, dbURL, "member", "add", "--tenant", slug, "--email", owner, "--role", "owner")
	key, _ := mustCLIJSON(t, dbURL, "apikey", "create", "--email", owner, "--scopes", "collections:read", "--tenant", slug)["key"].(string)
	if key == "" {
		t.Fatal("apikey create printed no key")
	}
	return key
}

// namesField reports whether a problem answer has an error on field.
func namesField(res apiResult, field string) bool {
	errs, _ := res.Body["errors"].([]any)
	for _, e := range errs {
		if m, _ := e.(map[string]any); m["field"] == field {
			return true
		}
	}
	return false
}

// TestWebhookEndpointSSRF: a server with no allow list refuses, with a 422
// on url, endpoint URLs that reach any address that is not public, in
// every form: literal IPv4 and IPv6, IPv4-mapped and -compatible IPv6,
// and a name (localhost) resolving to loopback; on create and on update.
func TestWebhookEndpointSSRF(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		t.Setenv("TENANTKIT_WEBHOOK_ALLOW_HOSTS", "") // whatever the developer's shell says
		srv := mustServe(t, dbURL, "--webhook-workers", "0")
		key := mustOwnerKey(t, dbURL, "acme")
		for _, url := range []string{
			"https://127.0.0.1/hook",
			"https://127.9.9.9:8443/hook",
			"https://[::1]/hook",
			"https://localhost/hook",
			"https://localhost:8443/hook",
			"http://127.0.0.1/hook",
			"https://0.0.0.0/hook",
			"https://[::]/hook",
			"https://10.0.0.1/hook",
			"https://172.16.5.4/hook",
			"https://192.168.1.1/hook",
			"https://[fc00::1]/hook",
			"https://[fd12:3456::1]/hook",
			"https://169.254.1.1/hook",
			"https://[fe80::1]/hook",
			"https://169.254.169.254/latest/meta-data/",
			"https://[fd00:ec2::254]/latest/meta-data/",
			"https://100.100.100.200/latest/meta-data/",
			"https://100.64.0.1/hook",
			"https://[::ffff:127.0.0.1]/hook",
			"https://[::ffff:10.0.0.1]/hook",
			"https://[::ffff:169.254.169.254]/hook",
			"https://[::127.0.0.1]/hook",
			"https://[64:ff9b::a00:1]/hook",
		} {
			res := mustCallAPI(t, "POST", srv.URL()+"/api/webhook-endpoints", bearer(key), `{"url":"`+url+`"}`)
			if res.Status != http.StatusUnprocessableEntity || !namesField(res, "url") {
				t.Errorf("create %s: %d %v, want 422 on url", url, res.Status, res.Body)
			}
		}
		res := mustCallAPI(t, "GET", srv.URL()+"/api/webhook-endpoints", bearer(key), "")
		if res.Status != http.StatusOK || len(items(res)) != 0 {
			t.Fatalf("endpoints after the refusals: %d %v, want none", res.Status, res.Body)
		}
		// A public address is taken, then refused as the update's target.
		res = mustCallAPI(t, "POST", srv.URL()+"/api/webhook-endpoints", bearer(key), `{"url":"https://93.184.216.34/hook"}`)
		if res.Status != http.StatusCreated {
			t.Fatalf("create a public endpoint: %d %v", res.Status, res.Body)
		}
		id := res.Body["id"].(string)
		res = mustCallAPI(t, "PATCH", srv.URL()+"/api/webhook-endpoints/"+id, bearer(key), `{"url":"https://169.254.169.254/"}`)
		if res.Status != http.StatusUnprocessableEntity || !namesField(res, "url") {
			t.Errorf("update to the metadata address: %d %v, want 422 on url", res.Status, res.Body)
		}
	})
}

// TestWebhookBlockedAtDelivery: an endpoint registered on a server that
// allowed its loopback host is attempted by a server without that allow
// list: the attempt fails as blocked, is recorded, and no request
// reaches the receiver.
func TestWebhookBlockedAtDelivery(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		t.Setenv("TENANTKIT_WEBHOOK_ALLOW_HOSTS", "")
		var hits atomic.Int64
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
		defer receiver.Close()
		allowed := mustServe(t, dbURL, "--webhook-workers", "0", "--webhook-allow-hosts", "127.0.0.1")
		key := mustOwnerKey(t, dbURL, "acme")
		res := mustCallAPI(t, "POST", allowed.URL()+"/api/webhook-endpoints", bearer(key),
			`{"url":"`+receiver.URL+`/hook","event_types":["module.toggled"]}`)
		if res.Status != http.StatusCreated {
			t.Fatalf("create on the allowing server: %d %v", res.Status, res.Body)
		}
		epID := res.Body["id"].(string)

		strict := mustServe(t, dbURL, "--webhook-workers", "2")
		res = mustCallAPI(t, "POST", strict.URL()+"/api/webhook-endpoints/"+epID+"/test", bearer(key), "")
		if res.Status != http.StatusAccepted {
			t.Fatalf("test delivery: %d %v", res.Status, res.Body)
		}
		deadline := time.Now().Add(30 * time.Second)
		var attempt map[string]any
		for attempt == nil {
			res = mustCallAPI(t, "GET", strict.URL()+"/api/webhook-endpoints/"+epID+"/deliveries", bearer(key), "")
			if ds := items(res); len(ds) == 1 {
				if as, _ := ds[0]["attempts"].([]any); len(as) > 0 {
					attempt, _ = as[0].(map[string]any)
				}
			}
			if attempt == nil && time.Now().After(deadline) {
				t.Fatalf("no attempt recorded after 30s: %v", res.Body)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if resp, _ := attempt["response"].(string); attempt["status"] != "failed" || attempt["http_status"] != float64(0) || !strings.HasPrefix(resp, "blocked") {
			t.Errorf("attempt %v, want failed, http_status 0, response blocked: …", attempt)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the receiver got %d requests, want none", n)
		}
	})
}

// TestWebhookDeliveriesAcrossTenants: a tenant naming another tenant's
// delivery under its own endpoint gets a 404, and lists none of it.
// (httpapi's TestWebhookEndpointsOverHTTP checks every route with the
// other tenant's endpoint id.)
func TestWebhookDeliveriesAcrossTenants(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		srv := mustServe(t, dbURL, "--webhook-workers", "0")
		acme, initech := mustOwnerKey(t, dbURL, "acme"), mustOwnerKey(t, dbURL, "initech")
		endpoint := func(key string) (string, string) {
			t.Helper()
			res := mustCallAPI(t, "POST", srv.URL()+"/api/webhook-endpoints", bearer(key), `{"url":"https://93.184.216.34/hook"}`)
			if res.Status != http.StatusCreated {
				t.Fatalf("create: %d %v", res.Status, res.Body)
			}
			id := res.Body["id"].(string)
			res = mustCallAPI(t, "POST", srv.URL()+"/api/webhook-endpoints/"+id+"/test", bearer(key), "")
			if res.Status != http.StatusAccepted {
				t.Fatalf("test: %d %v", res.Status, res.Body)
			}
			return id, res.Body["id"].(string)
		}
		_, acmeDelivery := endpoint(acme)
		initechEP, _ := endpoint(initech)
		for _, path := range []string{
			"/api/webhook-endpoints/" + initechEP + "/deliveries/" + acmeDelivery + "/retry",
			"/api/webhook-endpoints/deliveries/" + acmeDelivery + "/retry",
		} {
			if res := mustCallAPI(t, "POST", srv.URL()+path, bearer(initech), ""); res.Status != http.StatusNotFound {
				t.Errorf("POST %s as initech: %d %v, want 404", path, res.Status, res.Body)
			}
		}
		res := mustCallAPI(t, "GET", srv.URL()+"/api/webhook-endpoints/"+initechEP+"/deliveries", bearer(initech), "")
		for _, d := range items(res) {
			if d["id"] == acmeDelivery {
				t.Errorf("initech's deliveries list acme's %s", acmeDelivery)
			}
		}
	})
}
