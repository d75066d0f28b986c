package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bunrouter"

	"github.com/tenantkit/tenantkit/httpapi"
)

// Input that a database would refuse, or that no resource could match,
// is answered by the edge before any query: malformed ids are 404, bad
// query parameters and headers 400, bad body text 422 naming the field.

// bunrouterHandler composes api on bunrouter from its route table, as
// cmd/server does.
func bunrouterHandler(api *httpapi.API) http.Handler {
	router := bunrouter.New(
		bunrouter.WithNotFoundHandler(bunrouter.HTTPHandler(api.Unmatched())),
		bunrouter.WithMethodNotAllowedHandler(bunrouter.HTTPHandler(api.Unmatched())),
	)
	for _, rt := range api.Routes() {
		path := strings.NewReplacer("{", ":", "}", "").Replace(rt.Pattern)
		h := rt.Handler
		router.Handle(rt.Method, path, func(w http.ResponseWriter, req bunrouter.Request) error {
			r := req.Request
			for name, value := range req.Params().Map() {
				r.SetPathValue(name, value)
			}
			h.ServeHTTP(w, r)
			return nil
		})
	}
	return api.Wrap(router)
}

// withBunrouter returns a copy of e served on bunrouter (bunrouterHandler).
func withBunrouter(t *testing.T, e *env) *env {
	t.Helper()
	other := *e
	other.srv = httptest.NewServer(bunrouterHandler(e.api))
	t.Cleanup(other.srv.Close)
	return &other
}

// serve sends one request to h in-process, so that it may carry what no
// HTTP client sends (a NUL in a header value, say), and returns the
// request as sent with the recorded response.
func serve(h http.Handler, method, path, rawQuery string, header http.Header, body string) (*http.Request, *httptest.ResponseRecorder) {
	r := httptest.NewRequest(method, "/", strings.NewReader(body))
	r.URL.Path, r.URL.RawPath, r.URL.RawQuery = path, "", rawQuery
	r.RequestURI = r.URL.RequestURI()
	for k, vs := range header {
		r.Header[k] = vs
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return r, w
}

// serve is serve on e's API.
func (e *env) serve(method, path, rawQuery string, header http.Header, body string) *httptest.ResponseRecorder {
	_, w := serve(e.api.Handler(), method, path, rawQuery, header, body)
	return w
}

// problemOf decodes a recorded problem response.
func problemOf(t *testing.T, w *httptest.ResponseRecorder) httpapi.Problem {
	t.Helper()
	var p httpapi.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("decode %s: %v", w.Body, err)
	}
	return p
}

// wantFieldError checks a problem answer and its one FieldError.
func wantFieldError(t *testing.T, r response, status int, code string, want httpapi.FieldError) {
	t.Helper()
	wantProblem(t, r, status, code)
	var p httpapi.Problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Errors) != 1 || p.Errors[0].Field != want.Field || p.Errors[0].Code != want.Code {
		t.Fatalf("errors = %+v, want one for field %q with code %q", p.Errors, want.Field, want.Code)
	}
}

func TestMalformedPathIDs(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		invoice := e.mustCreateInvoice(t, 100)
		ticket := e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme,
			body: `{"subject":"s","description":"d"}`}).json(t)["id"].(string)
		contract := e.do(t, request{method: "POST", path: "/api/contract-requests", bearer: e.keyAll, header: acme,
			body: `{"type":"change_seats","seats":3,"effective":"next_period"}`}).json(t)["id"].(string)
		routers := map[string]*env{"ServeMux": e, "bunrouter": withBunrouter(t, e)}
		for _, res := range []struct{ base, id, what string }{
			{"/api/v1/collections/invoices/", invoice, "invoice"},
			{"/api/tickets/", ticket, "ticket"},
			{"/api/contract-requests/", contract, "contract request"},
		} {
			ids := []struct{ name, id string }{
				{"Nul", "%00"},
				{"NulAfterPrefix", res.id[:4] + "%00"},
				{"InvalidUTF8", url.PathEscape(res.id[:10] + "\xff" + res.id[11:])},
				{"ControlCharacter", "%0A"},
				{"UpperCase", strings.ToUpper(res.id)},
				{"OtherType", "usr_" + res.id[4:]},
				{"TooLong", res.id + "0"},
				{"Huge", strings.Repeat("a", 4000)},
				{"WellFormedUnknown", res.id[:4] + "7zzzzzzzzzzzzzzzzzzzzzzzzz"},
			}
			for name, srv := range routers {
				for _, tt := range ids {
					t.Run(name+"/"+strings.ReplaceAll(res.what, " ", "")+"/"+tt.name, func(t *testing.T) {
						r := srv.do(t, request{method: "GET", path: res.base + tt.id, bearer: e.keyAll, header: acme})
						wantProblem(t, r, http.StatusNotFound, "not_found")
						if detail := r.json(t)["detail"].(string); tt.name != "WellFormedUnknown" && detail != res.what+" not found" && detail != "no endpoint at this path" {
							t.Errorf("detail = %q", detail)
						}
					})
				}
				t.Run(name+"/"+strings.ReplaceAll(res.what, " ", "")+"/OK", func(t *testing.T) {
					if r := srv.do(t, request{method: "GET", path: res.base + res.id, bearer: e.keyAll, header: acme}); r.status != http.StatusOK {
						t.Fatalf("GET %s: %d %s", res.base+res.id, r.status, r.body)
					}
				})
			}
		}
	})
}

func TestTenantIDInput(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		unknown := "ten_7zzzzzzzzzzzzzzzzzzzzzzzzz"
		t.Run("Body", func(t *testing.T) {
			tests := []struct {
				name, tenantID string // JSON string contents, escapes allowed
				status         int
				code, errCode  string
			}{
				{"Nul", `ten_\u0000`, 422, "validation_failed", "nul_byte"},
				{"NulOnly", `\u0000`, 422, "validation_failed", "nul_byte"},
				{"InvalidUTF8", "ten_\xff", 422, "validation_failed", "invalid_utf8"},
				{"LoneSurrogate", `ten_\ud800`, 422, "validation_failed", "invalid_utf8"},
				{"Empty", "", 422, "validation_failed", "required"},
				{"TooLong", "ten_" + strings.Repeat("0", 61), 422, "validation_failed", "invalid"},
				{"Slug", "acme", 422, "validation_failed", "invalid"},
				{"UpperCase", strings.ToUpper(e.acme.ID), 422, "validation_failed", "invalid"},
				{"WellFormedUnknown", unknown, 404, "not_found", ""},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					r := e.do(t, request{method: "POST", path: "/api/tenant/select", bearer: e.keyAll, body: `{"tenant_id":"` + tt.tenantID + `"}`})
					if tt.errCode == "" {
						wantProblem(t, r, tt.status, tt.code)
						return
					}
					wantFieldError(t, r, tt.status, tt.code, httpapi.FieldError{Field: "tenant_id", Code: tt.errCode})
				})
			}
			r := e.do(t, request{method: "POST", path: "/api/tenant/select", bearer: e.keyAll, body: `{"tenant_id":"` + e.acme.ID + `"}`})
			if r.status != http.StatusOK {
				t.Fatalf("select acme: %d %s", r.status, r.body)
			}
		})
		t.Run("Header", func(t *testing.T) {
			for _, path := range []string{"/api/tenant/access-matrix", "/api/auth/me", "/api/tickets", "/api/tenant/entitlements/limit"} {
				tests := []struct {
					name   string
					values []string
					status int
					code   string
				}{
					{"Nul", []string{"ten_\x00"}, 400, "invalid_request"},
					{"InvalidUTF8", []string{"ten_\xff"}, 400, "invalid_request"},
					{"TooLong", []string{e.acme.ID + strings.Repeat("0", 10000)}, 400, "invalid_request"},
					{"Slug", []string{"acme"}, 400, "invalid_request"},
					{"Empty", []string{""}, 400, "invalid_request"},
					{"Twice", []string{e.acme.ID, e.globex.ID}, 400, "invalid_request"},
					{"WellFormedUnknown", []string{unknown}, 403, "forbidden"},
				}
				for _, tt := range tests {
					if path == "/api/auth/me" && tt.status == 403 {
						continue // me reports no active tenant then; it acts on none
					}
					t.Run(strings.ReplaceAll(path[5:], "/", "_")+"/"+tt.name, func(t *testing.T) {
						w := e.serve("GET", path, "", http.Header{"Authorization": {"Bearer " + e.keyAll}, "X-Tenant-Id": tt.values}, "")
						if w.Code != tt.status {
							t.Fatalf("status = %d, want %d; body %s", w.Code, tt.status, w.Body)
						}
						p := problemOf(t, w)
						if p.Code != tt.code {
							t.Fatalf("code = %q, want %q", p.Code, tt.code)
						}
						if tt.status == 400 && (len(p.Errors) != 1 || p.Errors[0].Field != "X-Tenant-ID") {
							t.Fatalf("errors = %+v, want one naming X-Tenant-ID", p.Errors)
						}
					})
				}
			}
			// Over HTTP, and checked against the document, where a client can send it.
			wantFieldError(t, e.do(t, request{method: "GET", path: "/api/tenant/access-matrix", bearer: e.keyAll,
				header: map[string]string{"X-Tenant-ID": "ten_\xff"}}), 400, "invalid_request", httpapi.FieldError{Field: "X-Tenant-ID", Code: "invalid"})
		})
	})
}

func TestQueryParameters(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		long := strings.Repeat("a", 257)
		tests := []struct {
			name, target string
			status       int
			field, code  string // the one FieldError, if any
		}{
			{"KnownFilters", "/api/v1/collections/invoices?status=open&customer_email=ada@example.com&limit=5", 200, "", ""},
			{"EmptyQuery", "/api/tickets?", 200, "", ""},
			{"UnknownOnList", "/api/v1/collections/invoices?stauts=open", 400, "stauts", "unknown_parameter"},
			{"AnotherListsFilter", "/api/contract-requests?priority=high", 400, "priority", "unknown_parameter"},
			{"UnknownOnItem", "/api/tickets/tkt_7zzzzzzzzzzzzzzzzzzzzzzzzz?expand=all", 400, "expand", "unknown_parameter"},
			{"UnknownOnMe", "/api/auth/me?x=1", 400, "x", "unknown_parameter"},
			{"UnknownOnPublic", "/api/health?verbose", 400, "verbose", "unknown_parameter"},
			{"UnknownOnCatalog", "/api/catalog/public?v=2", 400, "v", "unknown_parameter"},
			{"EmptyName", "/api/tickets?=x", 400, "", "unknown_parameter"},
			{"Repeated", "/api/tickets?status=open&status=solved", 400, "status", "repeated"},
			{"NulValue", "/api/v1/collections/invoices?customer_email=a%00b", 400, "customer_email", "nul_byte"},
			{"InvalidUTF8Value", "/api/v1/collections/invoices?customer_email=%FF", 400, "customer_email", "invalid_utf8"},
			{"NulInStatus", "/api/tickets?status=open%00", 400, "status", "nul_byte"},
			{"TooLongValue", "/api/tenant/entitlements/limit?feature=" + long, 400, "feature", "too_long"},
			{"TooLongCursor", "/api/tenant/notifications?cursor=" + long, 400, "cursor", "too_long"},
			{"NulInCursor", "/api/tickets?cursor=%00", 400, "cursor", "nul_byte"},
			{"MalformedEscape", "/api/tickets?status=%zz", 400, "", ""},
			{"Semicolon", "/api/tickets?status=open;limit=5", 400, "", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "GET", path: tt.target, bearer: e.keyAll, header: acme})
				switch {
				case tt.status == 200:
					if r.status != 200 {
						t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
					}
				case tt.code == "":
					wantProblem(t, r, tt.status, "invalid_request")
				default:
					wantFieldError(t, r, tt.status, "invalid_request", httpapi.FieldError{Field: tt.field, Code: tt.code})
				}
			})
		}
		t.Run("EveryOffenderNamed", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: "/api/tickets?b=1&status=%FF&a=2", bearer: e.keyAll, header: acme})
			wantProblem(t, r, 400, "invalid_request")
			var p httpapi.Problem
			check(t, json.Unmarshal(r.body, &p))
			var got []string
			for _, fe := range p.Errors {
				got = append(got, fe.Field+":"+fe.Code)
			}
			if want := "a:unknown_parameter b:unknown_parameter status:invalid_utf8"; strings.Join(got, " ") != want {
				t.Fatalf("errors = %v, want %s", got, want)
			}
		})
	})
}

func TestBodyText(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		const bad = "\xff"
		invoice := func(name, desc, memo, metadata string) string {
			return `{"customer":{"name":"` + name + `","email":"ada@example.com"},"currency":"USD","memo":"` + memo +
				`","metadata":` + metadata + `,"line_items":[{"description":"Plan","quantity":1,"unit_amount":100},{"description":"` + desc + `","quantity":1,"unit_amount":100}]}`
		}
		tests := []struct {
			name, method, path, body string
			field, code              string
		}{
			{"InvoiceCustomerName", "POST", "/api/v1/collections/invoices", invoice("Ad"+bad+"a", "x", "", `{}`), "customer.name", "invalid_utf8"},
			{"InvoiceLineDescription", "POST", "/api/v1/collections/invoices", invoice("Ada", `x\u0000`, "", `{}`), "line_items[1].description", "nul_byte"},
			{"InvoiceMemo", "POST", "/api/v1/collections/invoices", invoice("Ada", "x", `\udfff`, `{}`), "memo", "invalid_utf8"},
			{"InvoiceMetadataKey", "POST", "/api/v1/collections/invoices", invoice("Ada", "x", "", `{"k`+bad+`":"v"}`), "metadata", "invalid_utf8"},
			{"InvoiceMetadataValue", "POST", "/api/v1/collections/invoices", invoice("Ada", "x", "", `{"k":"\u0000"}`), "metadata.k", "nul_byte"},
			{"TicketSubject", "POST", "/api/tickets", `{"subject":"` + bad + `","description":"d"}`, "subject", "invalid_utf8"},
			{"TicketDescription", "POST", "/api/tickets", `{"subject":"s","description":"d\u0000"}`, "description", "nul_byte"},
			{"TicketTag", "POST", "/api/tickets", `{"subject":"s","description":"d","tags":["ok","\ud800x"]}`, "tags[1]", "invalid_utf8"},
			{"ContractNote", "POST", "/api/contract-requests", `{"type":"change_seats","seats":3,"effective":"next_period","note":"` + bad + `"}`, "note", "invalid_utf8"},
			{"PreviewModule", "POST", "/api/invoices/preview", `{"modules":["support.csat\u0000"]}`, "modules[0]", "nul_byte"},
			{"ToggleModule", "PATCH", "/api/tenant/entitlements/toggle", `{"module":"support` + bad + `","enabled":true}`, "module", "invalid_utf8"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: tt.method, path: tt.path, bearer: e.keyAll, header: acme, body: tt.body})
				wantFieldError(t, r, 422, "validation_failed", httpapi.FieldError{Field: tt.field, Code: tt.code})
			})
		}
		t.Run("NothingStored", func(t *testing.T) {
			for _, path := range []string{"/api/v1/collections/invoices", "/api/tickets", "/api/contract-requests"} {
				r := e.do(t, request{method: "GET", path: path, bearer: e.keyAll, header: acme})
				if n := len(r.json(t)["data"].([]any)); n != 0 {
					t.Errorf("GET %s lists %d items after refused creates", path, n)
				}
			}
		})
		t.Run("ValidTextKept", func(t *testing.T) {
			// A surrogate pair is one character; U+FFFD sent on purpose is text.
			r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: acme,
				body: invoice(`Ada \ud83d\ude00`, "\uFFFD", `\ufffd`, `{"emoji":"😀"}`)})
			if r.status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			inv := r.json(t)
			if name := inv["customer"].(map[string]any)["name"]; name != "Ada 😀" {
				t.Errorf("customer name stored as %q", name)
			}
			if memo := inv["memo"]; memo != "\uFFFD" {
				t.Errorf("memo stored as %q", memo)
			}
			if !bytes.Contains(r.body, []byte(`"emoji":"😀"`)) {
				t.Errorf("metadata not kept: %s", r.body)
			}
		})
	})
}
