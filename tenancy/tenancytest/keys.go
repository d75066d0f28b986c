package tenancytest

import (
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunKeys checks a tenancy.KeyStore: every method and its documented
// errors.
func RunKeys(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"APIKeys", testAPIKeys},
		{"RevokeAPIKey", testRevokeAPIKey},
	})
}

func testAPIKeys(t *testing.T, s Backend) {
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

func testRevokeAPIKey(t *testing.T, s Backend) {
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
