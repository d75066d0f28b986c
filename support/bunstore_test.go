package support_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/support/supporttest"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
)

// *tenancy.Entitlements is what the server passes as Entitlements.
var _ support.Entitlements = (*tenancy.Entitlements)(nil)

// world is support wired as the server wires it, on one database.
type world struct {
	db      *bun.DB
	tenancy *tenancy.Services
	store   *support.BunStore
	svc     *support.Service
}

func newWorld(tb testing.TB, db *bun.DB) *world {
	tb.Helper()
	w := &world{
		db:      db,
		tenancy: tenancy.New(bunstore.New(db).Stores(), database.NewTransactor(db), catalog.Default()),
		store:   support.NewBunStore(db),
	}
	w.svc = support.NewService(w.store, w.tenancy.Entitlements, w.inTx)
	return w
}

// inTx is the TxFunc the server passes: one transaction carried in ctx.
func (w *world) inTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return database.RunInTx(ctx, w.db, fn)
}

// mustTenant creates a tenant on plan and returns its id.
func mustTenant(tb testing.TB, ten *tenancy.Services, plan string) string {
	tb.Helper()
	slug := strings.ReplaceAll(id.New("t"), "_", "-")
	t, err := ten.Directory.CreateTenant(context.Background(), tenancy.CreateTenantInput{Slug: slug, Name: "Tenant " + slug, PlanID: plan})
	if err != nil {
		tb.Fatalf("CreateTenant(%s): %v", plan, err)
	}
	return t.ID
}

// mustUsage returns how many tickets the tenant has used this month.
func mustUsage(tb testing.TB, ten *tenancy.Services, tenantID string) int64 {
	tb.Helper()
	e, err := ten.Entitlements.Get(context.Background(), tenantID, catalog.FeatureTickets)
	if err != nil {
		tb.Fatalf("Entitlement(%s): %v", tenantID, err)
	}
	return e.Usage
}

func TestBunStoreConformance(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ten := tenancy.New(bunstore.New(db).Stores(), database.NewTransactor(db), catalog.Default())
		supporttest.Run(t, supporttest.Harness{
			NewStore: func(*testing.T) support.Store { return support.NewBunStore(db) },
			NewTenant: func(t *testing.T, _ support.Store) string {
				return mustTenant(t, ten, catalog.PlanEnterprise)
			},
		})
	}, bunstore.Migrations(), support.Migrations())
}

func TestBunStoreUnknownTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := support.NewBunStore(db)
		ghost := id.New(id.Tenant)
		if _, err := s.NextNumber(ctx, ghost); !errors.Is(err, support.ErrNotFound) {
			t.Errorf("NextNumber(unknown tenant) = %v, want ErrNotFound", err)
		}
		tk := support.Ticket{ID: id.New(id.Ticket), Number: 1, Subject: "s", Description: "d",
			Status: support.StatusOpen, Priority: support.PriorityNormal, Requester: requester()}
		if err := s.CreateTicket(ctx, ghost, tk); !errors.Is(err, support.ErrNotFound) {
			t.Errorf("CreateTicket(unknown tenant) = %v, want ErrNotFound", err)
		}
	}, bunstore.Migrations(), support.Migrations())
}
