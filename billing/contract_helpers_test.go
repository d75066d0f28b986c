package billing_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Both implement the interface contract requests consume.
var (
	_ billing.Tenancy = (*tenancy.Service)(nil)
	_ billing.Tenancy = failingTenancy{}
)

var errNoTenancy = errors.New("fake: no tenancy here")

// failingTenancy answers every call with errNoTenancy, for tests that must
// fail before tenancy is consulted.
type failingTenancy struct{}

func (failingTenancy) Catalog() *catalog.Catalog { return catalog.Default() }
func (failingTenancy) Contract(context.Context, string) (tenancy.Contract, error) {
	return tenancy.Contract{}, errNoTenancy
}
func (failingTenancy) ApplyContractChange(context.Context, string, tenancy.ContractChange) (tenancy.Contract, error) {
	return tenancy.Contract{}, errNoTenancy
}
func (failingTenancy) ContractUsage(context.Context, string) (tenancy.Contract, map[string]int64, error) {
	return tenancy.Contract{}, nil, errNoTenancy
}
func (failingTenancy) Notify(context.Context, string, tenancy.NewNotification) (tenancy.Notification, error) {
	return tenancy.Notification{}, errNoTenancy
}

// clock is a settable clock shared by the services of a test.
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

// contractEnv is billing with contracts wired as the server wires it, on a
// fresh database, with one clock for billing and tenancy.
type contractEnv struct {
	db    *bun.DB
	ten   *tenancy.Service
	svc   *billing.Service
	clock *clock
}

// eachContractEnv runs fn on SQLite and Postgres with a fresh env whose
// clock reads 21 Nov 2026 10:00 UTC.
func eachContractEnv(t *testing.T, fn func(t *testing.T, e *contractEnv)) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		c := &clock{now: now()}
		ten := tenancy.NewService(tenancy.NewBunStore(db), catalog.Default(), tenancy.WithClock(c.Now))
		tx := database.NewTransactor(db)
		store := bunstore.New(db)
		svc := billing.NewService(store, ten, tx, billing.WithClock(c.Now), billing.WithContracts(store, ten))
		fn(t, &contractEnv{db: db, ten: ten, svc: svc, clock: c})
	}, tenancy.Migrations(), bunstore.Migrations())
}

// mustTenantWithMembers creates a tenant on plan with an owner and
// members-1 more members, and returns it with the owner.
func (e *contractEnv) mustTenantWithMembers(tb testing.TB, plan string, members int) (tenancy.Tenant, tenancy.User) {
	tb.Helper()
	ctx := context.Background()
	x := id.New("x")
	slug := "t-" + x[len(x)-16:] // the ULID's random part: unique within a millisecond too
	tn, err := e.ten.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: slug, Name: "Acme", PlanID: plan})
	if err != nil {
		tb.Fatalf("CreateTenant: %v", err)
	}
	var owner tenancy.User
	for i := range members {
		u := e.mustMember(tb, tn.ID, tenancy.RoleMember)
		if i == 0 {
			owner = u
		}
	}
	return tn, owner
}

// mustMember adds a new user to the tenant.
func (e *contractEnv) mustMember(tb testing.TB, tenantID string, role tenancy.Role) tenancy.User {
	tb.Helper()
	ctx := context.Background()
	u, err := e.ten.CreateUser(ctx, tenancy.CreateUserInput{Email: id.New("u")[2:] + "@example.com", Name: "Someone"})
	if err != nil {
		tb.Fatalf("CreateUser: %v", err)
	}
	if _, err := e.ten.AddMember(ctx, tenantID, u.Email, role); err != nil {
		tb.Fatalf("AddMember: %v", err)
	}
	return u
}

func (e *contractEnv) mustSubmit(tb testing.TB, tenantID, userID string, in billing.SubmitContractRequestInput) billing.ContractRequest {
	tb.Helper()
	req, err := e.svc.SubmitContractRequest(context.Background(), tenantID, userID, in)
	if err != nil {
		tb.Fatalf("SubmitContractRequest(%+v): %v", in, err)
	}
	return req
}

// mustContract returns the tenant's contract.
func (e *contractEnv) mustContract(tb testing.TB, tenantID string) tenancy.Contract {
	tb.Helper()
	c, err := e.ten.Contract(context.Background(), tenantID)
	if err != nil {
		tb.Fatalf("Contract: %v", err)
	}
	return c
}

// mustLimit returns the tenant's limit of feature, -1 for unlimited.
func (e *contractEnv) mustLimit(tb testing.TB, tenantID, feature string) int64 {
	tb.Helper()
	ent, err := e.ten.Entitlement(context.Background(), tenantID, feature)
	if err != nil {
		tb.Fatalf("Entitlement: %v", err)
	}
	if ent.Limit == nil {
		return -1
	}
	return *ent.Limit
}

// contractNotes returns the tenant's contract_request.updated
// notifications, newest first.
func (e *contractEnv) contractNotes(tb testing.TB, tenantID string) []tenancy.Notification {
	tb.Helper()
	ns, _, err := e.ten.Notifications(context.Background(), tenantID, tenancy.NotificationFilter{Limit: 100})
	if err != nil {
		tb.Fatalf("Notifications: %v", err)
	}
	var out []tenancy.Notification
	for _, n := range ns {
		if n.Type == tenancy.NotificationContractRequestUpdated {
			out = append(out, n)
		}
	}
	return out
}

func str(s string) *string { return &s }
