package tenancy_test

import (
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestService_ResolveTenantState checks that ResolveTenantState resolves
// as ResolveTenant does and returns the resolved tenant's state.
func TestService_ResolveTenantState(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b, c := mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanGrowth), mustTenant(t, e.svc, catalog.PlanFree)
		multi, single, none := mustUser(t, e.svc), mustUser(t, e.svc), mustUser(t, e.svc)
		mustMember(t, e.svc, a.ID, multi, tenancy.RoleAdmin)
		mustMember(t, e.svc, b.ID, multi, tenancy.RoleMember)
		mustMember(t, e.svc, a.ID, single, tenancy.RoleBilling)

		session := tenancy.Credential{Key: "sid:one", UserID: multi.ID}
		otherSession := tenancy.Credential{Key: "sid:two", UserID: multi.ID}
		pinned := tenancy.Credential{Key: "key:" + id.New(id.APIKey), UserID: multi.ID, PinnedTenantID: b.ID}
		if _, err := e.svc.Directory.SelectTenant(ctx, session, a.ID); err != nil {
			t.Fatalf("SelectTenant: %v", err)
		}

		tests := []struct {
			name      string
			cred      tenancy.Credential
			requested string
			want      tenancy.Tenant
			wantRole  tenancy.Role
			wantErr   error
		}{
			{"HeaderMember", otherSession, b.ID, b, tenancy.RoleMember, nil},
			{"ErrNotMemberHeader", session, c.ID, tenancy.Tenant{}, "", tenancy.ErrNotMember},
			{"ErrNotMemberHeaderUnknown", session, id.New(id.Tenant), tenancy.Tenant{}, "", tenancy.ErrNotMember},
			{"Pinned", pinned, "", b, tenancy.RoleMember, nil},
			{"PinnedHeaderSame", pinned, b.ID, b, tenancy.RoleMember, nil},
			{"ErrNotMemberPinnedHeaderOther", pinned, a.ID, tenancy.Tenant{}, "", tenancy.ErrNotMember},
			{"ErrNotMemberPinnedUnknownTenant", tenancy.Credential{Key: "key:x", UserID: multi.ID, PinnedTenantID: id.New(id.Tenant)}, "", tenancy.Tenant{}, "", tenancy.ErrNotMember},
			{"ErrNotMemberPinnedNoLongerMember", tenancy.Credential{Key: "key:y", UserID: single.ID, PinnedTenantID: b.ID}, "", tenancy.Tenant{}, "", tenancy.ErrNotMember},
			{"StoredSelection", session, "", a, tenancy.RoleAdmin, nil},
			{"ErrTenantNotSelectedOtherCredential", otherSession, "", tenancy.Tenant{}, "", tenancy.ErrTenantNotSelected},
			{"SingleMembershipDefault", tenancy.Credential{Key: "user:" + single.ID, UserID: single.ID}, "", a, tenancy.RoleBilling, nil},
			{"ErrNoTenant", tenancy.Credential{Key: "user:" + none.ID, UserID: none.ID}, "", tenancy.Tenant{}, "", tenancy.ErrNoTenant},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				m, st, err := e.svc.Entitlements.ResolveTenantState(ctx, tc.cred, tc.requested, true)
				wantErr(t, "ResolveTenantState", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				if m.TenantID != tc.want.ID || m.Role != tc.wantRole || m.UserID != tc.cred.UserID {
					t.Fatalf("membership: got %+v, want tenant %s role %s", m, tc.want.ID, tc.wantRole)
				}
				if st.TenantID != tc.want.ID || st.PlanID != tc.want.PlanID || st.Seats != tc.want.Seats {
					t.Fatalf("state: got %+v, want tenant %s on %s with %d seats", st, tc.want.ID, tc.want.PlanID, tc.want.Seats)
				}
				if period, _, _ := tenancy.Period(testNow()); st.Period != period || st.Members < 1 {
					t.Fatalf("state: usage of period %q with %d members, want %q and the members", st.Period, st.Members, period)
				}
				_, st, err = e.svc.Entitlements.ResolveTenantState(ctx, tc.cred, tc.requested, false)
				wantErr(t, "ResolveTenantState without usage", err, nil)
				if st.TenantID != tc.want.ID || st.Period != "" || st.Usage != nil {
					t.Fatalf("state without usage: got %+v", st)
				}
			})
		}
	})
}

// TestService_WithState checks that the read-only methods use the state a
// context carries for their tenant, and only for that tenant.
func TestService_WithState(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tn, other := mustTenant(t, e.svc, catalog.PlanGrowth), mustTenant(t, e.svc, catalog.PlanGrowth)
		st, err := e.store.EntitlementState(ctx, tn.ID, tenancy.StateQuery{})
		if err != nil {
			t.Fatalf("EntitlementState: %v", err)
		}
		// A state that differs from the store's: tickets switched off and
		// an invoice limit of 0.
		zero := int64(0)
		st.Toggles = map[string]bool{catalog.ModuleTickets: false}
		st.Overrides = map[string]*int64{catalog.FeatureInvoices: &zero}
		carried := tenancy.WithState(ctx, st)

		wantErr(t, "RequireModule with the carried state", e.svc.Entitlements.RequireModule(carried, tn.ID, catalog.ModuleTickets), tenancy.ErrModuleDisabled)
		wantErr(t, "RequireModule without it", e.svc.Entitlements.RequireModule(ctx, tn.ID, catalog.ModuleTickets), nil)
		wantErr(t, "RequireModule of another tenant", e.svc.Entitlements.RequireModule(carried, other.ID, catalog.ModuleTickets), nil)

		a, err := e.svc.Entitlements.Allowance(carried, tn.ID, catalog.ModuleInvoices, catalog.FeatureInvoices)
		wantErr(t, "Allowance", err, nil)
		if a.Limit != 0 {
			t.Fatalf("Allowance with the carried state: limit %d, want 0", a.Limit)
		}
		wantErr(t, "Use past the carried limit", e.svc.Entitlements.Use(carried, a, 1), tenancy.ErrLimitExceeded)
		wantErr(t, "Consume with the carried state", e.svc.Entitlements.Consume(carried, tn.ID, catalog.FeatureInvoices, 1), tenancy.ErrLimitExceeded)

		// Usage is read for the current period only: a state without it
		// does not answer Entitlements.
		es, err := e.svc.Entitlements.List(carried, tn.ID)
		wantErr(t, "Entitlements", err, nil)
		for _, en := range es {
			if en.Feature == catalog.FeatureInvoices && (en.Limit == nil || *en.Limit == 0) {
				t.Fatalf("Entitlements used a state without usage: %+v", en)
			}
		}
		wantErr(t, "Consume without the carried state", e.svc.Entitlements.Consume(ctx, tn.ID, catalog.FeatureInvoices, 1), nil)
	})
}
