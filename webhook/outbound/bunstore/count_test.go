package bunstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/bunstore"
)

// TestEnabledEndpointCount: whatever changes a tenant's endpoints, and
// however many change at once, the count on the tenant row (which the
// entitlement state reads, tenancy.EntitlementState.WebhookEndpoints)
// stays the number of its enabled endpoints, and another tenant's is
// untouched.
func TestEnabledEndpointCount(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		s, tenants, tx := bunstore.New(db), tenancystore.New(db), database.NewTransactor(db)
		newTenant := func() string {
			tid := id.New(id.Tenant)
			if _, err := db.ExecContext(ctx, "INSERT INTO tenants (id, slug, name, plan_id, seats, created_at) VALUES (?, ?, 'T', 'starter', 1, ?)",
				tid, tid, time.Now().UTC()); err != nil {
				t.Fatalf("insert tenant: %v", err)
			}
			return tid
		}
		tenant, other := newTenant(), newTenant()
		check := func(step, tenantID string) {
			t.Helper()
			st, err := tenants.EntitlementState(ctx, tenantID, tenancy.StateQuery{})
			if err != nil {
				t.Fatalf("%s: EntitlementState: %v", step, err)
			}
			var want int
			if err := db.NewSelect().TableExpr("webhook_endpoints").ColumnExpr("count(*)").
				Where("tenant_id = ?", tenantID).Where("enabled").Scan(ctx, &want); err != nil {
				t.Fatalf("%s: count: %v", step, err)
			}
			if st.WebhookEndpoints != want {
				t.Fatalf("%s: WebhookEndpoints = %d, want %d (the enabled endpoints)", step, st.WebhookEndpoints, want)
			}
		}
		// each runs fn for every i in [0, n) at once, each in a transaction.
		each := func(step string, n int, fn func(ctx context.Context, i int) error) {
			t.Helper()
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				wg.Go(func() {
					errs <- tx.InTx(ctx, func(ctx context.Context) error { return fn(ctx, i) })
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
			}
		}
		const n = 8
		eps := make([]outbound.StoredEndpoint, n)
		each("create", n, func(ctx context.Context, i int) error {
			now := time.Now().UTC()
			eps[i] = outbound.StoredEndpoint{Endpoint: outbound.Endpoint{ID: id.New(id.WebhookEndpoint), TenantID: tenant,
				URL: fmt.Sprintf("https://hooks.example.com/%d", i), EventTypes: []string{},
				Enabled: i != 0, CreatedAt: now, UpdatedAt: now}, Secret: "sealed"}
			return s.CreateEndpoint(ctx, eps[i])
		})
		check("created 7 enabled, 1 disabled", tenant)
		check("other tenant", other)
		if st, _ := tenants.EntitlementState(ctx, tenant, tenancy.StateQuery{}); st.WebhookEndpoints != n-1 {
			t.Fatalf("WebhookEndpoints = %d, want %d", st.WebhookEndpoints, n-1)
		}
		each("update", n, func(ctx context.Context, i int) error {
			switch i % 4 {
			case 0: // enable the disabled one
				eps[i].Enabled = true
				return s.UpdateEndpoint(ctx, eps[i])
			case 1: // an update that leaves enabled as it was
				eps[i].Description = "renamed"
				return s.UpdateEndpoint(ctx, eps[i])
			case 2: // disabled by the delivery worker
				_, err := s.DisableEndpoint(ctx, eps[i].ID, "failing", time.Now())
				return err
			default:
				return s.DeleteEndpoint(ctx, tenant, eps[i].ID)
			}
		})
		check("after concurrent updates, disables and deletes", tenant)
		if st, _ := tenants.EntitlementState(ctx, tenant, tenancy.StateQuery{}); st.WebhookEndpoints != 4 {
			t.Fatalf("WebhookEndpoints = %d, want 4 (0, 1, 4, 5 enabled; 2, 6 disabled; 3, 7 deleted)", st.WebhookEndpoints)
		}
		check("other tenant", other)
	}, tenancystore.Migrations(), bunstore.Migrations())
}
