package tenantkit_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	billingstore "github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	outboundstore "github.com/tenantkit/tenantkit/webhook/outbound/bunstore"
)

// keysMigration is the first migration that keys tables by tenant first.
const keysMigration = "20261129001000"

// before returns the migrations of src older than keysMigration.
func before(t *testing.T, src fs.FS) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		if name >= keysMigration {
			return nil
		}
		b, err := fs.ReadFile(src, path)
		out[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTenantKeysMigrateExistingData: a database holding webhooks (an
// endpoint, a delivery, its attempts), a platform event, a platform
// invoice and a hosted token before the tables were keyed by tenant keeps
// every row through the migrations, on both dialects: the attempts take
// their delivery's tenant, the platform event an empty tenant_id, and the
// tenant's count of enabled endpoints stays what it was.
func TestTenantKeysMigrateExistingData(t *testing.T) {
	var old []database.Source
	for _, src := range tenantkit.Schema() {
		old = append(old, before(t, src))
	}
	for _, dialect := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", dbtest.SQLiteURL}, {"postgres", dbtest.PostgresURL}} {
		t.Run(dialect.name, func(t *testing.T) { migrateExistingData(t, dialect.url(t), old) })
	}
}

// migrateExistingData migrates the database at rawURL with old, writes
// rows of the tables the keys migrations change, and migrates the rest.
// (dbtest.Each would watch the migrations' statements with its tenant
// guard.)
func migrateExistingData(t *testing.T, rawURL string, old []database.Source) {
	ctx := context.Background()
	db, err := database.Open(ctx, rawURL, dbtest.Options())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := database.Migrate(ctx, db, old...); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	const ten, ep, dl = "ten_01jd3k5q8r9s0t1v2w3x4y5zaa", "wep_01jd3k5q8r9s0t1v2w3x4y5zaa", "whd_01jd3k5q8r9s0t1v2w3x4y5zaa"
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO tenants (id, slug, name, plan_id, seats, created_at) VALUES (?, 'acme', 'Acme', 'growth', 5, ?)`, ten, now)
	exec(`INSERT INTO webhook_endpoints (id, tenant_id, url, description, event_types, enabled, disabled_reason, secret,
			previous_secret, created_at, updated_at) VALUES (?, ?, 'https://hooks.example.com', '', '[]', TRUE, '', 'sealed', '', ?, ?)`, ep, ten, now, now)
	exec(`INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, status, payload, attempt_count,
			round_start, created_at, updated_at) VALUES (?, ?, ?, 'evt_01jd3k5q8r9s0t1v2w3x4y5zaa', 'invoice.paid', 'pending', '{}', 2, 0, ?, ?)`,
		dl, ten, ep, now, now)
	for n := 1; n <= 2; n++ {
		exec(`INSERT INTO webhook_attempts (delivery_id, number, status, http_status, latency_ms, response, attempted_at)
				VALUES (?, ?, 'failed', 500, 12, 'oops', ?)`, dl, n, now)
	}
	exec(`INSERT INTO events (id, tenant_id, type, actor_type, actor_id, credential_id, auth_method, client_ip, request_id,
			resource_type, resource_id, data, created_at) VALUES ('evt_01jd3k5q8r9s0t1v2w3x4y5zbb', NULL, 'user.created', 'cli', '', '', 'cli', '', '',
			'user', 'usr_01jd3k5q8r9s0t1v2w3x4y5zaa', '{}', ?)`, now)
	exec(`INSERT INTO platform_invoices (id, tenant_id, number, period_start, period_end, currency, lines, subtotal, total,
			amount_paid, status, due_date, created_at) VALUES ('pin_01jd3k5q8r9s0t1v2w3x4y5zaa', ?, 7, ?, ?, 'USD', '[]', 100, 100, 0, 'open', ?, ?)`,
		ten, now, now, now, now)
	invoices := billingstore.New(db)
	inv := billing.Invoice{ID: "inv_01jd3k5q8r9s0t1v2w3x4y5zaa", TenantID: ten, Status: billing.StatusOpen, Number: "INV-000001",
		Customer: billing.Customer{Name: "Ada", Email: "ada@example.com", Locale: "en"}, Currency: "USD",
		LineItems: []billing.LineItem{}, Metadata: map[string]string{}, CreatedAt: now}
	if err := invoices.CreateInvoice(ctx, inv); err != nil {
		t.Fatal(err)
	}
	if err := invoices.IssueHostedTokens(ctx, ten, map[string]string{inv.ID: "hash-1"}); err != nil {
		t.Fatal(err)
	}

	if _, err := tenantkit.Migrate(ctx, db); err != nil {
		t.Fatalf("migrate the rest: %v", err)
	}
	var attemptTenants []string
	if err := db.NewRaw("SELECT tenant_id FROM webhook_attempts ORDER BY number").Scan(ctx, &attemptTenants); err != nil {
		t.Fatal(err)
	}
	if len(attemptTenants) != 2 || attemptTenants[0] != ten || attemptTenants[1] != ten {
		t.Errorf("the attempts' tenants: %v, want %s twice", attemptTenants, ten)
	}
	ds, _, err := outboundstore.New(db).Deliveries(ctx, ten, ep, outbound.Page{Limit: 10})
	if err != nil || len(ds) != 1 || len(ds[0].Attempts) != 2 {
		t.Errorf("the endpoint's deliveries after: %+v, %v; want one with 2 attempts", ds, err)
	}
	var platformTenant string
	if err := db.NewRaw("SELECT tenant_id FROM events WHERE id = 'evt_01jd3k5q8r9s0t1v2w3x4y5zbb'").Scan(ctx, &platformTenant); err != nil || platformTenant != "" {
		t.Errorf("the platform event's tenant_id: %q, %v; want ''", platformTenant, err)
	}
	var counted, pins int
	if err := db.NewRaw("SELECT enabled_webhook_endpoints FROM tenants").Scan(ctx, &counted); err != nil || counted != 1 {
		t.Errorf("enabled endpoints counted: %d, %v; want 1", counted, err)
	}
	if err := db.NewRaw("SELECT count(*) FROM platform_invoices WHERE number = 7").Scan(ctx, &pins); err != nil || pins != 1 {
		t.Errorf("platform invoices: %d, %v", pins, err)
	}
	if tenantID, invoiceID, err := invoices.HostedInvoice(ctx, "hash-1"); err != nil || tenantID != ten || invoiceID != inv.ID {
		t.Errorf("hosted token after: %s %s %v", tenantID, invoiceID, err)
	}
}
