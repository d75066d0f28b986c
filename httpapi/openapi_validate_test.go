package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The harness's e.do hands every request it sends and every response it
// receives to checkOpenAPI, so that httpapi/openapi.json and the code
// cannot drift apart: a response the document does not describe (an
// undocumented status, a missing header, the wrong content type, a body
// that breaks its schema) fails the test that saw it.

// A PDF answer is checked by its status, headers and content type; its
// body is bytes for the document's purposes (a binary string).
func init() {
	openapi3filter.RegisterBodyDecoder("application/pdf", openapi3filter.FileBodyDecoder)
}

// openAPI is the parsed document and a router over its operations.
type openAPI struct {
	doc    *openapi3.T
	router routers.Router
}

// loadOpenAPI parses and validates the embedded document once for all
// the package's tests; it is read-only afterwards.
var loadOpenAPI = sync.OnceValues(func() (*openAPI, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPIDocument())
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	// Route on the path alone, whatever address the test server has.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: router: %w", err)
	}
	return &openAPI{doc: doc, router: router}, nil
})

// exchange is one HTTP request a test sent and the response it received.
type exchange struct {
	method string
	target string // path and query, e.g. "/api/tickets?limit=5"
	header http.Header
	body   []byte
	// responseOnly skips checking an accepted request against the
	// document, for bodies that are not the API's to constrain.
	responseOnly bool
	status       int
	respHeader   http.Header
	respBody     []byte
}

// checkOpenAPI reports, as a test error, every way an exchange departs
// from the document. It calls only tb.Errorf, so it may run on any
// goroutine.
func checkOpenAPI(tb testing.TB, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	tb.Helper()
	checkExchange(tb, exchange{method: req.Method, target: req.URL.RequestURI(), header: req.Header.Clone(), body: reqBody,
		status: resp.StatusCode, respHeader: resp.Header, respBody: respBody})
}

// checkOpenAPIAnswer is checkOpenAPI for requests whose body the document
// does not constrain (a payment provider's event): only the response is
// checked.
func checkOpenAPIAnswer(tb testing.TB, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	tb.Helper()
	checkExchange(tb, exchange{method: req.Method, target: req.URL.RequestURI(), header: req.Header.Clone(), body: reqBody,
		responseOnly: true, status: resp.StatusCode, respHeader: resp.Header, respBody: respBody})
}

// checkExchange reports, as a test error, every way ex departs from the
// document.
func checkExchange(tb testing.TB, ex exchange) {
	tb.Helper()
	o, err := loadOpenAPI()
	if err != nil {
		tb.Errorf("%v", err)
		return
	}
	if err := o.validate(context.Background(), ex); err != nil {
		tb.Errorf("%s %s → %d does not match httpapi/openapi.json: %v\nresponse body: %s",
			ex.method, ex.target, ex.status, err, truncateBody(ex.respBody))
	}
}

// validate checks ex against the document. The response is always
// checked: its status must be documented for the operation, with the
// documented headers, content type and schema. The request is checked
// only when the server accepted it (2xx): tests send bad input on purpose
// to see it refused, but a request the document forbids and the server
// takes means the two disagree.
func (o *openAPI) validate(ctx context.Context, ex exchange) error {
	body := ex.body
	if len(bytes.TrimSpace(body)) == 0 {
		body = nil // white space is no body, for the server as for the document
	}
	req, err := http.NewRequestWithContext(ctx, ex.method, "http://tenantkit.test"+ex.target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = ex.header.Clone()
	route, params, err := o.findRoute(req, ex.status)
	if err != nil {
		return err
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:    credentialPresent,
		IncludeResponseStatus: true, // an undocumented status is an error
		MultiError:            true,
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if ex.status >= 200 && ex.status < 300 && !ex.responseOnly {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			return fmt.Errorf("the server accepted a request the document forbids: %w", err)
		}
	}
	if ex.status == http.StatusNotModified {
		// openapi3filter skips 304s; they must still be documented.
		if route.Operation.Responses.Status(http.StatusNotModified) == nil {
			return errors.New("status 304 is not documented for this operation")
		}
		if len(ex.respBody) > 0 {
			return errors.New("a 304 response has a body")
		}
	}
	err = openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 ex.status,
		Header:                 ex.respHeader,
		Body:                   io.NopCloser(bytes.NewReader(ex.respBody)),
		Options:                opts,
	})
	if err != nil {
		return err
	}
	return checkProblem(route.Operation.Responses.Status(ex.status), ex.status, ex.respBody)
}

// checkProblem checks a problem against what its response says beside the
// shared Problem schema: its code is one the response lists in
// x-problem-codes, its status the response's, its title that status's text
// and its type the code's URI. Responses without problem content pass.
func checkProblem(ref *openapi3.ResponseRef, status int, body []byte) error {
	if ref == nil || ref.Value == nil || ref.Value.Content.Get("application/problem+json") == nil {
		return nil
	}
	codes, err := problemCodes(ref.Value)
	if err != nil {
		return err
	}
	var p struct {
		Type, Title, Code string
		Status            int
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("problem: %w", err)
	}
	switch {
	case !slices.Contains(codes, p.Code):
		return fmt.Errorf("problem code %q is not among the response's x-problem-codes %q", p.Code, codes)
	case p.Status != status:
		return fmt.Errorf("problem status %d in a %d response", p.Status, status)
	case p.Title != http.StatusText(status):
		return fmt.Errorf("problem title %q, want %q", p.Title, http.StatusText(status))
	case p.Type != "https://tenantkit.dev/problems/"+p.Code:
		return fmt.Errorf("problem type %q does not name code %q", p.Type, p.Code)
	}
	return nil
}

// problemCodes returns the codes a problem response lists in its
// x-problem-codes extension, which every problem response has.
func problemCodes(r *openapi3.Response) ([]string, error) {
	list, _ := r.Extensions["x-problem-codes"].([]any)
	codes := make([]string, 0, len(list))
	for _, c := range list {
		code, ok := c.(string)
		if !ok {
			return nil, fmt.Errorf("x-problem-codes holds %v, not a code", c)
		}
		codes = append(codes, code)
	}
	if len(codes) == 0 {
		return nil, errors.New("a problem response without x-problem-codes")
	}
	return codes, nil
}

// findRoute returns the operation req is for. A path no operation matches
// must be answered 404, and a documented path with another method 405,
// each with the document's shared response; findRoute stands in an
// operation with just that response for them.
func (o *openAPI) findRoute(req *http.Request, status int) (*routers.Route, map[string]string, error) {
	route, params, err := o.router.FindRoute(req)
	var routeErr *routers.RouteError
	if err == nil || !errors.As(err, &routeErr) {
		return route, params, err
	}
	response, want := "NotFound", http.StatusNotFound
	if o.pathKnown(req) {
		response, want = "MethodNotAllowed", http.StatusMethodNotAllowed
	}
	if status != want {
		return nil, nil, fmt.Errorf("no operation for %s %s: the answer must be %d, not %d", req.Method, req.URL.Path, want, status)
	}
	ref := o.doc.Components.Responses[response]
	if ref == nil {
		return nil, nil, fmt.Errorf("components.responses.%s is missing", response)
	}
	return &routers.Route{
		Spec: o.doc, Path: req.URL.Path, Method: req.Method, PathItem: &openapi3.PathItem{},
		Operation: &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(want, ref))},
	}, nil, nil
}

// pathKnown reports whether some operation of the document matches req's
// path with another method.
func (o *openAPI) pathKnown(req *http.Request) bool {
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		other := req.Clone(req.Context())
		other.Method = method
		if _, _, err := o.router.FindRoute(other); err == nil {
			return true
		}
	}
	return false
}

// credentialPresent is the validator's AuthenticationFunc. The server
// does the real authentication; this only checks that a request carries
// the credential a security scheme names, so that an operation the server
// answers without one cannot be documented as secured.
func credentialPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	r, s := in.RequestValidationInput.Request, in.SecurityScheme
	present := false
	switch {
	case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
		// The scheme name is case-insensitive (RFC 9110, section 11.1).
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		ok = ok && strings.EqualFold(scheme, "Bearer")
		token = strings.TrimSpace(token)
		// API keys ("tk_…"), operator keys ("tko_…") and JWTs share the
		// header; bearerFormat tells the schemes apart.
		present = ok && token != "" && bearerKind(token) == bearerKind(s.BearerFormat)
	case s.Type == "apiKey" && s.In == "header":
		present = r.Header.Get(s.Name) != ""
	case s.Type == "apiKey" && s.In == "cookie":
		_, err := r.Cookie(s.Name)
		present = err == nil
	default:
		return in.NewError(fmt.Errorf("security scheme %q: unsupported type %q", in.SecuritySchemeName, s.Type))
	}
	if !present {
		return in.NewError(nil)
	}
	return nil
}

// bearerKind tells which scheme a bearer token (or a scheme's
// bearerFormat) belongs to, by its prefix.
func bearerKind(token string) string {
	switch {
	case strings.HasPrefix(token, "tko_"):
		return "operatorKey"
	case strings.HasPrefix(token, "tk_"):
		return "apiKey"
	}
	return "jwt"
}

// truncateBody keeps error messages readable.
func truncateBody(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// TestOpenAPIValidatorCatchesDrift feeds the validator responses (and
// accepted requests) the document does not allow and checks that each
// fails, next to correct ones that must pass.
func TestOpenAPIValidatorCatchesDrift(t *testing.T) {
	o, err := loadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	const (
		invoicePath = "/api/v1/collections/invoices/inv_01jd3k5q8r9s0t1v2w3x4y5z6a"
		ticketPath  = "/api/tickets/tkt_01jd3k5q8r9s0t1v2w3x4y5z6a"
	)
	bearer := http.Header{"Authorization": {"Bearer tk_" + strings.Repeat("A", 43)}}
	jsonReq := http.Header{"Authorization": bearer["Authorization"], "Content-Type": {"application/json"}}
	tests := []struct {
		name    string
		ex      exchange
		wantErr bool
	}{
		{"OKInvoice", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, invoiceFixture())}, false},
		{"InvoiceWithoutTotal", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, without(invoiceFixture(), "total"))}, true},
		{"InvoiceAmountWithCents", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, with(invoiceFixture(), "total", 21.64))}, true},
		{"InvoiceUnknownUncollectibleReason", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, with(with(invoiceFixture(), "status", "uncollectible"), "uncollectible_reason", "bored"))}, true},
		{"OKTicket", exchange{method: "GET", target: ticketPath, header: bearer,
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, ticketFixture())}, false},
		{"TicketStatusLost", exchange{method: "GET", target: ticketPath, header: bearer,
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, with(ticketFixture(), "status", "lost"))}, true},
		{"ListWithoutHasMore", exchange{method: "GET", target: "/api/tickets", header: bearer,
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, map[string]any{"data": []any{ticketFixture()}, "next_cursor": nil})}, true},
		{"OKProblem", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 404, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(404, "not_found"))}, false},
		{"ProblemAsPlainJSON", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 404, respHeader: jsonHeader(), respBody: mustJSON(t, problemFixture(404, "not_found"))}, true},
		{"ProblemCodeOfAnotherStatus", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 404, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(404, "forbidden"))}, true},
		{"ProblemStatusOfAnotherResponse", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 404, respHeader: problemHeader(), respBody: mustJSON(t, with(problemFixture(404, "not_found"), "status", 400))}, true},
		{"ProblemTitleNotStatusText", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 404, respHeader: problemHeader(), respBody: mustJSON(t, with(problemFixture(404, "not_found"), "title", "Gone"))}, true},
		{"ProblemTypeOfAnotherCode", exchange{method: "GET", target: invoicePath, header: bearer,
			status: 404, respHeader: problemHeader(), respBody: mustJSON(t, with(problemFixture(404, "not_found"), "type", "https://tenantkit.dev/problems/conflict"))}, true},
		{"UnknownPathProblemCodeOfAnotherStatus", exchange{method: "GET", target: "/api/nope",
			status: 404, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(404, "conflict"))}, true},
		{"UndocumentedStatus", exchange{method: "GET", target: "/api/health",
			status: 418, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(418, "teapot"))}, true},
		{"UndocumentedNotModified", exchange{method: "GET", target: "/api/health",
			status: 304, respHeader: requestIDHeader()}, true},
		{"NoRequestID", exchange{method: "GET", target: "/api/health",
			status: 200, respHeader: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}},
			respBody: mustJSON(t, map[string]any{"status": "ok"})}, true},
		{"UnauthorizedWithoutChallenge", exchange{method: "GET", target: "/api/auth/me",
			status: 401, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(401, "unauthenticated"))}, true},
		{"RateLimitedWithoutRetryAfter", exchange{method: "GET", target: "/api/auth/me", header: bearer,
			status: 429, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(429, "rate_limited"))}, true},
		{"CreatedWithoutLocation", exchange{method: "POST", target: "/api/tickets", header: jsonReq,
			body:   []byte(`{"subject":"Printer on fire","description":"It is on fire."}`),
			status: 201, respHeader: jsonHeader(), respBody: mustJSON(t, ticketFixture())}, true},
		{"AcceptedUnknownField", exchange{method: "POST", target: "/api/tickets", header: jsonReq,
			body:   []byte(`{"subject":"Printer on fire","description":"It is on fire.","assignee":"bob"}`),
			status: 201, respHeader: with(jsonHeader(), "Location", []string{ticketPath}), respBody: mustJSON(t, ticketFixture())}, true},
		{"RefusedUnknownField", exchange{method: "POST", target: "/api/tickets", header: jsonReq,
			body:   []byte(`{"subject":"Printer on fire","description":"It is on fire.","assignee":"bob"}`),
			status: 400, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(400, "invalid_request"))}, false},
		{"AcceptedWithoutCredential", exchange{method: "GET", target: "/api/auth/me",
			status: 200, respHeader: jsonHeader(), respBody: mustJSON(t, meFixture())}, true},
		{"UnknownPathAnswered", exchange{method: "GET", target: "/api/nope",
			status: 200, respHeader: jsonHeader(), respBody: []byte(`{}`)}, true},
		{"UnknownPathNotFound", exchange{method: "GET", target: "/api/nope",
			status: 404, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(404, "not_found"))}, false},
		{"MethodNotAllowed", exchange{method: "DELETE", target: ticketPath,
			status: 405, respHeader: with(problemHeader(), "Allow", []string{"GET"}), respBody: mustJSON(t, problemFixture(405, "method_not_allowed"))}, false},
		{"MethodNotAllowedWithoutAllow", exchange{method: "DELETE", target: "/api/catalog/public",
			status: 405, respHeader: problemHeader(), respBody: mustJSON(t, problemFixture(405, "method_not_allowed"))}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.ex.header == nil {
				tt.ex.header = http.Header{}
			}
			err := o.validate(context.Background(), tt.ex)
			t.Logf("validate: %v", err)
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("validate: error %v, want an error: %v", err, tt.wantErr)
			}
		})
	}
}

// recordingT is a testing.TB that keeps the errors reported to it.
type recordingT struct {
	*testing.T
	mu   sync.Mutex
	errs []string
}

// Errorf records the error instead of failing the test.
func (r *recordingT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestOpenAPIHarnessReportsDrift proves that the harness validates: e.do
// against a server that answers outside the document reports it.
func TestOpenAPIHarnessReportsDrift(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		req     request
		wantErr bool
	}{
		{"Conforming", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-ID", "req_1")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"status":"ok"}`)
		}, request{method: "GET", path: "/api/health"}, false},
		{"StatusNotOK", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-ID", "req_1")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"status":"fine"}`)
		}, request{method: "GET", path: "/api/health"}, true},
		{"PlainTextError", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-ID", "req_1")
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "nope", http.StatusUnauthorized)
		}, request{method: "GET", path: "/api/auth/me"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			rec := &recordingT{T: t}
			(&env{t: t, srv: srv}).do(rec, tt.req)
			t.Logf("reported: %q", rec.errs)
			if gotErr := len(rec.errs) > 0; gotErr != tt.wantErr {
				t.Fatalf("e.do reported %q, want an error: %v", rec.errs, tt.wantErr)
			}
		})
	}
}

// TestOpenAPIDocumentEndpoint serves the document through the harness, so
// that its own responses are validated too.
func TestOpenAPIDocumentEndpoint(t *testing.T) {
	cat := catalog.Default()
	dir, notes := tenancy.NewDirectory(nil, cat), tenancy.NewNotifications(nil)
	ent := tenancy.NewEntitlements(nil, dir, notes)
	api, err := httpapi.New(context.Background(), httpapi.Config{Services: httpapi.Services{Directory: dir, Keys: tenancy.NewKeys(nil, dir), Entitlements: ent,
		Modules: tenancy.NewModules(nil, ent, notes, noTx{}), Notifications: notes, Catalog: cat}, Logger: zerolog.Nop()})
	check(t, err)
	e := &env{t: t, srv: httptest.NewServer(api.Handler())}
	defer e.srv.Close()
	r := e.do(t, request{method: "GET", path: "/api/openapi.json"})
	if r.status != http.StatusOK || !bytes.Equal(r.body, httpapi.OpenAPIDocument()) {
		t.Fatalf("GET /api/openapi.json = %d, %d bytes", r.status, len(r.body))
	}
	if r := e.do(t, request{method: "GET", path: "/api/openapi.json", header: map[string]string{"If-None-Match": r.header.Get("ETag")}}); r.status != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d, want 304", r.status)
	}
	wantProblem(t, e.do(t, request{method: "POST", path: "/api/openapi.json", body: `{}`}), http.StatusMethodNotAllowed, "method_not_allowed")
}

// Fixtures: responses as the API answers them.

func invoiceFixture() map[string]any {
	return map[string]any{
		"id": "inv_01jd3k5q8r9s0t1v2w3x4y5z6a", "number": "INV-000042", "status": "open",
		"customer_id": nil, "customer": map[string]any{"name": "Ada", "email": "ada@example.com", "locale": "en"}, "currency": "USD",
		"line_items": []any{map[string]any{"description": "Plan", "quantity": 1, "unit_amount": 1999, "tax_rate_bps": 825, "amount": 1999}},
		"subtotal":   1999, "tax": 165, "total": 2164, "amount_paid": 0, "amount_due": 2164, "overdue": false, "memo": "",
		"metadata": map[string]any{}, "created_at": "2026-11-21T10:00:00.123456Z", "finalized_at": "2026-11-21T10:00:00Z", "paid_at": nil,
	}
}

func ticketFixture() map[string]any {
	return map[string]any{
		"id": "tkt_01jd3k5q8r9s0t1v2w3x4y5z6a", "number": 1, "subject": "Printer on fire", "description": "It is on fire.",
		"status": "open", "priority": "normal", "requester": map[string]any{"id": "usr_01jd3k5q8r9s0t1v2w3x4y5z6a", "email": "a@b.co", "name": "A"},
		"assignee_id": nil, "tags": []any{}, "created_at": "2026-11-21T10:00:00Z", "updated_at": "2026-11-21T10:00:00Z",
		"first_response_due_at": nil, "resolution_due_at": nil, "first_responded_at": nil, "sla_breached": nil, "satisfaction": nil,
	}
}

func meFixture() map[string]any {
	return map[string]any{"id": "usr_01jd3k5q8r9s0t1v2w3x4y5z6a", "email": "a@b.co", "name": "A", "auth_method": "api_key",
		"scopes": []any{}, "active_tenant_id": nil, "tenants": []any{}}
}

func problemFixture(status int, code string) map[string]any {
	return map[string]any{"type": "https://tenantkit.dev/problems/" + code, "title": http.StatusText(status), "status": status,
		"detail": "…", "code": code, "request_id": "req_1"}
}

func requestIDHeader() http.Header { return http.Header{"X-Request-Id": {"req_1"}} }

func jsonHeader() http.Header {
	return with(requestIDHeader(), "Content-Type", []string{"application/json; charset=utf-8"})
}

func problemHeader() http.Header {
	return with(requestIDHeader(), "Content-Type", []string{"application/problem+json"})
}

// with returns m with key set to v.
func with[M ~map[string]V, V any](m M, key string, v V) M {
	m[key] = v
	return m
}

// without returns m without key.
func without(m map[string]any, key string) map[string]any {
	delete(m, key)
	return m
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// noTx stands in for a Transactor where no store is ever reached.
type noTx struct{}

func (noTx) InTx(ctx context.Context, fn func(ctx context.Context) error) error { return fn(ctx) }

// The hosted invoice page answers HTML, which the document describes as a
// string: its body is checked as one.
func init() {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}
