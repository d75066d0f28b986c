package httpapi_test

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// The fuzz targets below drive the whole API — routing, authentication,
// tenant resolution, handlers, services and a real database — with fuzzed
// paths, query strings, headers and bodies. Whatever comes in, the answer
// must not be a 5xx (the database is up, so none is excused) nor a panic,
// every error must be a problem document, and where the request reached
// an operation of openapi.json the exchange must match it. Seeds are in
// testdata/fuzz/<target>/; run one with
//
//	go test ./httpapi -run '^$' -fuzz '^FuzzHTTPPath$' -fuzztime 30s
//
// and .ci/fuzz runs them all briefly. Fuzzing runs on SQLite; the seeds
// alone (plain go test) also run on Postgres when
// TENANTKIT_TEST_DATABASE_URL names one.
//
// In fuzzed strings, placeholders stand for what a seed cannot know:
// {key} is a valid API key of alice (every scope), {acme} and {globex}
// her tenants' ids, {invoice}, {ticket} and {contract} ids of acme's
// resources.

// fuzzTarget is the API a fuzz target drives, on one database.
type fuzzTarget struct {
	name   string
	mux    http.Handler      // the API on net/http's ServeMux
	bun    http.Handler      // the API on bunrouter, as cmd/server composes it
	expand *strings.Replacer // the placeholders
}

// newFuzzTargets builds the APIs a fuzz target drives: SQLite, and
// Postgres too when the seeds run as plain tests with a server at hand.
func newFuzzTargets(f *testing.F) []*fuzzTarget {
	f.Helper()
	targets := []*fuzzTarget{newFuzzTarget(f, "sqlite", dbtest.SQLite(f, migrations()...))}
	if fl := flag.Lookup("test.fuzz"); (fl == nil || fl.Value.String() == "") && os.Getenv(dbtest.EnvDatabaseURL) != "" {
		targets = append(targets, newFuzzTarget(f, "postgres", dbtest.Postgres(f, migrations()...)))
	}
	return targets
}

func newFuzzTarget(f *testing.F, name string, db *bun.DB) *fuzzTarget {
	f.Helper()
	e := newEnv(f, db, func(c *httpapi.Config) {
		// Fuzzing sends thousands of requests a second: the limiter
		// must not turn them all into 429s.
		c.RateLimiter = httpapi.NewMemoryRateLimiter(1e9, 1<<30)
	})
	acme := map[string]string{"X-Tenant-ID": e.acme.ID}
	created := func(path, body string) string {
		r := e.do(f, request{method: "POST", path: path, bearer: e.keyAll, header: acme, body: body})
		if r.status != http.StatusCreated {
			f.Fatalf("POST %s: %d %s", path, r.status, r.body)
		}
		return r.json(f)["id"].(string)
	}
	invoice := created("/api/v1/collections/invoices", invoiceBody("USD", `{"description":"Plan","quantity":1,"unit_amount":100}`))
	ticket := created("/api/tickets", `{"subject":"s","description":"d"}`)
	contract := created("/api/contract-requests", `{"type":"change_seats","seats":3,"effective":"next_period"}`)
	return &fuzzTarget{name: name, mux: e.api.Handler(), bun: bunrouterHandler(e.api),
		expand: strings.NewReplacer("{key}", e.keyAll, "{acme}", e.acme.ID, "{globex}", e.globex.ID,
			"{invoice}", invoice, "{ticket}", ticket, "{contract}", contract)}
}

// docCheck checks an exchange against openapi.json: checkOpenAPI,
// checkOpenAPIAnswer, or nil not to (a fuzzed path is seldom an
// operation's).
type docCheck func(tb testing.TB, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte)

// do serves one fuzzed request on h and fails the input when the answer
// breaks the rules above. Placeholders in path, query, header values and
// body are expanded first.
func (ft *fuzzTarget) do(t *testing.T, h http.Handler, method, path, rawQuery string, header http.Header, body string, check docCheck) {
	t.Helper()
	path, rawQuery, body = ft.expand.Replace(path), ft.expand.Replace(rawQuery), ft.expand.Replace(body)
	for k, vs := range header {
		for i := range vs {
			vs[i] = ft.expand.Replace(vs[i])
		}
		header[k] = vs
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	r, w := serve(h, method, path, rawQuery, header, body)
	resp := w.Result()
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %q ?%q (headers %q, body %q) on %s = %d: %s", method, path, rawQuery, header, body, ft.name, resp.StatusCode, w.Body)
	}
	if resp.StatusCode >= 400 {
		var p httpapi.Problem
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Fatalf("%s %q on %s = %d with Content-Type %q, want a problem", method, path, ft.name, resp.StatusCode, ct)
		}
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != resp.StatusCode || p.Code == "" {
			t.Fatalf("%s %q on %s = %d with body %s, want a problem of that status", method, path, ft.name, resp.StatusCode, w.Body)
		}
	}
	if check != nil {
		check(t, r, []byte(body), resp, w.Body.Bytes())
	}
}

// validHeader is what every fuzzed request carries unless fuzzed itself:
// alice's key and her tenant acme.
func validHeader() http.Header {
	return http.Header{"Authorization": {"Bearer {key}"}, "X-Tenant-Id": {"{acme}"}}
}

// fuzzMethods are the methods FuzzHTTPPath picks from.
var fuzzMethods = []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodPut, http.MethodHead, http.MethodOptions}

// FuzzHTTPPath fuzzes the method, path and query string of requests that
// are otherwise valid, through both routers.
func FuzzHTTPPath(f *testing.F) {
	for _, s := range []struct {
		m           uint8
		path, query string
	}{
		{0, "/api/v1/collections/invoices/{invoice}", ""},
		{0, "/api/v1/collections/invoices", "status=open&limit=2&customer_email=ada@example.com"},
		{0, "/api/tickets/{ticket}", ""},
		{0, "/api/tickets", "status=open&priority=high&requester=me&cursor=djE6dGt0XzAx"},
		{0, "/api/contract-requests/{contract}", ""},
		{0, "/api/tenant/notifications", "unread=true"},
		{0, "/api/tenant/entitlements/limit", "feature=support.tickets"},
		{1, "/api/tickets", ""},
		{2, "/api/tenant/entitlements/toggle", ""},
		{3, "/api/tickets", ""},
	} {
		f.Add(s.m, s.path, s.query)
	}
	targets := newFuzzTargets(f)
	f.Fuzz(func(t *testing.T, m uint8, path, rawQuery string) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		body := ""
		header := validHeader()
		if method == http.MethodPost || method == http.MethodPatch || method == http.MethodPut {
			body = "{}"
			header.Set("Content-Type", "application/json")
		}
		for _, ft := range targets {
			for _, h := range []http.Handler{ft.mux, ft.bun} {
				ft.do(t, h, method, path, rawQuery, header.Clone(), body, nil)
			}
		}
	})
}

// fuzzRoutes are the requests FuzzHTTPHeaders sends, one per kind of
// endpoint: creates (idempotent), reads of lists and items, the tenant's
// own, and the public ones.
var fuzzRoutes = []struct{ method, path, body string }{
	{"POST", "/api/v1/collections/invoices", `{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":100}]}`},
	{"POST", "/api/tickets", `{"subject":"s","description":"d"}`},
	{"POST", "/api/contract-requests", `{"type":"change_seats","seats":3,"effective":"next_period"}`},
	{"POST", "/api/invoices/preview", `{}`},
	{"POST", "/api/tenant/select", `{"tenant_id":"{acme}"}`},
	{"PATCH", "/api/tenant/entitlements/toggle", `{"module":"support.sla","enabled":true}`},
	{"GET", "/api/v1/collections/invoices/{invoice}", ""},
	{"GET", "/api/tickets", ""},
	{"GET", "/api/contract-requests/{contract}", ""},
	{"GET", "/api/tenant/access-matrix", ""},
	{"GET", "/api/tenant/entitlements/limit", ""},
	{"GET", "/api/auth/me", ""},
	{"GET", "/api/csrf", ""},
	{"GET", "/api/catalog/public", ""},
}

// FuzzHTTPHeaders fuzzes the headers a client controls — X-Tenant-ID,
// Idempotency-Key, Authorization and Content-Type — on valid requests.
func FuzzHTTPHeaders(f *testing.F) {
	for i := range fuzzRoutes {
		f.Add(uint8(i), "{acme}", "", "Bearer {key}", "application/json")
	}
	f.Add(uint8(0), "{globex}", "retry-1", "Bearer {key}", "application/json; charset=utf-8")
	f.Add(uint8(1), "ten_\x00", "k\x00", "Bearer tk_\x00", "application/json\x00")
	f.Add(uint8(2), "ten_\xff", "\xff", "bearer \xff", "text/plain")
	f.Add(uint8(11), "", "", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x", "")
	targets := newFuzzTargets(f)
	f.Fuzz(func(t *testing.T, route uint8, tenant, idempotencyKey, authorization, contentType string) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		header := http.Header{}
		for name, v := range map[string]string{"X-Tenant-ID": tenant, "Idempotency-Key": idempotencyKey,
			"Authorization": authorization, "Content-Type": contentType} {
			if v != "" {
				header.Set(name, v)
			}
		}
		for _, ft := range targets {
			ft.do(t, ft.mux, rt.method, rt.path, "", header.Clone(), rt.body, checkOpenAPI)
		}
	})
}

// fuzzBody fuzzes the JSON body of one endpoint, sent with valid headers.
func fuzzBody(f *testing.F, method, path string, seeds ...string) {
	f.Helper()
	for _, s := range seeds {
		f.Add(s)
	}
	targets := newFuzzTargets(f)
	f.Fuzz(func(t *testing.T, body string) {
		for _, ft := range targets {
			header := validHeader()
			header.Set("Content-Type", "application/json")
			ft.do(t, ft.mux, method, path, "", header, body, checkOpenAPI)
		}
	})
}

func FuzzHTTPCreateInvoice(f *testing.F) {
	fuzzBody(f, "POST", "/api/v1/collections/invoices",
		`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","memo":"m","metadata":{"k":"v"},"due_date":"2030-01-31","status":"draft","line_items":[{"description":"Plan","quantity":2,"unit_amount":4900,"tax_rate_bps":825}]}`,
		`{"customer":{"name":"Ada\u0000","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"\ud800","quantity":1,"unit_amount":1}]}`,
		`{"customer":{"name":"A","email":"a@b.co"},"currency":"usd","line_items":[{"description":"x","quantity":1000000,"unit_amount":1000000000000}]}`)
}

func FuzzHTTPCreateTicket(f *testing.F) {
	fuzzBody(f, "POST", "/api/tickets",
		`{"subject":"Printer on fire","description":"Since Monday.","priority":"urgent","tags":["hardware","fire"]}`,
		`{"subject":"\u0000","description":"d","tags":["\udc00"]}`)
}

func FuzzHTTPUpdateTicket(f *testing.F) {
	fuzzBody(f, "PATCH", "/api/tickets/{ticket}",
		`{"status":"pending","priority":"urgent","tags":["Billing Issue","export"]}`,
		`{"status":null,"priority":"\u0000","tags":["\udc00",""]}`,
		`{"status":"closed"}`)
}

func FuzzHTTPCommentTicket(f *testing.F) {
	fuzzBody(f, "POST", "/api/tickets/{ticket}/comments",
		`{"body":"Here is the log:\n\tline 1"}`,
		`{"body":"\u0000\ud800"}`,
		`{"body":""}`)
}

func FuzzHTTPSubmitContractRequest(f *testing.F) {
	fuzzBody(f, "POST", "/api/contract-requests",
		`{"type":"change_plan","plan_id":"enterprise","effective":"next_period","note":"Growing"}`,
		`{"type":"add_module","module_id":"support.csat","effective":"immediately"}`,
		`{"type":"change_seats","seats":25,"effective":"immediately","note":"\u0000"}`)
}

func FuzzHTTPPreviewInvoice(f *testing.F) {
	fuzzBody(f, "POST", "/api/invoices/preview",
		``, `{}`,
		`{"plan_id":"enterprise","seats":12,"modules":["support.csat"],"effective":"immediately"}`,
		`{"plan_id":"\u0000","modules":["\ud800"]}`)
}

func FuzzHTTPSelectTenant(f *testing.F) {
	fuzzBody(f, "POST", "/api/tenant/select",
		`{"tenant_id":"{acme}"}`, `{"tenant_id":"{globex}"}`, `{"tenant_id":"ten_\u0000"}`, `{"tenant_id":"acme"}`)
}

// FuzzHTTPClaims fuzzes the claims of correctly signed tokens (the
// payload's JSON as it is, signed with the API's secret), presented as a
// bearer token to select a tenant, and as a session cookie and a bearer
// token to read the active tenant's access matrix: the claims are input,
// and the ones tenantkit reads (sub, sid, email, scope) reach queries.
func FuzzHTTPClaims(f *testing.F) {
	for via := range uint8(3) {
		f.Add(via, claimsJSON(nil))
		f.Add(via, claimsJSON(map[string]*string{"sid": raw(`"a\u0000b"`)}))
	}
	f.Add(uint8(0), claimsJSON(map[string]*string{"email": nil, "sub": raw("\"usr_\xff\"")}))
	f.Add(uint8(1), claimsJSON(map[string]*string{"sid": raw(`"\ud800"`), "scope": raw(`["tickets:read"]`)}))
	f.Add(uint8(2), claimsJSON(map[string]*string{"email": raw(`"alice@acme.test\u0000"`), "aud": raw(`7`)}))
	targets := newFuzzTargets(f)
	f.Fuzz(func(t *testing.T, via uint8, payload string) {
		for _, ft := range targets {
			token := signRaw(ft.expand.Replace(payload))
			header := http.Header{}
			method, path, body := "GET", "/api/tenant/access-matrix", ""
			switch via % 3 {
			case 0:
				method, body = "POST", `{"tenant_id":"{acme}"}`
				header.Set("Content-Type", "application/json")
				header.Set("Authorization", "Bearer "+token)
			case 1:
				header.Set("Cookie", httpapi.SessionCookie+"="+token)
			case 2:
				header.Set("Authorization", "Bearer "+token)
			}
			ft.do(t, ft.mux, method, path, "", header, body, checkOpenAPI)
		}
	})
}

func FuzzHTTPToggleModule(f *testing.F) {
	fuzzBody(f, "PATCH", "/api/tenant/entitlements/toggle",
		`{"module":"support.csat","enabled":false}`, `{"module":"support.sla","enabled":true}`, `{"module":"\u0000","enabled":true}`)
}

// FuzzHTTPPaymentWebhook fuzzes the body of the payment webhook, signed
// as the provider would sign it: what the signature lets through.
func FuzzHTTPPaymentWebhook(f *testing.F) {
	for _, s := range []string{
		`{"id":"evt_1","type":"payment.succeeded","created_at":"2026-11-21T10:00:00Z","data":{"payment_id":"pay_1","invoice_id":"{invoice}","amount":1,"currency":"USD","failure_reason":null}}`,
		`{"id":"evt_2","type":"payment.refunded","data":{"invoice_id":"{invoice}","amount":1,"currency":"USD"}}`,
		`{"id":"evt_3","type":"payment.failed","data":{"invoice_id":"inv_\u0000","amount":-1,"currency":"\u0000"}}`,
		`{"id":"evt_\u0000","type":"x"}`,
	} {
		f.Add(s)
	}
	targets := newFuzzTargets(f)
	f.Fuzz(func(t *testing.T, body string) {
		for _, ft := range targets {
			body := ft.expand.Replace(body)
			header := http.Header{"Content-Type": {"application/json"}}
			for k, v := range signed(t, webhookSecret, body) {
				header.Set(k, v)
			}
			// The provider's event is not the document's to constrain
			// (unknown fields are ignored): only the answer is checked.
			ft.do(t, ft.mux, "POST", "/api/webhooks/payment-provider", "", header, body, checkOpenAPIAnswer)
		}
	})
}
