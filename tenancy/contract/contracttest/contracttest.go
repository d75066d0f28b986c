// Package contracttest is the conformance suite of contract.Store. Every
// implementation runs it against a real backend, so that the contract
// service can rely on what the interface documents:
//
//	func TestMyStore(t *testing.T) {
//		contracttest.Run(t, func(t *testing.T) contracttest.Backend { return newMyBackend(t) })
//	}
package contracttest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The tenants the request cases write for. newBackend must return a
// backend in which both exist.
const (
	TenantA = "ten_00000000000000000000000001"
	TenantB = "ten_00000000000000000000000002"
)

// Backend is the contract.Store under test with what the suite needs
// beside it, on the same database: a tenancy.DirectoryStore to create and
// read tenants and members, a tenancy.ModuleStore for the switches a
// change of terms drops, and the Transactor whose transactions the stores
// join.
type Backend struct {
	contract.Store
	tenancy.DirectoryStore
	tenancy.ModuleStore
	Tx tenancy.Transactor
}

// Run checks a contract.Store: every method, its documented errors, its
// behaviour under concurrent callers, that it joins the transactions of
// Backend.Tx, and that no tenant sees another's terms or requests.
// newBackend is called once per case and must return a backend in which
// TenantA and TenantB exist and no contract request is stored; the terms
// cases create tenants of their own, keyed uniquely.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s Backend)
	}{
		{"Terms", testTerms},
		{"Members", testMembers},
		{"TermsIsolation", testTermsIsolation},
		{"CreateAndGet", testRequestRoundTrip},
		{"OnePendingPerType", testOnePendingPerType},
		{"OnePendingPerTypeConcurrent", testOnePendingConcurrent},
		{"RequestNotFound", testRequestNotFound},
		{"UpdateGuardedByStatus", testUpdateRequest},
		{"ListRequests", testListRequests},
		{"DueRequests", testDueRequests},
		{"RequestIsolation", testRequestIsolation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newBackend(t)) })
	}
}

// base is the creation time of the suite's requests: UTC, whole
// microseconds, as the Service stores them.
func base() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 123456000, time.UTC) }

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

func mustTenantSlug(tb testing.TB, s tenancy.DirectoryStore, slug string) tenancy.Tenant {
	tb.Helper()
	t := tenancy.Tenant{ID: id.New(id.Tenant), Slug: slug, Name: "Tenant " + slug, PlanID: "free", Seats: 2, CreatedAt: at(0)}
	if err := s.CreateTenant(context.Background(), t); err != nil {
		tb.Fatalf("CreateTenant(%s): %v", slug, err)
	}
	return t
}
