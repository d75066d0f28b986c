package tenancy_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// testNow is the service clock of the tests unless a test moves it.
func testNow() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC) }

// clock is a settable clock for the services under test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// env is one test's services on a fresh, migrated database.
type env struct {
	db    *bun.DB
	store *bunstore.Store
	svc   *tenancy.Services
	// contracts changes a tenant's terms, which the entitlements follow.
	contracts *contract.Service
	clock     *clock
}

// eachEnv runs fn on SQLite and on Postgres, each with a fresh env.
func eachEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		c := &clock{now: testNow()}
		store := bunstore.New(db)
		tx := database.NewTransactor(db)
		svc := tenancy.New(store.Stores(), tx, catalog.Default(), tenancy.WithClock(c.Now))
		contracts := contract.NewService(store.ContractStores(), svc.Entitlements, svc.Notifications, tx, catalog.Default(), contract.WithClock(c.Now))
		fn(t, &env{db: db, store: store, svc: svc, contracts: contracts, clock: c})
	}, bunstore.Migrations())
}

// unique returns a fresh lower-case token for slugs and emails.
func unique() string { return strings.ReplaceAll(id.New("x"), "_", "-") }

func mustTenant(tb testing.TB, svc *tenancy.Services, plan string) tenancy.Tenant {
	tb.Helper()
	t, err := svc.Directory.CreateTenant(context.Background(), tenancy.CreateTenantInput{Slug: "t-" + unique(), Name: "Acme", PlanID: plan})
	if err != nil {
		tb.Fatalf("CreateTenant(%s): %v", plan, err)
	}
	return t
}

func mustUser(tb testing.TB, svc *tenancy.Services) tenancy.User {
	tb.Helper()
	u, err := svc.Directory.CreateUser(context.Background(), tenancy.CreateUserInput{Email: unique() + "@example.com", Name: "Ada"})
	if err != nil {
		tb.Fatalf("CreateUser: %v", err)
	}
	return u
}

func mustMember(tb testing.TB, svc *tenancy.Services, tenantID string, u tenancy.User, role tenancy.Role) {
	tb.Helper()
	if _, err := svc.Members.Add(context.Background(), tenantID, u.Email, role); err != nil {
		tb.Fatalf("AddMember(%s, %s, %s): %v", tenantID, u.Email, role, err)
	}
}

func mustKey(tb testing.TB, svc *tenancy.Services, in tenancy.CreateAPIKeyInput) (tenancy.APIKey, string) {
	tb.Helper()
	k, secret, err := svc.Keys.Create(context.Background(), in)
	if err != nil {
		tb.Fatalf("CreateAPIKey(%+v): %v", in, err)
	}
	return k, secret
}

func mustNotifications(tb testing.TB, svc *tenancy.Services, tenantID string, f tenancy.NotificationFilter) []tenancy.Notification {
	tb.Helper()
	ns, _, err := svc.Notifications.List(context.Background(), tenantID, f)
	if err != nil {
		tb.Fatalf("Notifications(%s): %v", tenantID, err)
	}
	return ns
}

func mustEntitlement(tb testing.TB, svc *tenancy.Services, tenantID, feature string) tenancy.Entitlement {
	tb.Helper()
	e, err := svc.Entitlements.Get(context.Background(), tenantID, feature)
	if err != nil {
		tb.Fatalf("Entitlement(%s, %s): %v", tenantID, feature, err)
	}
	return e
}

// wantErr fails unless err matches want (nil for success).
func wantErr(tb testing.TB, what string, err, want error) {
	tb.Helper()
	switch {
	case want == nil && err != nil:
		tb.Fatalf("%s: got error %v, want none", what, err)
	case want != nil && !errors.Is(err, want):
		tb.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// wantFields fails unless err is an InvalidError naming exactly fields.
func wantFields(tb testing.TB, what string, err error, fields ...string) {
	tb.Helper()
	var inv *tenancy.InvalidError
	if !errors.As(err, &inv) || !errors.Is(err, tenancy.ErrInvalid) {
		tb.Fatalf("%s: got error %v, want an InvalidError on %v", what, err, fields)
	}
	got := slices.Sorted(maps.Keys(inv.FieldErrors()))
	slices.Sort(fields)
	if !slices.Equal(got, fields) {
		tb.Fatalf("%s: got invalid fields %v, want %v", what, got, fields)
	}
}

// jsonOf encodes v for comparisons that must not depend on Go types
// (json.Number against int).
func jsonOf(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("encode %T: %v", v, err)
	}
	return string(b)
}

func ptr(n int64) *int64 { return &n }
