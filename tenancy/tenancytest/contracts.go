package tenancytest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// mustAddOns returns the tenant's contracted add-ons.
func mustAddOns(tb testing.TB, s tenancy.Store, tenantID string) []string {
	tb.Helper()
	got, err := s.ContractAddOns(context.Background(), tenantID)
	if err != nil {
		tb.Fatalf("ContractAddOns(%s): %v", tenantID, err)
	}
	return got
}

func testContracts(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant := mustTenant(t, s)

	t.Run("NoAddOnsAtFirst", func(t *testing.T) {
		if got := mustAddOns(t, s, tenant.ID); len(got) != 0 {
			t.Fatalf("ContractAddOns of a new tenant: got %v, want none", got)
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
			c := tenancy.Contract{TenantID: tenant.ID, PlanID: st.plan, Seats: st.seats, AddOns: st.addOns}
			wantErr(t, "SetContract", s.SetContract(ctx, c, at(5)), nil)
			got, err := s.Tenant(ctx, tenant.ID)
			wantErr(t, "Tenant", err, nil)
			if got.PlanID != st.plan || got.Seats != st.seats {
				t.Fatalf("tenant after SetContract: got plan %q seats %d, want %q %d", got.PlanID, got.Seats, st.plan, st.seats)
			}
			if addOns := mustAddOns(t, s, tenant.ID); !slices.Equal(addOns, st.wantAddOns) {
				t.Fatalf("ContractAddOns after SetContract: got %v, want %v", addOns, st.wantAddOns)
			}
		})
	}

	t.Run("ErrNotFoundTenant", func(t *testing.T) {
		c := tenancy.Contract{TenantID: id.New(id.Tenant), PlanID: "free", Seats: 2, AddOns: []string{"support.sla"}}
		wantErr(t, "SetContract(unknown tenant)", s.SetContract(ctx, c, at(5)), tenancy.ErrNotFound)
		_, err := s.TenantForUpdate(ctx, c.TenantID)
		wantErr(t, "TenantForUpdate(unknown tenant)", err, tenancy.ErrNotFound)
	})

	t.Run("TenantForUpdateInTx", func(t *testing.T) {
		errRollback := errors.New("roll back")
		err := s.RunInTx(ctx, func(ctx context.Context) error {
			got, err := s.TenantForUpdate(ctx, tenant.ID)
			wantErr(t, "TenantForUpdate", err, nil)
			if got.ID != tenant.ID || got.Slug != tenant.Slug {
				t.Fatalf("TenantForUpdate: got %+v, want %+v", got, tenant)
			}
			c := tenancy.Contract{TenantID: tenant.ID, PlanID: "enterprise", Seats: 60, AddOns: []string{"support.csat"}}
			wantErr(t, "SetContract in tx", s.SetContract(ctx, c, at(6)), nil)
			return errRollback
		})
		wantErr(t, "RunInTx", err, errRollback)
		got, err := s.Tenant(ctx, tenant.ID)
		wantErr(t, "Tenant", err, nil)
		if got.PlanID != "free" || got.Seats != 2 || len(mustAddOns(t, s, tenant.ID)) != 0 {
			t.Fatalf("contract after a rolled-back SetContract: got plan %q seats %d add-ons %v, want free 2 none",
				got.PlanID, got.Seats, mustAddOns(t, s, tenant.ID))
		}
	})

	t.Run("DeleteModuleToggles", func(t *testing.T) {
		for _, m := range []string{"support.sla", "support.csat", "support.tickets"} {
			if _, err := s.SetModuleToggle(ctx, tenant.ID, m, true, false, at(7)); err != nil {
				t.Fatalf("SetModuleToggle(%s): %v", m, err)
			}
		}
		wantErr(t, "DeleteModuleToggles(none)", s.DeleteModuleToggles(ctx, tenant.ID, nil), nil)
		wantErr(t, "DeleteModuleToggles", s.DeleteModuleToggles(ctx, tenant.ID, []string{"support.sla", "support.csat", "collections.dunning"}), nil)
		got, err := s.ModuleToggles(ctx, tenant.ID)
		wantErr(t, "ModuleToggles", err, nil)
		if len(got) != 1 || !got["support.tickets"] {
			t.Fatalf("toggles after DeleteModuleToggles: got %v, want only support.tickets on", got)
		}
	})
}

// testContractIsolation gives tenant B add-ons and switches and checks
// that A's contract calls neither see nor change them.
func testContractIsolation(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	cb := tenancy.Contract{TenantID: b.ID, PlanID: "starter", Seats: 4, AddOns: []string{"support.sla"}}
	wantErr(t, "SetContract(B)", s.SetContract(ctx, cb, at(1)), nil)
	if _, err := s.SetModuleToggle(ctx, b.ID, "collections.reminders", true, false, at(1)); err != nil {
		t.Fatalf("SetModuleToggle(B): %v", err)
	}

	if got := mustAddOns(t, s, a.ID); len(got) != 0 {
		t.Fatalf("A's add-ons: got %v, want none", got)
	}
	ca := tenancy.Contract{TenantID: a.ID, PlanID: "growth", Seats: 10, AddOns: []string{"support.csat"}}
	wantErr(t, "SetContract(A)", s.SetContract(ctx, ca, at(2)), nil)
	wantErr(t, "DeleteModuleToggles(A)", s.DeleteModuleToggles(ctx, a.ID, []string{"collections.reminders"}), nil)

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
