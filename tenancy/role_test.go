package tenancy_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/tenancy"
)

func TestPermissions(t *testing.T) {
	all := tenancy.Permissions()
	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Fatalf("Permissions: got %v, want sorted and without duplicates", all)
	}
	t.Run("OwnerHasAll", func(t *testing.T) {
		if got := tenancy.PermissionsOf(tenancy.RoleOwner); !slices.Equal(got, all) {
			t.Fatalf("owner's permissions: got %v, want every permission %v", got, all)
		}
	})
	for _, r := range tenancy.Roles() {
		t.Run(string(r), func(t *testing.T) {
			ps := tenancy.PermissionsOf(r)
			if !slices.IsSorted(ps) {
				t.Fatalf("PermissionsOf(%s): got %v, want sorted", r, ps)
			}
			for _, p := range all {
				if got, want := r.Can(p), slices.Contains(ps, p); got != want {
					t.Fatalf("%s.Can(%s): got %v, want %v as PermissionsOf says", r, p, got, want)
				}
			}
			for _, p := range ps {
				if !slices.Contains(all, p) {
					t.Fatalf("PermissionsOf(%s) holds %s, which Permissions lacks", r, p)
				}
			}
		})
	}
	t.Run("EachRoleAtMostTheOneAbove", func(t *testing.T) {
		roles := tenancy.Roles()
		for i := 1; i < len(roles); i++ {
			for _, p := range tenancy.PermissionsOf(roles[i]) {
				if !roles[i-1].Can(p) {
					t.Fatalf("%s can %s but the more powerful %s cannot", roles[i], p, roles[i-1])
				}
			}
		}
	})
}

// TestRole_Can pins the grants the specification names.
func TestRole_Can(t *testing.T) {
	tests := []struct {
		perm tenancy.Permission
		want []tenancy.Role
	}{
		{tenancy.PermInvoicesWrite, []tenancy.Role{tenancy.RoleOwner, tenancy.RoleAdmin, tenancy.RoleBilling}},
		{tenancy.PermEntitlementsManage, []tenancy.Role{tenancy.RoleOwner, tenancy.RoleAdmin}},
		{tenancy.PermContractsSubmit, []tenancy.Role{tenancy.RoleOwner, tenancy.RoleAdmin, tenancy.RoleBilling}},
		// contract.ErrCancelForbidden's sentence names these roles.
		{tenancy.PermContractsManage, []tenancy.Role{tenancy.RoleOwner, tenancy.RoleAdmin}},
		{tenancy.PermMembersManage, []tenancy.Role{tenancy.RoleOwner, tenancy.RoleAdmin}},
		{tenancy.PermNotificationsRead, tenancy.Roles()},
		{tenancy.PermEntitlementsRead, tenancy.Roles()},
		{tenancy.PermTicketsWrite, tenancy.Roles()},
	}
	for _, tc := range tests {
		t.Run(string(tc.perm), func(t *testing.T) {
			for _, r := range tenancy.Roles() {
				if got, want := r.Can(tc.perm), slices.Contains(tc.want, r); got != want {
					t.Errorf("%s.Can(%s): got %v, want %v", r, tc.perm, got, want)
				}
			}
		})
	}
	t.Run("UnknownRoleCannot", func(t *testing.T) {
		for _, r := range []tenancy.Role{"", "root", "Owner"} {
			if r.Valid() {
				t.Errorf("Role(%q).Valid: got true, want false", r)
			}
			for _, p := range tenancy.Permissions() {
				if r.Can(p) {
					t.Errorf("Role(%q).Can(%s): got true, want false", r, p)
				}
			}
			if ps := tenancy.PermissionsOf(r); len(ps) != 0 {
				t.Errorf("PermissionsOf(%q): got %v, want none", r, ps)
			}
		}
	})
}

func TestMatrixFor(t *testing.T) {
	tests := []struct {
		name string
		role tenancy.Role
	}{
		{"Owner", tenancy.RoleOwner},
		{"Billing", tenancy.RoleBilling},
		{"Member", tenancy.RoleMember},
		{"Unknown", "root"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tenancy.MatrixFor("ten_x", tc.role, tenancy.Scopes())
			if m.TenantID != "ten_x" || m.Role != tc.role {
				t.Fatalf("MatrixFor: got tenant %s role %s, want ten_x %s", m.TenantID, m.Role, tc.role)
			}
			if !slices.Equal(m.Permissions, tenancy.Permissions()) {
				t.Fatalf("Permissions: got %v, want %v", m.Permissions, tenancy.Permissions())
			}
			if !slices.Equal(m.Effective, tenancy.PermissionsOf(tc.role)) {
				t.Fatalf("Effective: got %v, want %v", m.Effective, tenancy.PermissionsOf(tc.role))
			}
			var roles []tenancy.Role
			for _, g := range m.Roles {
				roles = append(roles, g.Role)
				if !slices.Equal(g.Permissions, tenancy.PermissionsOf(g.Role)) {
					t.Fatalf("row %s: got %v, want %v", g.Role, g.Permissions, tenancy.PermissionsOf(g.Role))
				}
			}
			if !slices.Equal(roles, tenancy.Roles()) {
				t.Fatalf("rows: got %v, want every role in order %v", roles, tenancy.Roles())
			}
		})
	}
	t.Run("EffectiveNeedsScopes", func(t *testing.T) {
		m := tenancy.MatrixFor("ten_x", tenancy.RoleOwner, []tenancy.Scope{tenancy.ScopeTicketsRead})
		for _, p := range tenancy.PermissionsOf(tenancy.RoleOwner) {
			want := p.Scope() == "" || p.Scope() == tenancy.ScopeTicketsRead
			if got := slices.Contains(m.Effective, p); got != want {
				t.Errorf("Effective has %s = %v, want %v (it needs scope %q)", p, got, want, p.Scope())
			}
		}
		if !slices.Equal(m.Permissions, tenancy.Permissions()) {
			t.Errorf("Permissions = %v, want every permission", m.Permissions)
		}
	})
	t.Run("CallerCannotChangeMatrix", func(t *testing.T) {
		m := tenancy.MatrixFor("ten_x", tenancy.RoleMember, tenancy.Scopes())
		m.Effective = append(m.Effective[:0], tenancy.PermMembersManage)
		m.Roles[4].Permissions[0] = tenancy.PermMembersManage
		if tenancy.RoleMember.Can(tenancy.PermMembersManage) {
			t.Fatalf("editing a MatrixFor result granted %s to %s", tenancy.PermMembersManage, tenancy.RoleMember)
		}
		m.RequiredScopes[tenancy.PermTicketsWrite] = tenancy.ScopeTicketsRead
		if got := tenancy.PermTicketsWrite.Scope(); got != tenancy.ScopeTicketsWrite {
			t.Fatalf("editing a MatrixFor result changed the scope of %s to %s", tenancy.PermTicketsWrite, got)
		}
	})
}

// TestRoleInputNamesTheRoles: the oneof of RoleInput's tag is Roles(), so
// that a role added to one is added to the other.
func TestRoleInputNamesTheRoles(t *testing.T) {
	sf, _ := reflect.TypeFor[tenancy.RoleInput]().FieldByName("Role")
	_, list, _ := strings.Cut(sf.Tag.Get("validate"), "oneof=")
	var want []string
	for _, r := range tenancy.Roles() {
		want = append(want, string(r))
	}
	if got := strings.Fields(list); !slices.Equal(got, want) {
		t.Fatalf("RoleInput's tag names %v, Roles() %v", got, want)
	}
}
