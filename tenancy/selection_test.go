package tenancy_test

import (
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestService_ResolveTenant(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b, c := mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanFree)
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
			want      string
			wantRole  tenancy.Role
			wantErr   error
		}{
			{"HeaderMember", otherSession, b.ID, b.ID, tenancy.RoleMember, nil},
			{"HeaderOverridesSelection", session, b.ID, b.ID, tenancy.RoleMember, nil},
			{"ErrNotMemberHeader", session, c.ID, "", "", tenancy.ErrNotMember},
			{"ErrNotMemberHeaderUnknown", session, id.New(id.Tenant), "", "", tenancy.ErrNotMember},
			{"Pinned", pinned, "", b.ID, tenancy.RoleMember, nil},
			{"PinnedHeaderSame", pinned, b.ID, b.ID, tenancy.RoleMember, nil},
			{"ErrNotMemberPinnedHeaderOther", pinned, a.ID, "", "", tenancy.ErrNotMember},
			{"StoredSelection", session, "", a.ID, tenancy.RoleAdmin, nil},
			{"ErrTenantNotSelectedOtherCredential", otherSession, "", "", "", tenancy.ErrTenantNotSelected},
			{"SingleMembershipDefault", tenancy.Credential{Key: "user:" + single.ID, UserID: single.ID}, "", a.ID, tenancy.RoleBilling, nil},
			{"ErrNoTenant", tenancy.Credential{Key: "user:" + none.ID, UserID: none.ID}, "", "", "", tenancy.ErrNoTenant},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				m, err := e.svc.Directory.ResolveTenant(ctx, tc.cred, tc.requested)
				wantErr(t, "ResolveTenant", err, tc.wantErr)
				if tc.wantErr == nil && (m.TenantID != tc.want || m.Role != tc.wantRole || m.UserID != tc.cred.UserID) {
					t.Fatalf("ResolveTenant: got %+v, want tenant %s role %s", m, tc.want, tc.wantRole)
				}
			})
		}
	})
}

func TestService_SelectTenant(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b, c := mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanFree)
		user := mustUser(t, e.svc)
		mustMember(t, e.svc, a.ID, user, tenancy.RoleOwner)
		mustMember(t, e.svc, b.ID, user, tenancy.RoleSupport)
		session := tenancy.Credential{Key: "sid:" + unique(), UserID: user.ID}
		pinned := tenancy.Credential{Key: "key:" + id.New(id.APIKey), UserID: user.ID, PinnedTenantID: b.ID}

		// The steps run in order: each selects, then resolves with no header.
		steps := []struct {
			name        string
			cred        tenancy.Credential
			tenantID    string
			wantErr     error
			wantResolve string
		}{
			{"ErrNotFoundNotMember", session, c.ID, tenancy.ErrNotFound, ""},
			{"Select", session, a.ID, nil, a.ID},
			{"Reselect", session, b.ID, nil, b.ID},
			{"ErrNotFoundKeptPrevious", session, c.ID, tenancy.ErrNotFound, b.ID},
			{"ErrNotFoundPinnedOther", pinned, a.ID, tenancy.ErrNotFound, b.ID},
			{"PinnedOwn", pinned, b.ID, nil, b.ID},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				m, err := e.svc.Directory.SelectTenant(ctx, st.cred, st.tenantID)
				wantErr(t, "SelectTenant", err, st.wantErr)
				if st.wantErr == nil && m.TenantID != st.tenantID {
					t.Fatalf("SelectTenant: got %+v, want tenant %s", m, st.tenantID)
				}
				if st.wantResolve == "" {
					return
				}
				got, err := e.svc.Directory.ResolveTenant(ctx, st.cred, "")
				wantErr(t, "ResolveTenant", err, nil)
				if got.TenantID != st.wantResolve {
					t.Fatalf("ResolveTenant after SelectTenant: got %s, want %s", got.TenantID, st.wantResolve)
				}
			})
		}
	})
}
