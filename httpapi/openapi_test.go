package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/httpapi/operatorapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// mustLoadOpenAPI parses the embedded document and validates it as
// OpenAPI 3.0 (structure, references, examples against their schemas).
func mustLoadOpenAPI(tb testing.TB) *openapi3.T {
	tb.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPIDocument())
	if err != nil {
		tb.Fatalf("load openapi.json: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		tb.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	return doc
}

// newDocsAPI is an API without a database, the operator API included,
// enough to route and to serve the public endpoints that touch none.
func newDocsAPI(tb testing.TB) *httpapi.API {
	tb.Helper()
	cat := catalog.Default()
	dir, notes := tenancy.NewDirectory(nil, cat), tenancy.NewNotifications(nil)
	ent := tenancy.NewEntitlements(nil, dir, notes)
	a, err := httpapi.New(context.Background(), httpapi.Config{
		Services: httpapi.Services{Directory: dir, Keys: tenancy.NewKeys(nil, dir), Entitlements: ent,
			Modules: tenancy.NewModules(nil, ent, notes, noTx{}), Notifications: notes, Catalog: cat},
		Endpoints: operatorapi.Endpoints(operatorapi.Services{}),
		Logger:    zerolog.Nop(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := mustLoadOpenAPI(t)
	if doc.OpenAPI != "3.0.3" {
		t.Fatalf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			if op.OperationID == "" || op.Summary == "" || len(op.Tags) != 1 {
				t.Errorf("%s: want an operationId, a summary and one tag", name)
			}
			if op.Security == nil {
				t.Errorf("%s: security not stated (use [] for public operations)", name)
			}
			for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s: response %d not documented; every operation can answer it", name, status)
				}
			}
			for code, ref := range op.Responses.Map() {
				checkOpenAPIResponse(t, name+" → "+code, code, ref.Value)
			}
		}
	}
	for name, ref := range doc.Components.Responses {
		checkOpenAPIResponse(t, "components.responses."+name, "", ref.Value)
	}
}

// checkOpenAPIResponse checks what every response of the API shares: the
// X-Request-ID header, problem+json for errors and JSON for the rest, but
// for the documents served as they are (binaryMediaTypes): a success
// that is one of them has exactly that content, a binary string.
func checkOpenAPIResponse(t *testing.T, name, code string, r *openapi3.Response) {
	t.Helper()
	if h := r.Headers["X-Request-ID"]; h == nil || !h.Value.Required {
		t.Errorf("%s: lacks the required X-Request-ID header", name)
	}
	status, _ := strconv.Atoi(code)
	if status == http.StatusNotModified || status == http.StatusNoContent || (status == 0 && len(r.Content) == 0) {
		if status == http.StatusNoContent && len(r.Content) > 0 {
			t.Errorf("%s: a 204 has no content", name)
		}
		return
	}
	if html := r.Content["text/html"]; html != nil {
		// The hosted invoice page (GroupHosted) is for people: it and its
		// 404 and 429 are HTML pages; its other errors stay problems.
		if len(r.Content) != 1 || html.Schema == nil || !strings.Contains(name, " /pay/") {
			t.Errorf("%s: text/html is for the hosted invoice page only, alone, with a schema", name)
		}
		return
	}
	want := "application/json"
	if status >= 400 || (status == 0 && r.Content.Get("application/problem+json") != nil) {
		want = "application/problem+json"
	}
	for _, media := range binaryMediaTypes {
		if status >= 200 && status < 300 && r.Content[media] != nil {
			if s := r.Content[media].Schema; len(r.Content) != 1 || s == nil || s.Value == nil ||
				!s.Value.Type.Is(openapi3.TypeString) || s.Value.Format != "binary" {
				t.Errorf("%s: want exactly %s content, a string of format binary", name, media)
			}
			return
		}
	}
	if len(r.Content) != 1 || r.Content[want] == nil || r.Content[want].Schema == nil {
		t.Errorf("%s: want exactly %s content with a schema", name, want)
		return
	}
	if want == "application/problem+json" {
		checkProblemResponse(t, name, r)
	}
}

// binaryMediaTypes are the media types of the API's successes that are
// not JSON: the invoices' PDFs.
var binaryMediaTypes = []string{"application/pdf"}

// checkProblemResponse checks an error response: its body is the one
// shared Problem schema, not a copy or a narrowing of it, and the codes it
// can carry are listed in x-problem-codes, each a ProblemCode and named in
// the description.
func checkProblemResponse(t *testing.T, name string, r *openapi3.Response) {
	t.Helper()
	if ref := r.Content["application/problem+json"].Schema.Ref; ref != "#/components/schemas/Problem" {
		t.Errorf("%s: problem schema %q, want a $ref to #/components/schemas/Problem", name, ref)
	}
	codes, err := problemCodes(r)
	if err != nil {
		t.Errorf("%s: %v", name, err)
	}
	known := problemCodeEnum(t)
	for _, code := range codes {
		if !slices.Contains(known, code) {
			t.Errorf("%s: x-problem-codes lists %q, which is not a ProblemCode", name, code)
		}
		if r.Description == nil || !strings.Contains(*r.Description, "`"+code+"`") {
			t.Errorf("%s: the description does not name code `%s`", name, code)
		}
	}
}

// problemCodeEnum is the document's ProblemCode enum.
func problemCodeEnum(t *testing.T) []string {
	t.Helper()
	o, err := loadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, v := range o.doc.Components.Schemas["ProblemCode"].Value.Enum {
		codes = append(codes, v.(string))
	}
	return codes
}

// groupTags is the document's tag for each group of the route table.
var groupTags = map[httpapi.Group]string{
	httpapi.GroupAuth:        "Authentication",
	httpapi.GroupCollections: "Collections",
	httpapi.GroupTenant:      "Tenant Management",
	httpapi.GroupSupport:     "Support",
	httpapi.GroupContracts:   "Contracts & Billing",
	httpapi.GroupCatalog:     "Catalog",
	httpapi.GroupHealth:      "Health",
	httpapi.GroupWebhooks:    "Webhooks (Incoming)",
	httpapi.GroupDocs:        "Documentation",
	httpapi.GroupOperator:    "Operator",
	httpapi.GroupEvents:      "Events",
	httpapi.GroupHosted:      "Hosted Invoices",

	httpapi.GroupWebhookEndpoints: "Webhook Endpoints",
}

func TestOpenAPICoversRouteTable(t *testing.T) {
	doc := mustLoadOpenAPI(t)
	routes := map[string]bool{}
	for _, r := range newDocsAPI(t).Routes() {
		name := r.Method + " " + r.Pattern
		routes[name] = true
		item := doc.Paths.Value(r.Pattern)
		if item == nil || item.GetOperation(r.Method) == nil {
			t.Errorf("route %s has no operation in openapi.json", name)
			continue
		}
		if got, want := item.GetOperation(r.Method).Tags, []string{groupTags[r.Group]}; !slices.Equal(got, want) {
			t.Errorf("%s: tags %v, want %v (group %s)", name, got, want, r.Group)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !routes[method+" "+path] {
				t.Errorf("operation %s %s is not in the route table", method, path)
			}
		}
	}
}

// TestOpenAPIRequirementsMatchRouteTable checks that each operation
// documents what its row of the route table enforces: credentials,
// scope, permission, module, tenant, idempotency, and the statuses these
// checks answer with.
func TestOpenAPIRequirementsMatchRouteTable(t *testing.T) {
	doc := mustLoadOpenAPI(t)
	// A zero API has no services, nor has an operator API on none: the
	// rows that need one have no handler (501), which tells them apart.
	for _, ep := range append(httpapi.ZeroTable(), operatorapi.Endpoints(operatorapi.Services{})...) {
		t.Run(ep.Method+" "+ep.Path, func(t *testing.T) {
			op := doc.Paths.Value(ep.Path).GetOperation(ep.Method)
			if op == nil {
				t.Fatal("no operation")
			}
			wantSecurity := [][]string{{"apiKey"}, {"jwt"}, {"session"}}
			if !httpapi.IsSafeMethod(ep.Method) && !ep.CSRFExempt {
				wantSecurity[2] = []string{"csrfToken", "session"}
			}
			if ep.Operator != "" {
				// The operator API takes operator keys and nothing else.
				wantSecurity = [][]string{{"operatorKey"}}
			}
			gotSecurity := securityNames(*op.Security)
			anonymous := len(gotSecurity) == 0 || slices.ContainsFunc(gotSecurity, func(names []string) bool { return len(names) == 0 })
			if ep.Public {
				// A public endpoint may take a session optionally (next to
				// {}) or be signed (the webhook), never need a credential.
				for _, names := range gotSecurity {
					for _, name := range names {
						if name == "apiKey" || name == "jwt" || name == "csrfToken" || (name == "session" && !anonymous) {
							t.Errorf("public endpoint requires %q: %v", name, gotSecurity)
						}
					}
				}
			} else if !slices.EqualFunc(gotSecurity, wantSecurity, slices.Equal) {
				t.Errorf("security = %v, want %v", gotSecurity, wantSecurity)
			}
			wantExt := map[string]any{"x-required-scopes": nil, "x-required-permission": nil, "x-required-module": nil}
			if httpapi.EndpointScope(ep) != "" {
				wantExt["x-required-scopes"] = []any{string(httpapi.EndpointScope(ep))}
			}
			if ep.Permission != "" {
				wantExt["x-required-permission"] = string(ep.Permission)
			}
			if ep.Module != "" {
				wantExt["x-required-module"] = ep.Module
			}
			for name, want := range wantExt {
				if got := op.Extensions[name]; !equalJSON(got, want) {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			if got := op.Parameters.GetByInAndName(openapi3.ParameterInHeader, httpapi.IdempotencyKeyHeader) != nil; got != ep.Idempotent {
				t.Errorf("Idempotency-Key documented = %v, want %v", got, ep.Idempotent)
			}
			// GET /api/auth/me reads X-Tenant-ID too, to report the active tenant.
			if ep.Tenant && op.Parameters.GetByInAndName(openapi3.ParameterInHeader, "X-Tenant-ID") == nil {
				t.Error("X-Tenant-ID not documented on a tenant endpoint")
			}
			wantStatus := map[int]bool{
				http.StatusUnauthorized:   !anonymous,
				http.StatusConflict:       ep.Tenant || ep.Idempotent,
				http.StatusNotImplemented: ep.Handle == nil,
				// Past-due enforcement refuses a tenant's writes.
				http.StatusPaymentRequired: ep.Tenant && !httpapi.IsSafeMethod(ep.Method) && !ep.PastDueOK,
				http.StatusForbidden: ep.Tenant || httpapi.EndpointScope(ep) != "" || ep.Permission != "" || ep.Module != "" ||
					(!ep.Public && !httpapi.IsSafeMethod(ep.Method)),
			}
			if op.RequestBody != nil {
				wantStatus[http.StatusRequestEntityTooLarge] = true
			}
			// Any operation refuses a query parameter it does not take.
			wantStatus[http.StatusBadRequest] = true
			var documented []string
			for _, p := range op.Parameters {
				if p.Value.In == openapi3.ParameterInQuery {
					documented = append(documented, p.Value.Name)
				}
			}
			if !slices.Equal(documented, ep.Query) {
				t.Errorf("query parameters documented %v, taken %v", documented, ep.Query)
			}
			for status, want := range wantStatus {
				got := op.Responses.Status(status) != nil
				if status == http.StatusConflict && ep.Operator != "" && got {
					// Operator changes may conflict with state (a tenant's
					// last owner) without an idempotency key or a tenant.
					continue
				}
				if got != want {
					t.Errorf("response %d documented = %v, want %v", status, got, want)
				}
			}
		})
	}
}

// securityNames lists the scheme names of each alternative, sorted.
func securityNames(reqs openapi3.SecurityRequirements) [][]string {
	out := make([][]string, 0, len(reqs))
	for _, req := range reqs {
		var names []string
		for name := range req {
			names = append(names, name)
		}
		slices.Sort(names)
		out = append(out, names)
	}
	return out
}

// equalJSON compares decoded JSON values: strings and lists of strings.
func equalJSON(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case []any:
		g, ok := got.([]any)
		return ok && slices.Equal(g, w)
	default:
		return got == want
	}
}

func TestOpenAPIServed(t *testing.T) {
	h := newDocsAPI(t).Handler()
	get := func(header map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/api/openapi.json", nil)
		for k, v := range header {
			r.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	first := get(nil)
	etag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || first.Body.String() != string(httpapi.OpenAPIDocument()) {
		t.Fatalf("GET /api/openapi.json = %d, %d bytes; want 200 and the embedded document", first.Code, first.Body.Len())
	}
	if etag == "" || first.Header().Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("ETag %q, Cache-Control %q", etag, first.Header().Get("Cache-Control"))
	}
	tests := []struct {
		name        string
		ifNoneMatch string
		want        int
	}{
		{"Matching", etag, http.StatusNotModified},
		{"Weak", "W/" + etag, http.StatusNotModified},
		{"Stale", `"stale"`, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := get(map[string]string{"If-None-Match": tt.ifNoneMatch}).Code; got != tt.want {
				t.Fatalf("status = %d, want %d", got, tt.want)
			}
		})
	}
}
