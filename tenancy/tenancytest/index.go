package tenancytest

import (
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunIndex checks a tenancy.IndexStore: search, order and pages of each
// listing. Its cases confine their assertions to what they create (a
// search word of their own, a tenant of their own), so that the backend's
// database may hold other suites' rows.
func RunIndex(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"Tenants", testIndexTenants},
		{"Users", testIndexUsers},
		{"APIKeys", testIndexAPIKeys},
	})
}

func testIndexTenants(t *testing.T, s Backend) {
	ctx := t.Context()
	word := strings.ReplaceAll(unique(), "-", "")
	mk := func(slug, name string) tenancy.Tenant {
		tn := tenancy.Tenant{ID: id.New(id.Tenant), Slug: slug, Name: name, PlanID: "free", Seats: 2, CreatedAt: at(0)}
		if err := s.CreateTenant(ctx, tn); err != nil {
			t.Fatalf("CreateTenant(%s): %v", slug, err)
		}
		return tn
	}
	bySlug := mk("s-"+word, "Plain")
	byName := mk("n-"+unique(), "The "+strings.ToUpper(word)+" Company")
	literal := mk("l-"+unique(), word+" 100%_off")
	_ = mk("x-"+unique(), "Unrelated")

	tests := []struct {
		name   string
		filter tenancy.SearchFilter
		want   []tenancy.Tenant
		more   bool
	}{
		{"SlugOrNameAnyCase", tenancy.SearchFilter{Query: strings.ToUpper(word), Limit: 10}, []tenancy.Tenant{literal, byName, bySlug}, false},
		{"Page", tenancy.SearchFilter{Query: word, Limit: 2}, []tenancy.Tenant{literal, byName}, true},
		{"Before", tenancy.SearchFilter{Query: word, Limit: 2, Before: byName.ID}, []tenancy.Tenant{bySlug}, false},
		{"PercentAndUnderscoreAreLiteral", tenancy.SearchFilter{Query: word + " 100%_", Limit: 10}, []tenancy.Tenant{literal}, false},
		{"WildcardsMatchNothingElse", tenancy.SearchFilter{Query: word + "%", Limit: 10}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.Tenants(ctx, tc.filter)
			wantErr(t, "Tenants", err, nil)
			if idList(got, func(x tenancy.Tenant) string { return x.ID }) != idList(tc.want, func(x tenancy.Tenant) string { return x.ID }) || more != tc.more {
				t.Fatalf("Tenants(%+v): got %v more %v, want %v more %v", tc.filter,
					idList(got, func(x tenancy.Tenant) string { return x.Slug }), more, idList(tc.want, func(x tenancy.Tenant) string { return x.Slug }), tc.more)
			}
		})
	}
	t.Run("Fields", func(t *testing.T) {
		got, _, err := s.Tenants(ctx, tenancy.SearchFilter{Query: bySlug.Slug, Limit: 1})
		wantErr(t, "Tenants", err, nil)
		if len(got) != 1 || got[0] != bySlug {
			t.Fatalf("Tenants: got %+v, want %+v", got, bySlug)
		}
	})
}

func testIndexUsers(t *testing.T, s Backend) {
	ctx := t.Context()
	word := strings.ReplaceAll(unique(), "-", "")
	mk := func(email, name string) tenancy.User {
		u := tenancy.User{ID: id.New(id.User), Email: email, Name: name, CreatedAt: at(0)}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatalf("CreateUser(%s): %v", email, err)
		}
		return u
	}
	byEmail := mk(word+"@example.com", "Ann")
	byName := mk(unique()+"@example.com", "Bob "+strings.ToUpper(word))
	_ = mk(unique()+"@example.com", "Carol")

	tests := []struct {
		name   string
		filter tenancy.SearchFilter
		want   []tenancy.User
		more   bool
	}{
		{"EmailOrNameAnyCase", tenancy.SearchFilter{Query: word, Limit: 10}, []tenancy.User{byName, byEmail}, false},
		{"Page", tenancy.SearchFilter{Query: word, Limit: 1}, []tenancy.User{byName}, true},
		{"Before", tenancy.SearchFilter{Query: word, Limit: 1, Before: byName.ID}, []tenancy.User{byEmail}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.Users(ctx, tc.filter)
			wantErr(t, "Users", err, nil)
			if idList(got, func(x tenancy.User) string { return x.ID }) != idList(tc.want, func(x tenancy.User) string { return x.ID }) || more != tc.more {
				t.Fatalf("Users(%+v): got %v more %v, want %v more %v", tc.filter,
					idList(got, func(x tenancy.User) string { return x.Email }), more, idList(tc.want, func(x tenancy.User) string { return x.Email }), tc.more)
			}
		})
	}
	t.Run("Fields", func(t *testing.T) {
		got, _, err := s.Users(ctx, tenancy.SearchFilter{Query: byEmail.Email, Limit: 1})
		wantErr(t, "Users", err, nil)
		if len(got) != 1 || got[0].ID != byEmail.ID || got[0].Email != byEmail.Email || got[0].Name != byEmail.Name || !got[0].CreatedAt.Equal(at(0)) {
			t.Fatalf("Users: got %+v, want %+v", got, byEmail)
		}
	})
}

func testIndexAPIKeys(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant, other, user := mustTenant(t, s), mustTenant(t, s), mustUser(t, s)
	mustMember(t, s, tenant.ID, user.ID, tenancy.RoleOwner)
	mustMember(t, s, other.ID, user.ID, tenancy.RoleOwner)
	mk := func(tenantID string) tenancy.APIKey {
		k := tenancy.APIKey{ID: id.New(id.APIKey), UserID: user.ID, Name: "k", TenantID: tenantID,
			Scopes: []tenancy.Scope{tenancy.ScopeTicketsRead}, Prefix: "tk_dddddd", CreatedAt: at(0)}
		if err := s.CreateAPIKey(ctx, k, tenancy.HashSecret(k.ID)); err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		return k
	}
	first, second := mk(tenant.ID), mk(tenant.ID)
	otherKey, unpinned := mk(other.ID), mk("")
	wantErr(t, "RevokeAPIKey", s.RevokeAPIKey(ctx, first.ID, at(3)), nil)

	tests := []struct {
		name   string
		filter tenancy.KeyFilter
		want   []tenancy.APIKey
		more   bool
	}{
		{"Tenant", tenancy.KeyFilter{TenantID: tenant.ID, Limit: 10}, []tenancy.APIKey{second, first}, false},
		{"TenantPage", tenancy.KeyFilter{TenantID: tenant.ID, Limit: 1}, []tenancy.APIKey{second}, true},
		{"TenantBefore", tenancy.KeyFilter{TenantID: tenant.ID, Limit: 1, Before: second.ID}, []tenancy.APIKey{first}, false},
		{"OtherTenant", tenancy.KeyFilter{TenantID: other.ID, Limit: 10}, []tenancy.APIKey{otherKey}, false},
		{"AllNewestFirst", tenancy.KeyFilter{Limit: 2}, []tenancy.APIKey{unpinned, otherKey}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.APIKeys(ctx, tc.filter)
			wantErr(t, "APIKeys", err, nil)
			if idList(got, func(x tenancy.APIKey) string { return x.ID }) != idList(tc.want, func(x tenancy.APIKey) string { return x.ID }) || more != tc.more {
				t.Fatalf("APIKeys(%+v): got %v more %v, want %v more %v", tc.filter,
					idList(got, func(x tenancy.APIKey) string { return x.ID }), more, idList(tc.want, func(x tenancy.APIKey) string { return x.ID }), tc.more)
			}
		})
	}
	t.Run("Fields", func(t *testing.T) {
		got, _, err := s.APIKeys(ctx, tenancy.KeyFilter{TenantID: tenant.ID, Limit: 10})
		wantErr(t, "APIKeys", err, nil)
		k := got[1]
		if k.ID != first.ID || k.UserID != user.ID || k.TenantID != tenant.ID || k.Prefix != first.Prefix ||
			len(k.Scopes) != 1 || k.RevokedAt == nil || !k.RevokedAt.Equal(at(3)) || got[0].RevokedAt != nil {
			t.Fatalf("APIKeys: got %+v, want %+v revoked at %v", k, first, at(3))
		}
	})
}

// idList joins the ids of items, to compare pages.
func idList[T any](items []T, id func(T) string) string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = id(x)
	}
	return strings.Join(out, ",")
}
