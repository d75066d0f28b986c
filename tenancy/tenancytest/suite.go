// Package tenancytest is the conformance suite of tenancy's store
// interfaces, one suite function per interface: RunDirectory (for
// tenancy.DirectoryStore), RunMembers, RunIndex, RunKeys,
// RunEntitlements, RunModules, RunNotifications, RunContracts (for
// contract.Store), RunBilling (for contract.PeriodStore and
// contract.InvoiceStore), RunOperatorKeys (for operator.KeyStore),
// RunSessions and RunSettings. Every implementation runs them against a
// real backend, so that the services can rely on what the interfaces
// document, whatever sits behind them:
//
//	func TestMyStore(t *testing.T) {
//		newBackend := func(t *testing.T) tenancytest.Backend { return newMyBackend(t) }
//		t.Run("Directory", func(t *testing.T) { tenancytest.RunDirectory(t, newBackend) })
//		t.Run("Keys", func(t *testing.T) { tenancytest.RunKeys(t, newBackend) })
//		// …
//	}
package tenancytest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// Backend is one implementation of tenancy's stores, on one database,
// with the Transactor whose transactions they join. A suite checks one of
// the stores and creates the tenants, users and members its rows belong
// to through the DirectoryStore; RunEntitlements also writes contract
// terms (the add-ons the entitlement state reads) through Contracts, and
// RunContracts sets module switches through the ModuleStore. A store a
// suite does not use may be left nil.
type Backend struct {
	tenancy.DirectoryStore
	tenancy.MemberStore
	tenancy.IndexStore
	tenancy.KeyStore
	tenancy.EntitlementStore
	tenancy.ModuleStore
	tenancy.NotificationStore
	tenancy.SessionStore
	tenancy.SettingsStore
	// Contracts keeps contract terms and change requests; RunContracts
	// checks it, and EntitlementState reads the add-ons it writes.
	Contracts contract.Store
	// Periods keeps each tenant's billed-through mark, its periods'
	// records and a test tenant's clock; RunBilling checks it.
	Periods contract.PeriodStore
	// Invoices keeps the platform invoices; RunBilling checks it.
	Invoices contract.InvoiceStore
	// OperatorKeys keeps operator API keys; RunOperatorKeys checks it.
	OperatorKeys operator.KeyStore
	// Tx runs the transactions the stores must join.
	Tx tenancy.Transactor
}

// subtest is one case of a suite.
type subtest struct {
	name string
	fn   func(t *testing.T, s Backend)
}

// run runs the cases, each on a backend of its own from newBackend. The
// backends may share one database, because the suites key all their data
// uniquely (fresh ids, slugs and emails) and never count rows beyond the
// tenants they created; RunContracts and RunBilling ask for more.
func run(t *testing.T, newBackend func(t *testing.T) Backend, tests []subtest) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newBackend(t)) })
	}
}

// at returns the suite's clock: minutes after a fixed instant, in whole
// seconds so that every backend stores it exactly.
func at(minutes int) time.Time {
	return time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
}

// unique returns a fresh lower-case token for slugs and emails.
func unique() string {
	return strings.ReplaceAll(id.New("x"), "_", "-")
}

func mustTenant(tb testing.TB, s tenancy.DirectoryStore) tenancy.Tenant {
	tb.Helper()
	return mustTenantSlug(tb, s, "t-"+unique())
}

func mustTenantSlug(tb testing.TB, s tenancy.DirectoryStore, slug string) tenancy.Tenant {
	tb.Helper()
	t := tenancy.Tenant{ID: id.New(id.Tenant), Slug: slug, Name: "Tenant " + slug, PlanID: "free", Seats: 2, CreatedAt: at(0)}
	if err := s.CreateTenant(context.Background(), t); err != nil {
		tb.Fatalf("CreateTenant(%s): %v", slug, err)
	}
	return t
}

func mustUser(tb testing.TB, s tenancy.DirectoryStore) tenancy.User {
	tb.Helper()
	u := tenancy.User{ID: id.New(id.User), Email: unique() + "@example.com", Name: "Someone", CreatedAt: at(0)}
	if err := s.CreateUser(context.Background(), u); err != nil {
		tb.Fatalf("CreateUser(%s): %v", u.Email, err)
	}
	return u
}

func mustMember(tb testing.TB, s tenancy.DirectoryStore, tenantID, userID string, role tenancy.Role) tenancy.Membership {
	tb.Helper()
	m := tenancy.Membership{TenantID: tenantID, UserID: userID, Role: role, CreatedAt: at(0)}
	if err := s.AddMembership(context.Background(), m); err != nil {
		tb.Fatalf("AddMembership(%s, %s): %v", tenantID, userID, err)
	}
	return m
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
