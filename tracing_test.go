package tenantkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestTracing: with a TracerProvider, creating an invoice over HTTP makes
// one server span named by its route template, carrying the tenant,
// request and credential ids and no secret, and in its trace one span for
// each statement the request ran (bunotel); the access log line carries
// the trace id.
func TestTracing(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, _ *tenantkit.App) {
		ctx := context.Background()
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		db.AddQueryHook(bunotel.NewQueryHook(bunotel.WithTracerProvider(tp), bunotel.WithMeterProvider(metricnoop.NewMeterProvider())))
		statements := &hookLog{}
		db.AddQueryHook(statements)
		app, err := tenantkit.New(db, catalog.Default(), tenantkit.WithTracerProvider(tp))
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		cfg := app.HTTPConfig()
		cfg.Logger = zerolog.New(&logs)
		api, err := httpapi.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api.Handler())
		defer srv.Close()
		tn, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Tenancy.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "ann@acme.example", Name: "Ann"}); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Tenancy.Members.Add(ctx, "acme", "ann@acme.example", tenancy.RoleOwner); err != nil {
			t.Fatal(err)
		}
		apiKey, secret, err := app.Tenancy.Keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: "ann@acme.example", Tenant: "acme",
			Scopes: []tenancy.Scope{tenancy.ScopeCollectionsWrite}})
		if err != nil {
			t.Fatal(err)
		}
		rec.Reset()
		statements.take()

		req, _ := http.NewRequest("POST", srv.URL+"/api/v1/collections/invoices", strings.NewReader(
			`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"EUR",`+
				`"line_items":[{"description":"Consulting","quantity":2,"unit_amount":5000}]}`))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create invoice: %s", resp.Status)
		}
		ran := statements.take()

		var server sdktrace.ReadOnlySpan
		children := 0
		spans := rec.Ended()
		for _, s := range spans {
			if s.SpanKind() == trace.SpanKindServer {
				if server != nil {
					t.Fatalf("two server spans: %q and %q", server.Name(), s.Name())
				}
				server = s
			}
		}
		if server == nil {
			t.Fatalf("no server span among %d spans", len(spans))
		}
		if want := "POST /api/v1/collections/invoices"; server.Name() != want {
			t.Errorf("server span %q, want %q", server.Name(), want)
		}
		attrs := map[string]string{}
		for _, kv := range server.Attributes() {
			attrs[string(kv.Key)] = kv.Value.Emit()
			if strings.Contains(kv.Value.Emit(), secret) {
				t.Errorf("attribute %s carries the API key's secret", kv.Key)
			}
		}
		if attrs["tenantkit.tenant_id"] != tn.ID || attrs["tenantkit.request_id"] != resp.Header.Get("X-Request-ID") ||
			!strings.Contains(attrs["tenantkit.credential_id"], apiKey.ID) {
			t.Errorf("server span attributes %v: want tenant %s, request %s, credential with %s",
				attrs, tn.ID, resp.Header.Get("X-Request-ID"), apiKey.ID)
		}
		// Bun begins a transaction's COMMIT from its BEGIN's context: the
		// statements are the request's descendants, not all its children.
		for _, s := range spans {
			if s.SpanContext().TraceID() != server.SpanContext().TraceID() || s.SpanKind() != trace.SpanKindClient {
				continue
			}
			for _, kv := range s.Attributes() {
				if kv.Key == "db.statement" || kv.Key == "db.query.text" {
					children++
				}
			}
		}
		if children != len(ran) || children == 0 {

			t.Errorf("%d statement spans in the request's trace, the request ran %d statements:\n  %s",
				children, len(ran), strings.Join(ran, "\n  "))
		}

		var line struct {
			Route   string `json:"route"`
			TraceID string `json:"trace_id"`
		}
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			if err := json.Unmarshal([]byte(l), &line); err == nil && line.Route == "POST /api/v1/collections/invoices" {
				break
			}
		}
		if line.TraceID != server.SpanContext().TraceID().String() {
			t.Errorf("access log trace_id %q, want %s", line.TraceID, server.SpanContext().TraceID())
		}
	})
}

// TestTracingOffWithoutProvider: without WithTracerProvider the API gets
// no tracer, so it runs no tracing middleware at all (not one on a
// provider that records nothing).
func TestTracingOffWithoutProvider(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		if tp := app.HTTPConfig().Tracer; tp != nil {
			t.Fatalf("HTTPConfig().Tracer = %T, want nil without WithTracerProvider", tp)
		}
	})
}
