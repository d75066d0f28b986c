package contract_test

import (
	"context"
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

const tenantA = "ten_00000000000000000000000001"

// The tenancy services implement what the contract service consumes; the
// fakes stand in for them in tests that must fail before they are asked.
var (
	_ contract.Entitlements = (*tenancy.Entitlements)(nil)
	_ contract.Notifier     = (*tenancy.Notifications)(nil)
	_ contract.Entitlements = failingTenancy{}
	_ contract.Notifier     = failingTenancy{}
)

var errNoTenancy = errors.New("fake: no tenancy here")

// failingTenancy answers every call with errNoTenancy, for tests that must
// fail before tenancy is consulted.
type failingTenancy struct{}

func (failingTenancy) State(context.Context, string, string) (tenancy.EntitlementState, error) {
	return tenancy.EntitlementState{}, errNoTenancy
}

func (failingTenancy) Notify(context.Context, string, tenancy.NewNotification) (tenancy.Notification, error) {
	return tenancy.Notification{}, errNoTenancy
}

// direct runs fn without a transaction, for services whose stores are
// never reached.
type direct struct{}

func (direct) InTx(ctx context.Context, fn func(ctx context.Context) error) error { return fn(ctx) }

// testNow is the clock of the terms tests unless a test moves it.
func testNow() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC) }

// now is the clock of the request and preview tests.
func now() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }

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

// env is the contract service wired as the server wires it, on a fresh
// database, with one clock for it and tenancy's services.
type env struct {
	db    *bun.DB
	ten   *tenancy.Services
	svc   *contract.Service
	clock *clock
}

// eachEnv runs fn on SQLite and Postgres with a fresh env whose clock
// reads testNow.
func eachEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	eachEnvAt(t, testNow(), fn)
}

// eachContractEnv runs fn on SQLite and Postgres with a fresh env whose
// clock reads now: 21 Nov 2026 10:00 UTC.
func eachContractEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	eachEnvAt(t, now(), fn)
}

func eachEnvAt(t *testing.T, start time.Time, fn func(t *testing.T, e *env)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		c := &clock{now: start}
		store, tx := bunstore.New(db), database.NewTransactor(db)
		ten := tenancy.New(store.Stores(), tx, catalog.Default(), tenancy.WithClock(c.Now))
		svc := contract.NewService(store.ContractStores(), ten.Entitlements, ten.Notifications, tx, catalog.Default(), contract.WithClock(c.Now))
		fn(t, &env{db: db, ten: ten, svc: svc, clock: c})
	}, bunstore.Migrations())
}

// mustTenantWithMembers creates a tenant on plan with an owner and
// members-1 more members, and returns it with the owner.
func (e *env) mustTenantWithMembers(tb testing.TB, plan string, members int) (tenancy.Tenant, tenancy.User) {
	tb.Helper()
	ctx := context.Background()
	x := id.New("x")
	slug := "t-" + x[len(x)-16:] // the ULID's random part: unique within a millisecond too
	tn, err := e.ten.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: slug, Name: "Acme", PlanID: plan})
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
func (e *env) mustMember(tb testing.TB, tenantID string, role tenancy.Role) tenancy.User {
	tb.Helper()
	ctx := context.Background()
	u, err := e.ten.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: id.New("u")[2:] + "@example.com", Name: "Someone"})
	if err != nil {
		tb.Fatalf("CreateUser: %v", err)
	}
	if _, err := e.ten.Members.Add(ctx, tenantID, u.Email, role); err != nil {
		tb.Fatalf("AddMember: %v", err)
	}
	return u
}

func (e *env) mustSubmit(tb testing.TB, tenantID, userID string, in contract.SubmitInput) contract.Request {
	tb.Helper()
	req, err := e.svc.Submit(context.Background(), tenantID, userID, in)
	if err != nil {
		tb.Fatalf("Submit(%+v): %v", in, err)
	}
	return req
}

// mustContract returns the tenant's current terms.
func (e *env) mustContract(tb testing.TB, tenantID string) contract.Terms {
	tb.Helper()
	c, err := e.svc.Current(context.Background(), tenantID)
	if err != nil {
		tb.Fatalf("Current: %v", err)
	}
	return c
}

// mustLimit returns the tenant's limit of feature, -1 for unlimited.
func (e *env) mustLimit(tb testing.TB, tenantID, feature string) int64 {
	tb.Helper()
	ent, err := e.ten.Entitlements.Get(context.Background(), tenantID, feature)
	if err != nil {
		tb.Fatalf("Entitlements.Get: %v", err)
	}
	if ent.Limit == nil {
		return -1
	}
	return *ent.Limit
}

// contractNotes returns the tenant's contract_request.updated
// notifications, newest first.
func (e *env) contractNotes(tb testing.TB, tenantID string) []tenancy.Notification {
	tb.Helper()
	ns, _, err := e.ten.Notifications.List(context.Background(), tenantID, tenancy.NotificationFilter{Limit: 100})
	if err != nil {
		tb.Fatalf("Notifications.List: %v", err)
	}
	var out []tenancy.Notification
	for _, n := range ns {
		if n.Type == tenancy.NotificationContractRequestUpdated {
			out = append(out, n)
		}
	}
	return out
}

// unique returns a fresh lower-case token for slugs and emails.
func unique() string { return strings.ReplaceAll(id.New("x"), "_", "-") }

func mustTenant(tb testing.TB, ten *tenancy.Services, plan string) tenancy.Tenant {
	tb.Helper()
	t, err := ten.Directory.CreateTenant(context.Background(), tenancy.CreateTenantInput{Slug: "t-" + unique(), Name: "Acme", PlanID: plan})
	if err != nil {
		tb.Fatalf("CreateTenant(%s): %v", plan, err)
	}
	return t
}

func mustUser(tb testing.TB, ten *tenancy.Services) tenancy.User {
	tb.Helper()
	u, err := ten.Directory.CreateUser(context.Background(), tenancy.CreateUserInput{Email: unique() + "@example.com", Name: "Ada"})
	if err != nil {
		tb.Fatalf("CreateUser: %v", err)
	}
	return u
}

func mustMember(tb testing.TB, ten *tenancy.Services, tenantID string, u tenancy.User, role tenancy.Role) {
	tb.Helper()
	if _, err := ten.Members.Add(context.Background(), tenantID, u.Email, role); err != nil {
		tb.Fatalf("AddMember(%s, %s, %s): %v", tenantID, u.Email, role, err)
	}
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
	got := slices.Sorted(maps.Keys(fieldErrors(tb, err)))
	slices.Sort(fields)
	if !slices.Equal(got, fields) {
		tb.Fatalf("%s: got invalid fields %v, want %v", what, got, fields)
	}
}

// fieldErrors returns the field errors of err, failing unless err is a
// *tenancy.InvalidError that matches tenancy.ErrInvalid.
func fieldErrors(tb testing.TB, err error) map[string]string {
	tb.Helper()
	var ie *tenancy.InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, tenancy.ErrInvalid) {
		tb.Fatalf("got error %v, want an *InvalidError", err)
	}
	return ie.FieldErrors()
}

func ptr(n int64) *int64 { return &n }

func str(s string) *string { return &s }

func mustEntitlement(tb testing.TB, ten *tenancy.Services, tenantID, feature string) tenancy.Entitlement {
	tb.Helper()
	e, err := ten.Entitlements.Get(context.Background(), tenantID, feature)
	if err != nil {
		tb.Fatalf("Entitlements.Get(%s, %s): %v", tenantID, feature, err)
	}
	return e
}
