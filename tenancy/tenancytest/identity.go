package tenancytest

import (
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func testTenants(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	want := mustTenant(t, s)

	t.Run("ByID", func(t *testing.T) {
		got, err := s.Tenant(ctx, want.ID)
		wantErr(t, "Tenant", err, nil)
		if got.ID != want.ID || got.Slug != want.Slug || got.Name != want.Name || got.PlanID != want.PlanID ||
			got.Seats != want.Seats || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("Tenant: got %+v, want %+v", got, want)
		}
	})
	t.Run("BySlug", func(t *testing.T) {
		got, err := s.TenantBySlug(ctx, want.Slug)
		wantErr(t, "TenantBySlug", err, nil)
		if got.ID != want.ID {
			t.Fatalf("TenantBySlug(%s): got id %s, want %s", want.Slug, got.ID, want.ID)
		}
	})
	t.Run("ErrConflictSlug", func(t *testing.T) {
		dup := want
		dup.ID = id.New(id.Tenant)
		wantErr(t, "CreateTenant with a taken slug", s.CreateTenant(ctx, dup), tenancy.ErrConflict)
	})
	t.Run("ErrNotFoundID", func(t *testing.T) {
		_, err := s.Tenant(ctx, id.New(id.Tenant))
		wantErr(t, "Tenant(unknown)", err, tenancy.ErrNotFound)
	})
	t.Run("ErrNotFoundSlug", func(t *testing.T) {
		_, err := s.TenantBySlug(ctx, "no-"+unique())
		wantErr(t, "TenantBySlug(unknown)", err, tenancy.ErrNotFound)
	})
}

func testUsers(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	want := mustUser(t, s)

	t.Run("ByID", func(t *testing.T) {
		got, err := s.User(ctx, want.ID)
		wantErr(t, "User", err, nil)
		if got.ID != want.ID || got.Email != want.Email || got.Name != want.Name || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("User: got %+v, want %+v", got, want)
		}
	})
	t.Run("ByEmail", func(t *testing.T) {
		got, err := s.UserByEmail(ctx, want.Email)
		wantErr(t, "UserByEmail", err, nil)
		if got.ID != want.ID {
			t.Fatalf("UserByEmail(%s): got id %s, want %s", want.Email, got.ID, want.ID)
		}
	})
	t.Run("ErrConflictEmail", func(t *testing.T) {
		dup := want
		dup.ID = id.New(id.User)
		wantErr(t, "CreateUser with a taken email", s.CreateUser(ctx, dup), tenancy.ErrConflict)
	})
	t.Run("ErrNotFoundID", func(t *testing.T) {
		_, err := s.User(ctx, id.New(id.User))
		wantErr(t, "User(unknown)", err, tenancy.ErrNotFound)
	})
	t.Run("ErrNotFoundEmail", func(t *testing.T) {
		_, err := s.UserByEmail(ctx, unique()+"@example.com")
		wantErr(t, "UserByEmail(unknown)", err, tenancy.ErrNotFound)
	})
}

func testMemberships(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant, user, stranger := mustTenant(t, s), mustUser(t, s), mustUser(t, s)
	want := mustMember(t, s, tenant.ID, user.ID, tenancy.RoleBilling)

	t.Run("Membership", func(t *testing.T) {
		got, err := s.Membership(ctx, tenant.ID, user.ID)
		wantErr(t, "Membership", err, nil)
		if got.TenantID != want.TenantID || got.UserID != want.UserID || got.Role != want.Role || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("Membership: got %+v, want %+v", got, want)
		}
	})

	tests := []struct {
		name string
		m    tenancy.Membership
		want error
	}{
		{"ErrConflictTwice", tenancy.Membership{TenantID: tenant.ID, UserID: user.ID, Role: tenancy.RoleOwner, CreatedAt: at(1)}, tenancy.ErrConflict},
		{"ErrNotFoundTenant", tenancy.Membership{TenantID: id.New(id.Tenant), UserID: user.ID, Role: tenancy.RoleOwner, CreatedAt: at(1)}, tenancy.ErrNotFound},
		{"ErrNotFoundUser", tenancy.Membership{TenantID: tenant.ID, UserID: id.New(id.User), Role: tenancy.RoleOwner, CreatedAt: at(1)}, tenancy.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, "AddMembership", s.AddMembership(ctx, tc.m), tc.want)
		})
	}

	t.Run("ErrNotFoundNotMember", func(t *testing.T) {
		_, err := s.Membership(ctx, tenant.ID, stranger.ID)
		wantErr(t, "Membership(non-member)", err, tenancy.ErrNotFound)
	})
	t.Run("RoleKept", func(t *testing.T) {
		got, err := s.Membership(ctx, tenant.ID, user.ID)
		wantErr(t, "Membership", err, nil)
		if got.Role != tenancy.RoleBilling {
			t.Fatalf("role after a refused second AddMembership: got %s, want %s", got.Role, tenancy.RoleBilling)
		}
	})
}

func testMembershipsOrder(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	prefix := "o-" + unique()
	c := mustTenantSlug(t, s, prefix+"-c")
	a := mustTenantSlug(t, s, prefix+"-a")
	b := mustTenantSlug(t, s, prefix+"-b")
	user, loner := mustUser(t, s), mustUser(t, s)
	mustMember(t, s, c.ID, user.ID, tenancy.RoleMember)
	mustMember(t, s, a.ID, user.ID, tenancy.RoleOwner)
	mustMember(t, s, b.ID, user.ID, tenancy.RoleSupport)

	t.Run("OrderedBySlug", func(t *testing.T) {
		ms, err := s.Memberships(ctx, user.ID)
		wantErr(t, "Memberships", err, nil)
		var got []string
		for _, m := range ms {
			got = append(got, m.Tenant.Slug+":"+string(m.Role))
		}
		want := []string{a.Slug + ":owner", b.Slug + ":support", c.Slug + ":member"}
		if !slices.Equal(got, want) {
			t.Fatalf("Memberships: got %v, want %v", got, want)
		}
		if ms[0].Tenant.ID != a.ID || ms[0].Tenant.Name != a.Name || ms[0].Tenant.PlanID != a.PlanID {
			t.Fatalf("Memberships[0].Tenant: got %+v, want %+v", ms[0].Tenant, a)
		}
	})
	t.Run("None", func(t *testing.T) {
		ms, err := s.Memberships(ctx, loner.ID)
		wantErr(t, "Memberships", err, nil)
		if len(ms) != 0 {
			t.Fatalf("Memberships of a user in no tenant: got %v, want none", ms)
		}
	})
}

func testCountMembers(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant, other := mustTenant(t, s), mustTenant(t, s)
	count := func(t *testing.T, tenantID string, want int64) {
		t.Helper()
		got, err := s.CountMembers(ctx, tenantID)
		wantErr(t, "CountMembers", err, nil)
		if got != want {
			t.Fatalf("CountMembers(%s): got %d, want %d", tenantID, got, want)
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

func testAPIKeys(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant, user := mustTenant(t, s), mustUser(t, s)
	mustMember(t, s, tenant.ID, user.ID, tenancy.RoleOwner)

	tests := []struct {
		name string
		key  tenancy.APIKey
	}{
		{"Unpinned", tenancy.APIKey{
			ID: id.New(id.APIKey), UserID: user.ID, Name: "ci",
			Scopes: []tenancy.Scope{tenancy.ScopeCollectionsRead}, Prefix: "tk_aaaaaa", CreatedAt: at(0),
		}},
		{"Pinned", tenancy.APIKey{
			ID: id.New(id.APIKey), UserID: user.ID, Name: "", TenantID: tenant.ID,
			Scopes:    []tenancy.Scope{tenancy.ScopeCollectionsRead, tenancy.ScopeTicketsWrite},
			Prefix:    "tk_bbbbbb",
			CreatedAt: at(0),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hash := tenancy.HashSecret(tc.key.ID + "-secret")
			wantErr(t, "CreateAPIKey", s.CreateAPIKey(ctx, tc.key, hash), nil)
			got, gotUser, err := s.APIKeyByHash(ctx, hash)
			wantErr(t, "APIKeyByHash", err, nil)
			want := tc.key
			if got.ID != want.ID || got.UserID != want.UserID || got.Name != want.Name || got.TenantID != want.TenantID ||
				got.Prefix != want.Prefix || !slices.Equal(got.Scopes, want.Scopes) || !got.CreatedAt.Equal(want.CreatedAt) || got.RevokedAt != nil {
				t.Fatalf("APIKeyByHash: got %+v, want %+v", got, want)
			}
			if gotUser.ID != user.ID || gotUser.Email != user.Email || gotUser.Name != user.Name || !gotUser.CreatedAt.Equal(user.CreatedAt) {
				t.Fatalf("APIKeyByHash user: got %+v, want %+v", gotUser, user)
			}
		})
	}
	t.Run("ErrNotFoundHash", func(t *testing.T) {
		_, _, err := s.APIKeyByHash(ctx, tenancy.HashSecret("tk_"+unique()))
		wantErr(t, "APIKeyByHash(unknown)", err, tenancy.ErrNotFound)
	})
}

func testRevokeAPIKey(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	user := mustUser(t, s)
	k := tenancy.APIKey{ID: id.New(id.APIKey), UserID: user.ID, Scopes: []tenancy.Scope{tenancy.ScopeTicketsRead}, Prefix: "tk_cccccc", CreatedAt: at(0)}
	hash := tenancy.HashSecret(k.ID)
	wantErr(t, "CreateAPIKey", s.CreateAPIKey(ctx, k, hash), nil)

	stored := func(t *testing.T) tenancy.APIKey {
		t.Helper()
		got, _, err := s.APIKeyByHash(ctx, hash)
		wantErr(t, "APIKeyByHash of a revoked key", err, nil)
		return got
	}
	t.Run("Revoke", func(t *testing.T) {
		wantErr(t, "RevokeAPIKey", s.RevokeAPIKey(ctx, k.ID, at(5)), nil)
		if got := stored(t); got.RevokedAt == nil || !got.RevokedAt.Equal(at(5)) {
			t.Fatalf("RevokedAt: got %v, want %v", got.RevokedAt, at(5))
		}
	})
	t.Run("TwiceKeepsFirst", func(t *testing.T) {
		wantErr(t, "RevokeAPIKey again", s.RevokeAPIKey(ctx, k.ID, at(9)), nil)
		if got := stored(t); got.RevokedAt == nil || !got.RevokedAt.Equal(at(5)) {
			t.Fatalf("RevokedAt after a second revoke: got %v, want the first %v", got.RevokedAt, at(5))
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantErr(t, "RevokeAPIKey(unknown)", s.RevokeAPIKey(ctx, id.New(id.APIKey), at(5)), tenancy.ErrNotFound)
	})
}

func testSelections(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	a, b, user := mustTenant(t, s), mustTenant(t, s), mustUser(t, s)
	cred, other := "sid:"+unique(), "sid:"+unique()

	selection := func(t *testing.T, cred, want string) {
		t.Helper()
		got, err := s.Selection(ctx, cred)
		wantErr(t, "Selection", err, nil)
		if got != want {
			t.Fatalf("Selection(%s): got %s, want %s", cred, got, want)
		}
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := s.Selection(ctx, cred)
		wantErr(t, "Selection before any", err, tenancy.ErrNotFound)
	})
	t.Run("Set", func(t *testing.T) {
		wantErr(t, "SetSelection", s.SetSelection(ctx, cred, user.ID, a.ID, at(1)), nil)
		selection(t, cred, a.ID)
	})
	t.Run("Upsert", func(t *testing.T) {
		wantErr(t, "SetSelection again", s.SetSelection(ctx, cred, user.ID, b.ID, at(2)), nil)
		selection(t, cred, b.ID)
	})
	t.Run("PerCredential", func(t *testing.T) {
		wantErr(t, "SetSelection", s.SetSelection(ctx, other, user.ID, a.ID, at(3)), nil)
		selection(t, other, a.ID)
		selection(t, cred, b.ID)
	})
}
