package tenancytest

import (
	"context"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunMembers checks a tenancy.MemberStore: every method, its documented
// errors, that LockTenant serialises the transactions of Backend.Tx, and
// that no tenant sees or changes another's members.
func RunMembers(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"LockTenant", testLockTenant},
		{"LockTenantSerialises", testLockTenantSerialises},
		{"CountMembers", testCountMembers},
		{"Members", testMembersPage},
		{"SetMemberRole", testSetMemberRole},
		{"RemoveMember", testRemoveMember},
		{"Isolation", testMemberIsolation},
	})
}

func testLockTenant(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	t.Run("OK", func(t *testing.T) {
		err := s.Tx.InTx(ctx, func(ctx context.Context) error { return s.LockTenant(ctx, tenant.ID) })
		wantErr(t, "LockTenant", err, nil)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		err := s.Tx.InTx(ctx, func(ctx context.Context) error { return s.LockTenant(ctx, id.New(id.Tenant)) })
		wantErr(t, "LockTenant(unknown)", err, tenancy.ErrNotFound)
	})
}

// testLockTenantSerialises: transactions that lock the tenant, count its
// members and add one while fewer than a limit never pass the limit, as
// tenancy.Members relies on.
func testLockTenantSerialises(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	const limit, workers = 3, 8
	users := make([]tenancy.User, workers)
	for i := range users {
		users[i] = mustUser(t, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.Tx.InTx(ctx, func(ctx context.Context) error {
				if err := s.LockTenant(ctx, tenant.ID); err != nil {
					return err
				}
				n, err := s.CountMembers(ctx, tenant.ID, "")
				if err != nil || n >= limit {
					return err
				}
				return s.AddMembership(ctx, tenancy.Membership{TenantID: tenant.ID, UserID: u.ID, Role: tenancy.RoleMember, CreatedAt: at(1)})
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		wantErr(t, "lock, count and add", err, nil)
	}
	if n, err := s.CountMembers(ctx, tenant.ID, ""); err != nil || n != limit {
		t.Fatalf("members after %d concurrent adds within %d: got %d (%v), want %d", workers, limit, n, err, limit)
	}
}

func testCountMembers(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	for _, r := range []tenancy.Role{tenancy.RoleOwner, tenancy.RoleOwner, tenancy.RoleMember} {
		mustMember(t, s, tenant.ID, mustUser(t, s).ID, r)
	}
	tests := []struct {
		name string
		role tenancy.Role
		want int64
	}{
		{"All", "", 3},
		{"Owners", tenancy.RoleOwner, 2},
		{"Members", tenancy.RoleMember, 1},
		{"NoneOfRole", tenancy.RoleAdmin, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.CountMembers(ctx, tenant.ID, tc.role)
			wantErr(t, "CountMembers", err, nil)
			if got != tc.want {
				t.Fatalf("CountMembers(%q): got %d, want %d", tc.role, got, tc.want)
			}
		})
	}
	t.Run("UnknownTenant", func(t *testing.T) {
		got, err := s.CountMembers(ctx, id.New(id.Tenant), "")
		wantErr(t, "CountMembers(unknown)", err, nil)
		if got != 0 {
			t.Fatalf("CountMembers(unknown): got %d, want 0", got)
		}
	})
}

func testMembersPage(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	var users []tenancy.User // oldest first
	for i := 0; i < 3; i++ {
		u := mustUser(t, s)
		mustMember(t, s, tenant.ID, u.ID, tenancy.RoleBilling)
		users = append(users, u)
	}
	t.Run("NewestFirst", func(t *testing.T) {
		got, more, err := s.Members(ctx, tenant.ID, tenancy.MemberFilter{Limit: 2})
		wantErr(t, "Members", err, nil)
		if len(got) != 2 || !more || got[0].UserID != users[2].ID || got[1].UserID != users[1].ID {
			t.Fatalf("Members(limit 2): got %+v, more %v; want %s, %s and more", got, more, users[2].ID, users[1].ID)
		}
		m := got[0]
		if m.TenantID != tenant.ID || m.Email != users[2].Email || m.Name != users[2].Name ||
			m.Role != tenancy.RoleBilling || !m.CreatedAt.Equal(at(0)) {
			t.Fatalf("Members: got %+v, want the membership with its user", m)
		}
	})
	t.Run("Before", func(t *testing.T) {
		got, more, err := s.Members(ctx, tenant.ID, tenancy.MemberFilter{Limit: 2, Before: users[1].ID})
		wantErr(t, "Members(before)", err, nil)
		if len(got) != 1 || more || got[0].UserID != users[0].ID {
			t.Fatalf("Members(before %s): got %+v, more %v; want only %s", users[1].ID, got, more, users[0].ID)
		}
	})
	t.Run("UnknownTenant", func(t *testing.T) {
		got, more, err := s.Members(ctx, id.New(id.Tenant), tenancy.MemberFilter{Limit: 2})
		wantErr(t, "Members(unknown)", err, nil)
		if len(got) != 0 || more {
			t.Fatalf("Members(unknown): got %+v, more %v; want none", got, more)
		}
	})
}

func testSetMemberRole(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant, user := mustTenant(t, s), mustUser(t, s)
	mustMember(t, s, tenant.ID, user.ID, tenancy.RoleMember)
	t.Run("OK", func(t *testing.T) {
		wantErr(t, "SetMemberRole", s.SetMemberRole(ctx, tenant.ID, user.ID, tenancy.RoleAdmin), nil)
		m, err := s.Membership(ctx, tenant.ID, user.ID)
		wantErr(t, "Membership", err, nil)
		if m.Role != tenancy.RoleAdmin {
			t.Fatalf("role after SetMemberRole: got %s, want admin", m.Role)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantErr(t, "SetMemberRole(no member)", s.SetMemberRole(ctx, tenant.ID, mustUser(t, s).ID, tenancy.RoleAdmin), tenancy.ErrNotFound)
	})
}

func testRemoveMember(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant, other, user := mustTenant(t, s), mustTenant(t, s), mustUser(t, s)
	mustMember(t, s, tenant.ID, user.ID, tenancy.RoleMember)
	mustMember(t, s, other.ID, user.ID, tenancy.RoleMember)
	wantErr(t, "SetSelection", s.SetSelection(ctx, "key:"+user.ID, user.ID, tenant.ID, at(1)), nil)
	wantErr(t, "SetSelection", s.SetSelection(ctx, "sid:"+user.ID, user.ID, other.ID, at(1)), nil)

	t.Run("OK", func(t *testing.T) {
		wantErr(t, "RemoveMember", s.RemoveMember(ctx, tenant.ID, user.ID), nil)
		_, err := s.Membership(ctx, tenant.ID, user.ID)
		wantErr(t, "Membership after RemoveMember", err, tenancy.ErrNotFound)
	})
	t.Run("ForgetsSelection", func(t *testing.T) {
		_, err := s.Selection(ctx, "key:"+user.ID)
		wantErr(t, "Selection of the removed tenant", err, tenancy.ErrNotFound)
		got, err := s.Selection(ctx, "sid:"+user.ID)
		wantErr(t, "Selection of another tenant", err, nil)
		if got != other.ID {
			t.Fatalf("Selection of another tenant: got %s, want %s", got, other.ID)
		}
	})
	t.Run("KeepsOtherMembership", func(t *testing.T) {
		_, err := s.Membership(ctx, other.ID, user.ID)
		wantErr(t, "Membership of another tenant", err, nil)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantErr(t, "RemoveMember twice", s.RemoveMember(ctx, tenant.ID, user.ID), tenancy.ErrNotFound)
	})
}
