package tenancytest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

func testTerms(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)

	t.Run("NoAddOnsAtFirst", func(t *testing.T) {
		if got := mustAddOns(t, s, tenant.ID); len(got) != 0 {
			t.Fatalf("add-ons of a new tenant: got %v, want none", got)
		}
	})

	// The steps run in order on one tenant; each checks the whole contract
	// after it.
	steps := []struct {
		name       string
		plan       string
		seats      int
		addOns     []string
		wantAddOns []string
	}{
		{"PlanAndSeats", "starter", 5, nil, []string{}},
		{"AddOnsSorted", "starter", 5, []string{"support.sla", "collections.reminders"}, []string{"collections.reminders", "support.sla"}},
		{"ReplaceSet", "growth", 12, []string{"support.csat", "support.sla"}, []string{"support.csat", "support.sla"}},
		{"RemoveAll", "free", 2, []string{}, []string{}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			c := contract.Terms{TenantID: tenant.ID, PlanID: st.plan, Seats: st.seats, AddOns: st.addOns}
			wantErr(t, "SetTerms", s.Contracts.SetTerms(ctx, c, at(5)), nil)
			got, err := s.Tenant(ctx, tenant.ID)
			wantErr(t, "Tenant", err, nil)
			if got.PlanID != st.plan || got.Seats != st.seats {
				t.Fatalf("tenant after SetTerms: got plan %q seats %d, want %q %d", got.PlanID, got.Seats, st.plan, st.seats)
			}
			if addOns := mustAddOns(t, s, tenant.ID); !slices.Equal(addOns, st.wantAddOns) {
				t.Fatalf("add-ons after SetTerms: got %v, want %v", addOns, st.wantAddOns)
			}
		})
	}

	t.Run("ErrNotFoundTenant", func(t *testing.T) {
		c := contract.Terms{TenantID: id.New(id.Tenant), PlanID: "free", Seats: 2, AddOns: []string{"support.sla"}}
		wantErr(t, "SetTerms(unknown tenant)", s.Contracts.SetTerms(ctx, c, at(5)), tenancy.ErrNotFound)
		_, _, err := s.Contracts.LockTerms(ctx, c.TenantID)
		wantErr(t, "LockTerms(unknown tenant)", err, tenancy.ErrNotFound)
	})

	t.Run("LockTermsInTx", func(t *testing.T) {
		errRollback := errors.New("roll back")
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			got, _, err := s.Contracts.LockTerms(ctx, tenant.ID)
			wantErr(t, "LockTerms", err, nil)
			if got.TenantID != tenant.ID || got.PlanID != "free" || got.Seats != 2 {
				t.Fatalf("LockTerms: got %+v, want %s's terms free, 2 seats", got, tenant.ID)
			}
			c := contract.Terms{TenantID: tenant.ID, PlanID: "enterprise", Seats: 60, AddOns: []string{"support.csat"}}
			wantErr(t, "SetTerms in tx", s.Contracts.SetTerms(ctx, c, at(6)), nil)
			return errRollback
		})
		wantErr(t, "InTx", err, errRollback)
		got, err := s.Tenant(ctx, tenant.ID)
		wantErr(t, "Tenant", err, nil)
		if got.PlanID != "free" || got.Seats != 2 || len(mustAddOns(t, s, tenant.ID)) != 0 {
			t.Fatalf("contract after a rolled-back SetTerms: got plan %q seats %d add-ons %v, want free 2 none",
				got.PlanID, got.Seats, mustAddOns(t, s, tenant.ID))
		}
	})

	t.Run("DeleteModuleToggles", func(t *testing.T) {
		for _, m := range []string{"support.sla", "support.csat", "support.tickets"} {
			if _, err := s.SetModuleToggle(ctx, tenant.ID, m, true, false, at(7)); err != nil {
				t.Fatalf("SetModuleToggle(%s): %v", m, err)
			}
		}
		wantErr(t, "DeleteModuleToggles(none)", s.Contracts.DeleteModuleToggles(ctx, tenant.ID, nil), nil)
		wantErr(t, "DeleteModuleToggles", s.Contracts.DeleteModuleToggles(ctx, tenant.ID, []string{"support.sla", "support.csat", "collections.dunning"}), nil)
		got, err := s.ModuleToggles(ctx, tenant.ID)
		wantErr(t, "ModuleToggles", err, nil)
		if len(got) != 1 || !got["support.tickets"] {
			t.Fatalf("toggles after DeleteModuleToggles: got %v, want only support.tickets on", got)
		}
	})
}

// testTermsIsolation gives tenant B add-ons and switches and checks that
// A's contract calls neither see nor change them.
func testTermsIsolation(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	cb := contract.Terms{TenantID: b.ID, PlanID: "starter", Seats: 4, AddOns: []string{"support.sla"}}
	wantErr(t, "SetTerms(B)", s.Contracts.SetTerms(ctx, cb, at(1)), nil)
	if _, err := s.SetModuleToggle(ctx, b.ID, "collections.reminders", true, false, at(1)); err != nil {
		t.Fatalf("SetModuleToggle(B): %v", err)
	}

	if got := mustAddOns(t, s, a.ID); len(got) != 0 {
		t.Fatalf("A's add-ons: got %v, want none", got)
	}
	ca := contract.Terms{TenantID: a.ID, PlanID: "growth", Seats: 10, AddOns: []string{"support.csat"}}
	wantErr(t, "SetTerms(A)", s.Contracts.SetTerms(ctx, ca, at(2)), nil)
	wantErr(t, "DeleteModuleToggles(A)", s.Contracts.DeleteModuleToggles(ctx, a.ID, []string{"collections.reminders"}), nil)

	gotB, err := s.Tenant(ctx, b.ID)
	wantErr(t, "Tenant(B)", err, nil)
	toggles, err := s.ModuleToggles(ctx, b.ID)
	wantErr(t, "ModuleToggles(B)", err, nil)
	if addOns := mustAddOns(t, s, b.ID); gotB.PlanID != "starter" || gotB.Seats != 4 ||
		!slices.Equal(addOns, []string{"support.sla"}) || !toggles["collections.reminders"] {
		t.Fatalf("B after A's changes: plan %q seats %d add-ons %v toggles %v; want starter 4 [support.sla] reminders on",
			gotB.PlanID, gotB.Seats, addOns, toggles)
	}
}

// mustAddOns returns the tenant's contracted add-ons, as LockTerms reads
// them.
func mustAddOns(tb testing.TB, s Backend, tenantID string) []string {
	tb.Helper()
	got, _, err := s.Contracts.LockTerms(context.Background(), tenantID)
	if err != nil {
		tb.Fatalf("LockTerms(%s): %v", tenantID, err)
	}
	return got.AddOns
}

// testMembers checks the member count LockTerms returns beside the terms.
func testMembers(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant, other := mustTenant(t, s), mustTenant(t, s)
	count := func(t *testing.T, tenantID string, want int64) {
		t.Helper()
		_, got, err := s.Contracts.LockTerms(ctx, tenantID)
		wantErr(t, "LockTerms", err, nil)
		if got != want {
			t.Fatalf("LockTerms(%s) members: got %d, want %d", tenantID, got, want)
		}
	}
	count(t, tenant.ID, 0)
	u1, u2 := mustUser(t, s), mustUser(t, s)
	mustMember(t, s, tenant.ID, u1.ID, tenancy.RoleOwner)
	mustMember(t, s, tenant.ID, u2.ID, tenancy.RoleMember)
	mustMember(t, s, other.ID, u1.ID, tenancy.RoleMember)
	count(t, tenant.ID, 2)
	count(t, other.ID, 1)
}
