package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The edge benchmarks measure what the HTTP edge costs per request: the
// middleware of Wrap and of a route's chain, with the access log written
// (to io.Discard, at info level, as cmd/server's logger) and the metrics
// recorded, around GET /api/v1/collections/invoices/{id}.
//
//	go test -run '^$' -bench 'Edge|GetInvoice' -benchmem ./httpapi/

// BenchmarkEdge serves GET invoice over in-memory services, so that
// nothing but httpapi's own code (and the JSON of a small invoice) is
// measured.
func BenchmarkEdge(b *testing.B) {
	inv := billing.Invoice{
		ID: id.New(id.Invoice), TenantID: "ten_1", Number: "INV-000001", Status: billing.StatusOpen,
		Currency: "USD", LineItems: []billing.LineItem{}, Metadata: map[string]string{},
		CreatedAt: time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC),
	}
	cfg := edgeConfig(b, inv)
	api, err := httpapi.New(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	h := api.Handler()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/collections/invoices/"+inv.ID, nil)
	req.Header.Set("Authorization", "Bearer "+tenancy.KeyPrefix+"benchsecret")
	req.RemoteAddr = "192.0.2.1:1234"

	serveEdge(b, h, req)
}

// BenchmarkGetInvoice serves GET invoice from the API as the tests build
// it, on SQLite: the edge and the database together.
func BenchmarkGetInvoice(b *testing.B) {
	db := dbtest.SQLite(b, migrations()...)
	e := newEnv(b, db, func(cfg *httpapi.Config) {
		cfg.Logger = zerolog.New(io.Discard).Level(zerolog.InfoLevel).With().Timestamp().Logger()
		cfg.Metrics = prometheus.NewRegistry()
	})
	acme := map[string]string{"X-Tenant-ID": e.acme.ID}
	inv := e.do(b, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll,
		header: acme, body: invoiceBody("USD", `{"description":"Seat","quantity":1,"unit_amount":1000,"tax_rate_bps":0}`)})
	if inv.status != http.StatusCreated {
		b.Fatalf("create invoice: %d %s", inv.status, inv.body)
	}
	h := e.api.Handler()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/collections/invoices/"+inv.json(b)["id"].(string), nil)
	req.Header.Set("Authorization", "Bearer "+e.keyAll)
	req.Header.Set("X-Tenant-ID", e.acme.ID)
	req.RemoteAddr = "192.0.2.1:1234"

	serveEdge(b, h, req)
}

// serveEdge serves req b.N times, checking the first answer.
func serveEdge(b *testing.B, h http.Handler, req *http.Request) {
	b.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("status = %d, want 200; body %s", w.Code, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		h.ServeHTTP(discardWriter{header: http.Header{}}, req)
	}
}

// discardWriter is a ResponseWriter that keeps nothing, so that the
// benchmark measures the handler rather than httptest's recorder.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) WriteHeader(int)             {}

// edgeConfig is a Config whose services answer GET invoice from memory:
// one API key of a user who owns the tenant, with the invoices module on.
func edgeConfig(tb testing.TB, inv billing.Invoice) httpapi.Config {
	tb.Helper()
	user := tenancy.User{ID: "usr_1", Email: "owner@example.com", Name: "Owner"}
	m := tenancy.Membership{TenantID: inv.TenantID, UserID: user.ID, Role: tenancy.RoleOwner}
	return httpapi.Config{
		Directory:     memDirectory{m: m},
		Keys:          memKeys{key: tenancy.APIKey{ID: "key_1", UserID: user.ID, Scopes: tenancy.Scopes()}, user: user},
		Entitlements:  memEntitlements{m: m},
		Modules:       memModules{},
		Notifications: memNotifications{},
		Catalog:       catalog.Default(),
		Billing:       memInvoices{inv: inv},
		RateLimiter:   httpapi.NewMemoryRateLimiter(1e9, 1e9),
		Metrics:       prometheus.NewRegistry(),
		Logger:        zerolog.New(io.Discard).Level(zerolog.InfoLevel).With().Timestamp().Logger(),
	}
}

// The in-memory services embed their interface for the methods GET
// invoice never calls (calling one panics).
type (
	memDirectory struct {
		httpapi.Directory
		m tenancy.Membership
	}
	memKeys struct {
		key  tenancy.APIKey
		user tenancy.User
	}
	memEntitlements struct {
		httpapi.Entitlements
		m tenancy.Membership
	}
	memModules       struct{ httpapi.Modules }
	memNotifications struct{ httpapi.Notifications }
	memInvoices      struct {
		httpapi.Invoices
		inv billing.Invoice
	}
)

func (d memDirectory) ResolveTenant(context.Context, tenancy.Credential, string) (tenancy.Membership, error) {
	return d.m, nil
}

func (k memKeys) Authenticate(context.Context, string) (tenancy.APIKey, tenancy.User, error) {
	return k.key, k.user, nil
}

func (e memEntitlements) ResolveTenantState(context.Context, tenancy.Credential, string, bool) (tenancy.Membership, tenancy.EntitlementState, error) {
	return e.m, tenancy.EntitlementState{}, nil
}

func (e memEntitlements) RequireModule(context.Context, string, string) error { return nil }

func (i memInvoices) Get(_ context.Context, tenantID, invoiceID string) (billing.Invoice, error) {
	if tenantID != i.inv.TenantID || invoiceID != i.inv.ID {
		return billing.Invoice{}, billing.ErrNotFound
	}
	return i.inv, nil
}
