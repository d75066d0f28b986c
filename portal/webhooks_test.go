package portal_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// receiver is a webhook receiver on 127.0.0.1 that answers 200 "ok" and
// keeps what it got.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []http.Header
	body [][]byte
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got, rc.body = append(rc.got, r.Header.Clone()), append(rc.body, b)
		rc.mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// last returns the headers and body of the last request.
func (rc *receiver) last() (http.Header, []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.got) == 0 {
		return nil, nil
	}
	return rc.got[len(rc.got)-1], rc.body[len(rc.body)-1]
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

// webhookApp is the App as a server with a secret key (when configured)
// that lets webhooks reach 127.0.0.1 builds it.
func webhookApp(t *testing.T, db *bun.DB, configured bool) *tenantkit.App {
	t.Helper()
	opts := []tenantkit.Option{tenantkit.WithWebhookAllow("127.0.0.1")}
	if configured {
		opts = append(opts, tenantkit.WithSecretKey([]byte(strings.Repeat("k", 32))))
	}
	app, err := tenantkit.New(db, defaultCatalog(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return app
}

var (
	endpointLinkRE = regexp.MustCompile(`/portal/webhooks/(wep_[0-9A-Za-z]+)`)
	secretRE       = regexp.MustCompile(`<code id="secret" class="secret">(whsec_[^<]+)</code>`)
	deliveryRowRE  = regexp.MustCompile(`<tr id="(whd_[0-9A-Za-z]+)">`)
)

// postRaw posts form and returns the response, its body read.
func (c *client) postRaw(path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.hc.PostForm(c.abs(path), form)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func mustContain(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, body)
		}
	}
}

func mustNotContain(t *testing.T, what, body string, nots ...string) {
	t.Helper()
	for _, n := range nots {
		if strings.Contains(body, n) {
			t.Errorf("%s has %q:\n%s", what, n, body)
		}
	}
}

func TestPortalWebhooks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		app := webhookApp(t, db, true)
		e := newEnv(t, db, app)
		ctx := context.Background()
		rc := newReceiver(t)
		hook := rc.srv.URL + "/hook"
		alice := e.signIn(t, "alice@acme.test")

		// Create: the answer to the POST shows the secret, once.
		resp, body := alice.postRaw("/portal/webhooks", url.Values{"csrf_token": {alice.csrf()}, "url": {hook},
			"description": {"Billing sync"}, "event_types": {"ticket.created", "invoice.created"}})
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create: status %d\n%s", resp.StatusCode, body)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("the secret's page has Cache-Control %q, want no-store", cc)
		}
		m := secretRE.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("create: no secret shown:\n%s", body)
		}
		secret := m[1]
		mustContain(t, "secret page", body, "Copy it now: it will not be shown again.", `<h1>Endpoint created</h1>`)
		eid := endpointLinkRE.FindStringSubmatch(body)[1]
		ep, err := app.Outbound.Endpoint(ctx, e.acme.ID, eid)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(ep.EventTypes, ",") != "invoice.created,ticket.created" || ep.URL != hook || ep.Description != "Billing sync" {
			t.Fatalf("created endpoint %+v", ep)
		}
		detail := "/portal/webhooks/" + eid

		t.Run("NavAndListForManagers", func(t *testing.T) {
			list := alice.get("/portal/webhooks", http.StatusOK)
			mustContain(t, "list", list, `href="/portal/webhooks" aria-current="page">Webhooks<`, `id="new-endpoint"`,
				`<a href="`+detail+`">`+hook+`</a>`, "Billing sync", "invoice.created, ticket.created", ">enabled<")
			page := alice.get(detail, http.StatusOK)
			mustContain(t, "detail", page, `<h1>Webhook endpoint</h1>`, hook, `id="send-test"`, `id="rotate-secret"`,
				`id="delete"`, "No deliveries yet.", `value="invoice.created" checked`, `<label for="url">URL</label>`)
			mustNotContain(t, "detail", page, secret, "whsec_")
			mustNotContain(t, "list", list, "whsec_")
		})

		t.Run("HiddenAndRefusedForOtherRoles", func(t *testing.T) {
			dave := e.signIn(t, "dave@acme.test")
			mustNotContain(t, "support's dashboard", dave.get("/portal/", http.StatusOK), `href="/portal/webhooks"`)
			dave.get("/portal/webhooks", http.StatusForbidden)
			dave.get("/portal/webhooks/new", http.StatusForbidden)
			dave.get(detail, http.StatusForbidden)
			dave.post("/portal/webhooks", url.Values{"csrf_token": {dave.csrf()}, "url": {hook}}, http.StatusForbidden)
			dave.post(detail+"/test", url.Values{"csrf_token": {dave.csrf()}}, http.StatusForbidden)
		})

		t.Run("FieldErrorsBesideInputs", func(t *testing.T) {
			for _, tc := range []struct {
				name       string
				form       url.Values
				errID, msg string
			}{
				{"PrivateAddress", url.Values{"url": {"https://10.1.2.3/hook"}}, "err-url", "not a public address"},
				{"PlainHTTP", url.Values{"url": {"http://example.com/hook"}}, "err-url", "must use https"},
				{"NoURL", url.Values{"url": {""}}, "err-url", "URL "},
				{"LongDescription", url.Values{"url": {hook}, "description": {strings.Repeat("d", 501)}}, "err-description", "Description "},
				{"UnknownType", url.Values{"url": {hook}, "event_types": {"no.such"}}, "err-event_types", "unknown event type"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					tc.form.Set("csrf_token", alice.csrf())
					body := alice.post("/portal/webhooks", tc.form, http.StatusUnprocessableEntity)
					mustContain(t, "refused form", body, `id="`+tc.errID+`">`, tc.msg, `aria-invalid="true"`,
						`value="`+tc.form.Get("url")+`"`, "Please correct the fields marked below.")
					mustNotContain(t, "refused form", body, "whsec_")
				})
			}
			body := alice.post(detail, url.Values{"csrf_token": {alice.csrf()}, "url": {"https://192.168.1.1/x"}, "enabled": {"true"}},
				http.StatusUnprocessableEntity)
			mustContain(t, "refused edit", body, `id="err-url">URL `, "not a public address", `value="https://192.168.1.1/x"`)
		})

		t.Run("OtherTenantsEndpointIsNotFound", func(t *testing.T) {
			carol := e.signIn(t, "carol@globex.test")
			tok := carol.csrf()
			for _, p := range []string{detail, detail + "/delete", "/portal/webhooks/wep_nonsense", "/portal/webhooks/inv_1"} {
				carol.get(p, http.StatusNotFound)
			}
			for _, p := range []string{detail, detail + "/test", detail + "/rotate-secret", detail + "/delete",
				detail + "/deliveries/whd_0000000000000000000000000/retry"} {
				body := carol.post(p, url.Values{"csrf_token": {tok}, "url": {hook}}, http.StatusNotFound)
				mustNotContain(t, "404 page", body, hook)
			}
			other, _, err := app.Outbound.CreateEndpoint(ctx, e.globx.ID, outbound.CreateEndpointInput{URL: hook + "/globex"})
			if err != nil {
				t.Fatal(err)
			}
			mustNotContain(t, "acme's list", alice.get("/portal/webhooks", http.StatusOK), other.ID, "/globex")
			alice.get("/portal/webhooks/"+other.ID, http.StatusNotFound)
			if _, err := app.Outbound.Endpoint(ctx, e.acme.ID, eid); err != nil {
				t.Fatalf("carol's posts changed acme's endpoint: %v", err)
			}
		})

		t.Run("EveryPostNeedsCSRF", func(t *testing.T) {
			d, err := app.Outbound.SendTest(ctx, e.acme.ID, eid)
			if err != nil {
				t.Fatal(err)
			}
			carolTok := e.signIn(t, "carol@globex.test").csrf()
			for _, p := range []string{"/portal/webhooks", detail, detail + "/test", detail + "/rotate-secret",
				detail + "/delete", detail + "/deliveries/" + d.ID + "/retry"} {
				body := alice.post(p, url.Values{"url": {hook}}, http.StatusForbidden)
				mustContain(t, "POST "+p+" without token", body, "missing CSRF token")
				alice.post(p, url.Values{"url": {hook}, "csrf_token": {carolTok}}, http.StatusForbidden)
			}
			if _, err := app.Outbound.Endpoint(ctx, e.acme.ID, eid); err != nil {
				t.Fatalf("the endpoint is gone after posts without a token: %v", err)
			}
		})

		t.Run("TestDeliveryAttemptsAndRetry", func(t *testing.T) {
			body := alice.post(detail+"/test", url.Values{"csrf_token": {alice.csrf()}}, http.StatusOK)
			mustContain(t, "after test", body, "A test event is on its way", ">webhook.test<br>", ">pending<")
			ds, _, err := app.Outbound.Deliveries(ctx, e.acme.ID, eid, 1, "")
			if err != nil || len(ds) != 1 {
				t.Fatalf("deliveries %v, %v", ds, err)
			}
			// Pending: a retry makes its attempt due now.
			body = alice.get(detail, http.StatusOK)
			mustContain(t, "pending row", body, `id="retry-`+ds[0].ID+`"`)
			body = alice.post(detail+"/deliveries/"+ds[0].ID+"/retry", url.Values{"csrf_token": {alice.csrf()}}, http.StatusOK)
			mustContain(t, "after retry", body, "The delivery&#39;s next attempt is due now.")
			before := rc.count()
			if out, err := app.Outbound.Attempt(ctx, ds[0].ID); err != nil || !out.Done {
				t.Fatalf("attempt: %+v, %v", out, err)
			}
			if rc.count() != before+1 {
				t.Fatalf("the receiver got %d requests, want %d", rc.count(), before+1)
			}
			body = alice.get(detail, http.StatusOK)
			row := body[strings.Index(body, `<tr id="`+ds[0].ID+`">`):]
			row = row[:strings.Index(row, "</tr>")]
			mustContain(t, "succeeded row", row, ">succeeded<", `data-label="Last HTTP code">200</td>`, " ms</td>",
				`<summary>#1 succeeded · HTTP 200</summary>`, `<pre class="response">ok</pre>`)
			if strings.Contains(row, `id="retry-`+ds[0].ID+`"`) {
				t.Error("a succeeded delivery has a retry button")
			}
			// Succeeded: a retry is refused with the service's reason.
			body = alice.post(detail+"/deliveries/"+ds[0].ID+"/retry", url.Values{"csrf_token": {alice.csrf()}}, http.StatusConflict)
			mustContain(t, "retry of a succeeded delivery", body, `id="form-error">the delivery has succeeded`)
			if rc.count() != before+1 {
				t.Fatalf("the receiver got %d requests, want %d (a refused retry sends nothing)", rc.count(), before+1)
			}
		})

		t.Run("EditDisablesAndTestIsRefused", func(t *testing.T) {
			body := alice.post(detail, url.Values{"csrf_token": {alice.csrf()}, "url": {hook}, "description": {"changed"}},
				http.StatusOK)
			mustContain(t, "after edit", body, "The endpoint is saved.", ">disabled<", "(by you)", "All events")
			body = alice.post(detail+"/test", url.Values{"csrf_token": {alice.csrf()}}, http.StatusConflict)
			mustContain(t, "test of a disabled endpoint", body, "the endpoint is disabled; enable it first")
			body = alice.post(detail, url.Values{"csrf_token": {alice.csrf()}, "url": {hook}, "description": {"changed"},
				"enabled": {"true"}, "event_types": {"invoice.paid"}}, http.StatusOK)
			mustContain(t, "after enabling", body, ">enabled<", "<dd>invoice.paid</dd>")
		})

		t.Run("RotateShowsNewSecretOnce", func(t *testing.T) {
			resp, body := alice.postRaw(detail+"/rotate-secret", url.Values{"csrf_token": {alice.csrf()}})
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("rotate: status %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
			}
			m := secretRE.FindStringSubmatch(body)
			if m == nil || m[1] == secret {
				t.Fatalf("rotate: secret %v (first %s)\n%s", m, secret, body)
			}
			mustContain(t, "rotated page", body, "The secret is rotated.", "keeps signing beside it until", "it will not be shown again")
			page := alice.get(detail, http.StatusOK)
			mustContain(t, "detail after rotation", page, "rotated ")
			mustNotContain(t, "detail after rotation", page, m[1], secret)
		})

		t.Run("DeliveriesOlderPages", func(t *testing.T) {
			for range 21 {
				if _, err := app.Outbound.SendTest(ctx, e.acme.ID, eid); err != nil {
					t.Fatal(err)
				}
			}
			all, err := countDeliveries(ctx, app, e.acme.ID, eid)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			next, pages := detail, 0
			for next != "" && pages < 10 {
				body := alice.get(next, http.StatusOK)
				pages++
				for _, m := range deliveryRowRE.FindAllStringSubmatch(body, -1) {
					if seen[m[1]] {
						t.Fatalf("delivery %s on two pages", m[1])
					}
					seen[m[1]] = true
				}
				next = ""
				if i := strings.Index(body, `rel="next">Older<`); i >= 0 {
					start := strings.LastIndex(body[:i], `href="`) + len(`href="`)
					next = body[start : strings.Index(body[start:], `"`)+start]
				}
			}
			if len(seen) != all || pages != (all+19)/20 {
				t.Fatalf("%d deliveries on %d pages, want %d on %d", len(seen), pages, all, (all+19)/20)
			}
			alice.get(detail+"?before=nonsense", http.StatusBadRequest)
		})

		t.Run("EventsLinkToTheEndpoint", func(t *testing.T) {
			body := alice.get("/portal/events?type=webhook_endpoint.created", http.StatusOK)
			mustContain(t, "events", body, `<a href="`+detail+`">Webhook endpoint http`)
		})

		t.Run("DeleteAfterConfirming", func(t *testing.T) {
			body := alice.get(detail+"/delete", http.StatusOK)
			mustContain(t, "confirm page", body, `<h1>Delete webhook endpoint</h1>`, `id="confirm-delete"`, hook,
				`action="`+detail+`/delete"`)
			if _, err := app.Outbound.Endpoint(ctx, e.acme.ID, eid); err != nil {
				t.Fatalf("the confirm page deleted the endpoint: %v", err)
			}
			body = alice.post(detail+"/delete", url.Values{"csrf_token": {alice.csrf()}}, http.StatusOK)
			mustContain(t, "list after delete", body, "The endpoint is deleted.", "No endpoints yet.")
			alice.get(detail, http.StatusNotFound)
		})
	}, tenantkit.Schema()...)
}

// countDeliveries counts every delivery to the endpoint.
func countDeliveries(ctx context.Context, app *tenantkit.App, tenantID, endpointID string) (int, error) {
	n, before := 0, ""
	for {
		ds, more, err := app.Outbound.Deliveries(ctx, tenantID, endpointID, 100, before)
		if err != nil {
			return 0, err
		}
		n += len(ds)
		if !more || len(ds) == 0 {
			return n, nil
		}
		before = ds[len(ds)-1].ID
	}
}

func TestPortalWebhooksNotConfigured(t *testing.T) {
	db := dbtest.SQLite(t, tenantkit.Schema()...)
	e := newEnv(t, db, webhookApp(t, db, false))
	alice := e.signIn(t, "alice@acme.test")
	const msg = "Outbound webhooks are not configured on this server (no secret key)."
	body := alice.get("/portal/webhooks", http.StatusOK)
	mustContain(t, "list", body, msg)
	mustNotContain(t, "list", body, `id="new-endpoint"`)
	mustContain(t, "new page", alice.get("/portal/webhooks/new", http.StatusOK), msg)
	body = alice.post("/portal/webhooks", url.Values{"csrf_token": {alice.csrf()}, "url": {"https://example.com/hook"}},
		http.StatusNotImplemented)
	mustContain(t, "create", body, `id="form-error">`+msg)
}
