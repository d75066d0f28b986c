package billingtest

import (
	"context"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

// HostedStores are the stores RunHosted needs: the invoices the tokens
// belong to, and the tokens.
type HostedStores interface {
	billing.Store
	billing.HostedStore
}

// RunHosted checks a billing.HostedStore: issuing keeps an existing
// token, rotation replaces the hash at once and only from the version
// given, and the lookup by hash finds one invoice of one tenant.
func RunHosted(t *testing.T, newStore func(t *testing.T) HostedStores) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s HostedStores)
	}{
		{"IssueKeepsExisting", testHostedIssue},
		{"Rotate", testHostedRotate},
		{"Isolation", testHostedIsolation},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

func mustIssue(tb testing.TB, s HostedStores, tenantID string, hashes map[string]string) {
	tb.Helper()
	if err := s.IssueHostedTokens(context.Background(), tenantID, hashes); err != nil {
		tb.Fatalf("IssueHostedTokens: %v", err)
	}
}

func wantHosted(tb testing.TB, s HostedStores, hash, tenantID, invoiceID string, want error) {
	tb.Helper()
	ten, inv, err := s.HostedInvoice(context.Background(), hash)
	assertErr(tb, "HostedInvoice("+hash+")", err, want)
	if want == nil && (ten != tenantID || inv != invoiceID) {
		tb.Errorf("HostedInvoice(%s) = %s, %s; want %s, %s", hash, ten, inv, tenantID, invoiceID)
	}
}

func testHostedIssue(t *testing.T, s HostedStores) {
	inv := mustCreate(t, s, newInvoice(TenantA, 1))
	mustIssue(t, s, TenantA, map[string]string{inv.ID: "h1"})
	mustIssue(t, s, TenantA, map[string]string{inv.ID: "h1-again"})
	wantHosted(t, s, "h1", TenantA, inv.ID, nil)
	wantHosted(t, s, "h1-again", "", "", billing.ErrNotFound)
	v, err := s.HostedVersions(context.Background(), TenantA, []string{inv.ID, "inv_none"})
	if err != nil || len(v) != 1 || v[inv.ID] != 1 {
		t.Errorf("HostedVersions = %v, %v; want only %s at 1", v, err, inv.ID)
	}
}

func testHostedRotate(t *testing.T, s HostedStores) {
	ctx := context.Background()
	inv := mustCreate(t, s, newInvoice(TenantA, 1))
	mustIssue(t, s, TenantA, map[string]string{inv.ID: "v1"})
	assertErr(t, "RotateHostedToken(stale)", s.RotateHostedToken(ctx, TenantA, inv.ID, 2, "v3"), billing.ErrConflict)
	assertErr(t, "RotateHostedToken", s.RotateHostedToken(ctx, TenantA, inv.ID, 1, "v2"), nil)
	wantHosted(t, s, "v1", "", "", billing.ErrNotFound)
	wantHosted(t, s, "v2", TenantA, inv.ID, nil)
	other := mustCreate(t, s, newInvoice(TenantA, 2))
	assertErr(t, "RotateHostedToken(no token)", s.RotateHostedToken(ctx, TenantA, other.ID, 1, "x"), billing.ErrNotFound)
}

func testHostedIsolation(t *testing.T, s HostedStores) {
	ctx := context.Background()
	a := mustCreate(t, s, newInvoice(TenantA, 1))
	b := mustCreate(t, s, newInvoice(TenantB, 1))
	mustIssue(t, s, TenantA, map[string]string{a.ID: "a"})
	mustIssue(t, s, TenantB, map[string]string{b.ID: "b"})
	wantHosted(t, s, "b", TenantB, b.ID, nil)
	if v, err := s.HostedVersions(ctx, TenantB, []string{a.ID}); err != nil || len(v) != 0 {
		t.Errorf("HostedVersions(TenantB, A's invoice) = %v, %v; want none", v, err)
	}
	assertErr(t, "RotateHostedToken(another tenant's)", s.RotateHostedToken(ctx, TenantB, a.ID, 1, "x"), billing.ErrNotFound)
	wantHosted(t, s, "a", TenantA, a.ID, nil)
}
