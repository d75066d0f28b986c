package tenancytest

import (
	"testing"

	"github.com/tenantkit/tenantkit/tenancy"
)

// The isolation tests give tenant B one of every row a store keeps and
// check that none of it is visible to, or changeable through, tenant A.

// testDirectoryIsolation: B's member is not A's.
func testDirectoryIsolation(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	userB := mustUser(t, s)
	mustMember(t, s, b.ID, userB.ID, tenancy.RoleOwner)

	t.Run("Members", func(t *testing.T) {
		_, err := s.Membership(ctx, a.ID, userB.ID)
		wantErr(t, "Membership(A, B's member)", err, tenancy.ErrNotFound)
	})
}

// testEntitlementIsolation: B's usage and limits are not A's, and A's
// activity leaves them as they were.
func testEntitlementIsolation(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	if _, err := s.ConsumeUsage(ctx, b.ID, featureA, periodA, 3, -1, nil); err != nil {
		t.Fatalf("ConsumeUsage(B): %v", err)
	}
	limit := int64(4)
	if err := s.SetLimitOverride(ctx, b.ID, featureA, &limit); err != nil {
		t.Fatalf("SetLimitOverride(B): %v", err)
	}

	t.Run("Usage", func(t *testing.T) {
		got, err := s.Usage(ctx, a.ID, featureA, periodA)
		wantErr(t, "Usage(A)", err, nil)
		if got != 0 {
			t.Fatalf("A's usage: got %d, want 0", got)
		}
	})
	t.Run("ConsumeUsage", func(t *testing.T) {
		got, err := s.ConsumeUsage(ctx, a.ID, featureA, periodA, 1, 1, nil)
		wantErr(t, "ConsumeUsage(A) with limit 1", err, nil)
		if got != 1 {
			t.Fatalf("A's usage after consuming 1: got %d, want 1", got)
		}
	})
	t.Run("LimitOverrides", func(t *testing.T) {
		got, err := s.LimitOverrides(ctx, a.ID)
		wantErr(t, "LimitOverrides(A)", err, nil)
		if len(got) != 0 {
			t.Fatalf("A's overrides: got %s, want none", showLimits(got))
		}
	})
	t.Run("DeleteLimitOverride", func(t *testing.T) {
		wantErr(t, "DeleteLimitOverride(A)", s.DeleteLimitOverride(ctx, a.ID, featureA), nil)
	})
	t.Run("BUnchanged", func(t *testing.T) {
		used, err := s.Usage(ctx, b.ID, featureA, periodA)
		wantErr(t, "Usage(B)", err, nil)
		overrides, err := s.LimitOverrides(ctx, b.ID)
		wantErr(t, "LimitOverrides(B)", err, nil)
		if used != 3 || !sameLimits(overrides, map[string]*int64{featureA: &limit}) {
			t.Fatalf("B after A's activity: usage %d, overrides %s; want 3, {%s=4}", used, showLimits(overrides), featureA)
		}
	})
}

// testModuleIsolation: B's switches are not A's.
func testModuleIsolation(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	if _, err := s.SetModuleToggle(ctx, b.ID, "support.sla", true, false, at(1)); err != nil {
		t.Fatalf("SetModuleToggle(B): %v", err)
	}

	t.Run("ModuleToggles", func(t *testing.T) {
		got, err := s.ModuleToggles(ctx, a.ID)
		wantErr(t, "ModuleToggles(A)", err, nil)
		if len(got) != 0 {
			t.Fatalf("A's toggles: got %v, want none", got)
		}
	})
	t.Run("SetModuleToggle", func(t *testing.T) {
		changed, err := s.SetModuleToggle(ctx, a.ID, "support.sla", true, false, at(2))
		wantErr(t, "SetModuleToggle(A)", err, nil)
		if !changed {
			t.Fatalf("A enabling a module B enabled: got changed=false, want true")
		}
	})
}

// testNotificationIsolation: B's notifications are neither listed for A
// nor read through A, and notification keys are per tenant.
func testNotificationIsolation(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	noteB := mustNotification(t, s, b.ID, "shared-key")

	t.Run("Notifications", func(t *testing.T) {
		got, more, err := s.Notifications(ctx, a.ID, tenancy.NotificationFilter{Limit: 100})
		wantErr(t, "Notifications(A)", err, nil)
		if len(got) != 0 || more {
			t.Fatalf("A's notifications: got %v more=%v, want none", ids(got), more)
		}
	})
	t.Run("NotificationKeyPerTenant", func(t *testing.T) {
		mustNotification(t, s, a.ID, "shared-key")
	})
	t.Run("MarkNotificationRead", func(t *testing.T) {
		_, err := s.MarkNotificationRead(ctx, a.ID, noteB.ID, at(3))
		wantErr(t, "MarkNotificationRead(A, B's notification)", err, tenancy.ErrNotFound)
		got, _, err := s.Notifications(ctx, b.ID, tenancy.NotificationFilter{Limit: 1, UnreadOnly: true})
		wantErr(t, "Notifications(B)", err, nil)
		if len(got) != 1 || got[0].ID != noteB.ID {
			t.Fatalf("B's unread notifications after A tried to read one: got %v, want [%s]", ids(got), noteB.ID)
		}
	})
	t.Run("MarkNotificationsRead", func(t *testing.T) {
		// A's only notification is the one of NotificationKeyPerTenant.
		n, err := s.MarkNotificationsRead(ctx, a.ID, "", at(4))
		wantErr(t, "MarkNotificationsRead(A)", err, nil)
		if n != 1 {
			t.Fatalf("MarkNotificationsRead(A): marked %d, want A's 1", n)
		}
		unread, err := s.UnreadNotifications(ctx, b.ID)
		wantErr(t, "UnreadNotifications(B)", err, nil)
		if unread != 1 {
			t.Fatalf("B's unread notifications after A read all of its own: got %d, want 1", unread)
		}
	})
	t.Run("UnreadNotifications", func(t *testing.T) {
		mustNotification(t, s, b.ID, "")
		unread, err := s.UnreadNotifications(ctx, a.ID)
		wantErr(t, "UnreadNotifications(A)", err, nil)
		if unread != 0 {
			t.Fatalf("A's unread notifications: got %d, want 0 (B's are not A's)", unread)
		}
	})
}

// testMemberIsolation: B's members are neither listed, counted, changed
// nor removed through A.
func testMemberIsolation(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b := mustTenant(t, s), mustTenant(t, s)
	userB := mustUser(t, s)
	mustMember(t, s, b.ID, userB.ID, tenancy.RoleOwner)

	t.Run("Members", func(t *testing.T) {
		got, _, err := s.Members(ctx, a.ID, tenancy.MemberFilter{Limit: 10})
		wantErr(t, "Members(A)", err, nil)
		if len(got) != 0 {
			t.Fatalf("A's members: got %+v, want none", got)
		}
	})
	t.Run("CountMembers", func(t *testing.T) {
		n, err := s.CountMembers(ctx, a.ID, "")
		wantErr(t, "CountMembers(A)", err, nil)
		if n != 0 {
			t.Fatalf("A's member count: got %d, want 0", n)
		}
	})
	t.Run("SetMemberRole", func(t *testing.T) {
		wantErr(t, "SetMemberRole(A, B's member)", s.SetMemberRole(ctx, a.ID, userB.ID, tenancy.RoleMember), tenancy.ErrNotFound)
	})
	t.Run("RemoveMember", func(t *testing.T) {
		wantErr(t, "RemoveMember(A, B's member)", s.RemoveMember(ctx, a.ID, userB.ID), tenancy.ErrNotFound)
	})
	t.Run("BUnchanged", func(t *testing.T) {
		m, err := s.Membership(ctx, b.ID, userB.ID)
		wantErr(t, "Membership(B)", err, nil)
		if m.Role != tenancy.RoleOwner {
			t.Fatalf("B's member after A's changes: role %s, want owner", m.Role)
		}
	})
}
