// Package tenancytest is the conformance suite of tenancy.Store. Every
// Store implementation runs it against a real backend, so that the service
// can rely on what the Store interface documents, whatever sits behind it:
//
//	func TestMyStore(t *testing.T) {
//		tenancytest.Run(t, func(t *testing.T) tenancy.Store { return newMyStore(t) })
//	}
package tenancytest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Run checks every method of the Store that newStore returns, its
// documented errors, its behaviour under concurrent callers, and that no
// tenant ever sees another's rows. newStore is called once per subtest; the
// stores it returns may share one database, because the suite keys all its
// data uniquely (fresh ids, slugs and emails) and never counts rows beyond
// the tenants it created.
func Run(t *testing.T, newStore func(t *testing.T) tenancy.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s tenancy.Store)
	}{
		{"Tenants", testTenants},
		{"Users", testUsers},
		{"Memberships", testMemberships},
		{"MembershipsOrder", testMembershipsOrder},
		{"CountMembers", testCountMembers},
		{"APIKeys", testAPIKeys},
		{"RevokeAPIKey", testRevokeAPIKey},
		{"Selections", testSelections},
		{"ConsumeUsage", testConsumeUsage},
		{"ConsumeUsageConcurrent", testConsumeUsageConcurrent},
		{"LimitOverrides", testLimitOverrides},
		{"EntitlementState", testEntitlementState},
		{"ModuleToggles", testModuleToggles},
		{"ModuleTogglesConcurrent", testModuleTogglesConcurrent},
		{"CreateNotification", testCreateNotification},
		{"Notifications", testNotifications},
		{"MarkNotificationRead", testMarkNotificationRead},
		{"Contracts", testContracts},
		{"RunInTx", testRunInTx},
		{"JoinTx", testJoinTx},
		{"Isolation", testIsolation},
		{"ContractIsolation", testContractIsolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
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

func mustTenant(tb testing.TB, s tenancy.Store) tenancy.Tenant {
	tb.Helper()
	return mustTenantSlug(tb, s, "t-"+unique())
}

func mustTenantSlug(tb testing.TB, s tenancy.Store, slug string) tenancy.Tenant {
	tb.Helper()
	t := tenancy.Tenant{ID: id.New(id.Tenant), Slug: slug, Name: "Tenant " + slug, PlanID: "free", Seats: 2, CreatedAt: at(0)}
	if err := s.CreateTenant(context.Background(), t); err != nil {
		tb.Fatalf("CreateTenant(%s): %v", slug, err)
	}
	return t
}

func mustUser(tb testing.TB, s tenancy.Store) tenancy.User {
	tb.Helper()
	u := tenancy.User{ID: id.New(id.User), Email: unique() + "@example.com", Name: "Someone", CreatedAt: at(0)}
	if err := s.CreateUser(context.Background(), u); err != nil {
		tb.Fatalf("CreateUser(%s): %v", u.Email, err)
	}
	return u
}

func mustMember(tb testing.TB, s tenancy.Store, tenantID, userID string, role tenancy.Role) tenancy.Membership {
	tb.Helper()
	m := tenancy.Membership{TenantID: tenantID, UserID: userID, Role: role, CreatedAt: at(0)}
	if err := s.AddMembership(context.Background(), m); err != nil {
		tb.Fatalf("AddMembership(%s, %s): %v", tenantID, userID, err)
	}
	return m
}

func mustNotification(tb testing.TB, s tenancy.Store, tenantID, key string) tenancy.Notification {
	tb.Helper()
	n := tenancy.Notification{
		ID: id.New(id.Notification), TenantID: tenantID, Type: tenancy.NotificationPaymentSucceeded,
		Title: "Payment received", Body: "Invoice INV-000001 was paid.",
		Data: map[string]any{"invoice_id": "inv_x", "amount": 1999}, CreatedAt: at(0),
	}
	if err := s.CreateNotification(context.Background(), n, key); err != nil {
		tb.Fatalf("CreateNotification(%s): %v", tenantID, err)
	}
	return n
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

// sameNotification fails unless got is want as stored: same fields, times
// equal, data equal once encoded (stores may decode numbers differently).
func sameNotification(tb testing.TB, got, want tenancy.Notification) {
	tb.Helper()
	if got.ID != want.ID || got.TenantID != want.TenantID || got.Type != want.Type ||
		got.Title != want.Title || got.Body != want.Body || !got.CreatedAt.Equal(want.CreatedAt) {
		tb.Fatalf("notification: got %+v, want %+v", got, want)
	}
	if (got.ReadAt == nil) != (want.ReadAt == nil) || (got.ReadAt != nil && !got.ReadAt.Equal(*want.ReadAt)) {
		tb.Fatalf("notification %s read_at: got %v, want %v", want.ID, got.ReadAt, want.ReadAt)
	}
	gotData, _ := json.Marshal(got.Data)
	wantData, _ := json.Marshal(want.Data)
	if string(gotData) != string(wantData) {
		tb.Fatalf("notification %s data: got %s, want %s", want.ID, gotData, wantData)
	}
}

func ids(ns []tenancy.Notification) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

func sameLimits(got, want map[string]*int64) bool {
	if len(got) != len(want) {
		return false
	}
	for f, w := range want {
		g, ok := got[f]
		if !ok || (g == nil) != (w == nil) || (g != nil && *g != *w) {
			return false
		}
	}
	return true
}

func showLimits(m map[string]*int64) string {
	var parts []string
	for f, l := range m {
		v := "unlimited"
		if l != nil {
			v = fmt.Sprint(*l)
		}
		parts = append(parts, f+"="+v)
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, " ") + "}"
}
