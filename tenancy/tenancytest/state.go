package tenancytest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// testEntitlementState checks that EntitlementState reads back what the
// other methods wrote: the contract, switches, add-ons, overrides, and,
// for a period, that period's usage and the members; and nothing of
// another tenant.
func testEntitlementState(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant, other := mustTenant(t, s), mustTenant(t, s)

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, period := range []string{"", periodA} {
			_, err := s.EntitlementState(ctx, id.New(id.Tenant), tenancy.StateQuery{Period: period})
			wantErr(t, "EntitlementState(unknown, "+period+")", err, tenancy.ErrNotFound)
		}
	})
	t.Run("NewTenant", func(t *testing.T) {
		got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{Period: periodA, MemberID: id.New(id.User)})
		wantErr(t, "EntitlementState", err, nil)
		if got.TenantID != tenant.ID || got.PlanID != tenant.PlanID || got.Seats != tenant.Seats ||
			len(got.Toggles) != 0 || len(got.AddOns) != 0 || len(got.Overrides) != 0 || len(got.Usage) != 0 || got.Members != 0 || got.Member != nil {
			t.Fatalf("EntitlementState of a new tenant: got %+v, want plan %q, %d seats and nothing else", got, tenant.PlanID, tenant.Seats)
		}
	})

	five := int64(5)
	// Everything the state is made of, for both tenants; other's values
	// differ so that a leak shows.
	users := map[string]string{} // tenant → its first member
	for _, tn := range []struct {
		id    string
		used  int64
		role  tenancy.Role
		addOn string
	}{{tenant.ID, 3, tenancy.RoleOwner, "support.sla"}, {other.ID, 4, tenancy.RoleMember, "support.csat"}} {
		c := tenancy.Contract{TenantID: tn.id, PlanID: "growth", Seats: 12, AddOns: []string{tn.addOn, "collections.reminders"}}
		wantErr(t, "SetContract", s.SetContract(ctx, c, at(1)), nil)
		_, err := s.SetModuleToggle(ctx, tn.id, "support.tickets", false, true, at(1))
		wantErr(t, "SetModuleToggle", err, nil)
		_, err = s.SetModuleToggle(ctx, tn.id, tn.addOn, true, false, at(1))
		wantErr(t, "SetModuleToggle", err, nil)
		wantErr(t, "SetLimitOverride", s.SetLimitOverride(ctx, tn.id, featureA, &five), nil)
		wantErr(t, "SetLimitOverride", s.SetLimitOverride(ctx, tn.id, featureB, nil), nil)
		_, err = s.ConsumeUsage(ctx, tn.id, featureA, periodA, tn.used, -1)
		wantErr(t, "ConsumeUsage", err, nil)
		_, err = s.ConsumeUsage(ctx, tn.id, featureA, periodB, 7, -1)
		wantErr(t, "ConsumeUsage", err, nil)
		users[tn.id] = mustMember(t, s, tn.id, mustUser(t, s).ID, tn.role).UserID
	}
	mustMember(t, s, tenant.ID, mustUser(t, s).ID, tenancy.RoleMember)

	t.Run("Member", func(t *testing.T) {
		got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{MemberID: users[tenant.ID]})
		wantErr(t, "EntitlementState", err, nil)
		if got.Member == nil || got.Member.TenantID != tenant.ID || got.Member.UserID != users[tenant.ID] || got.Member.Role != tenancy.RoleOwner {
			t.Fatalf("Member: got %+v, want %s's owner %s", got.Member, tenant.ID, users[tenant.ID])
		}
		if got.Period != "" || len(got.Usage) != 0 || got.Members != 0 {
			t.Fatalf("usage read without a period: got %q %v, %d members", got.Period, got.Usage, got.Members)
		}
	})
	t.Run("MemberOfAnotherTenant", func(t *testing.T) {
		got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{MemberID: users[other.ID]})
		wantErr(t, "EntitlementState", err, nil)
		if got.Member != nil {
			t.Fatalf("Member: got %+v for a member of another tenant, want nil", got.Member)
		}
	})

	tests := []struct {
		name      string
		period    string
		wantUsage map[string]int64
		members   int64
	}{
		{"WithoutPeriod", "", map[string]int64{}, 0},
		{"Period", periodA, map[string]int64{featureA: 3}, 2},
		{"OtherPeriod", periodB, map[string]int64{featureA: 7}, 2},
		{"PeriodWithoutUsage", "2027-01", map[string]int64{}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.EntitlementState(ctx, tenant.ID, tenancy.StateQuery{Period: tc.period})
			wantErr(t, "EntitlementState", err, nil)
			if got.TenantID != tenant.ID || got.PlanID != "growth" || got.Seats != 12 {
				t.Fatalf("contract: got %s %q %d seats, want %s \"growth\" 12", got.TenantID, got.PlanID, got.Seats, tenant.ID)
			}
			if want := map[string]bool{"support.tickets": false, "support.sla": true}; !maps.Equal(got.Toggles, want) {
				t.Fatalf("Toggles: got %v, want %v", got.Toggles, want)
			}
			if want := []string{"collections.reminders", "support.sla"}; !slices.Equal(got.AddOns, want) {
				t.Fatalf("AddOns: got %v, want %v (sorted)", got.AddOns, want)
			}
			if want := map[string]*int64{featureA: &five, featureB: nil}; !sameLimits(got.Overrides, want) {
				t.Fatalf("Overrides: got %s, want %s", showLimits(got.Overrides), showLimits(want))
			}
			if got.Period != tc.period || !maps.Equal(got.Usage, tc.wantUsage) {
				t.Fatalf("usage: got period %q %v, want %q %v", got.Period, got.Usage, tc.period, tc.wantUsage)
			}
			if got.Members != tc.members {
				t.Fatalf("Members: got %d, want %d", got.Members, tc.members)
			}
		})
	}
}

// testJoinTx checks that JoinTx runs alone as a transaction of its own,
// and inside RunInTx as part of the caller's: committed and rolled back
// with it.
func testJoinTx(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	errBoom := errors.New("boom")
	exists := func(t *testing.T, slug string) bool { return tenantExists(t, s, slug) }
	create := func(ctx context.Context, slug string) error { return createBareTenant(ctx, s, slug) }

	t.Run("AloneCommits", func(t *testing.T) {
		slug := "join-" + unique()
		wantErr(t, "JoinTx", s.JoinTx(ctx, func(ctx context.Context) error { return create(ctx, slug) }), nil)
		if !exists(t, slug) {
			t.Fatalf("tenant created in JoinTx: not found")
		}
	})
	t.Run("AloneRollsBack", func(t *testing.T) {
		slug := "join-" + unique()
		err := s.JoinTx(ctx, func(ctx context.Context) error {
			if err := create(ctx, slug); err != nil {
				return err
			}
			return errBoom
		})
		wantErr(t, "JoinTx returns fn's error", err, errBoom)
		if exists(t, slug) {
			t.Fatalf("tenant created in a failed JoinTx: found")
		}
	})
	t.Run("RollsBackWithTheCaller", func(t *testing.T) {
		slug := "join-" + unique()
		err := s.RunInTx(ctx, func(ctx context.Context) error {
			if err := s.JoinTx(ctx, func(ctx context.Context) error { return create(ctx, slug) }); err != nil {
				return err
			}
			return errBoom
		})
		wantErr(t, "RunInTx", err, errBoom)
		if exists(t, slug) {
			t.Fatalf("tenant created in JoinTx within a rolled-back transaction: found")
		}
	})
	t.Run("CommitsWithTheCaller", func(t *testing.T) {
		slug := "join-" + unique()
		err := s.RunInTx(ctx, func(ctx context.Context) error {
			return s.JoinTx(ctx, func(ctx context.Context) error { return create(ctx, slug) })
		})
		wantErr(t, "RunInTx", err, nil)
		if !exists(t, slug) {
			t.Fatalf("tenant created in JoinTx within a committed transaction: not found")
		}
	})
}
