package tenancytest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunDirectory checks a tenancy.DirectoryStore: every method, its
// documented errors, that it joins the transactions of Backend.Tx, and
// that no tenant sees another's members.
func RunDirectory(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"Tenants", testTenants},
		{"Users", testUsers},
		{"Memberships", testMemberships},
		{"MembershipsOrder", testMembershipsOrder},
		{"Selections", testSelections},
		{"Transactions", testTransactions},
		{"Isolation", testDirectoryIsolation},
	})
}

func testTenants(t *testing.T, s Backend) {
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

func testUsers(t *testing.T, s Backend) {
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

func testMemberships(t *testing.T, s Backend) {
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

func testMembershipsOrder(t *testing.T, s Backend) {
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

func testSelections(t *testing.T, s Backend) {
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

// testTransactions checks that the store joins the transactions of
// Backend.Tx: their work commits and rolls back with them, and a nested
// transaction is a savepoint whose failure undoes only its own work.
func testTransactions(t *testing.T, s Backend) {
	ctx := t.Context()
	errBoom := errors.New("boom")
	exists := func(t *testing.T, slug string) bool { return tenantExists(t, s, slug) }
	create := func(ctx context.Context, slug string) error { return createBareTenant(ctx, s, slug) }

	t.Run("Commit", func(t *testing.T) {
		slug := "tx-" + unique()
		wantErr(t, "InTx", s.Tx.InTx(ctx, func(ctx context.Context) error { return create(ctx, slug) }), nil)
		if !exists(t, slug) {
			t.Fatalf("tenant created in a committed transaction: not found")
		}
	})
	t.Run("Rollback", func(t *testing.T) {
		slug := "tx-" + unique()
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			if err := create(ctx, slug); err != nil {
				return err
			}
			return errBoom
		})
		wantErr(t, "InTx returns fn's error", err, errBoom)
		if exists(t, slug) {
			t.Fatalf("tenant created in a rolled-back transaction: found")
		}
	})
	t.Run("NestedRollbackKeepsOuter", func(t *testing.T) {
		outer, inner := "tx-"+unique(), "tx-"+unique()
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
			if err := create(ctx, outer); err != nil {
				return err
			}
			err := s.Tx.InTx(ctx, func(ctx context.Context) error {
				if err := create(ctx, inner); err != nil {
					return err
				}
				return errBoom
			})
			if !errors.Is(err, errBoom) {
				return fmt.Errorf("inner InTx: got %v, want %v", err, errBoom)
			}
			return nil
		})
		wantErr(t, "outer InTx", err, nil)
		if !exists(t, outer) || exists(t, inner) {
			t.Fatalf("after a failed savepoint: outer exists=%v, inner exists=%v; want true, false", exists(t, outer), exists(t, inner))
		}
	})
}

// tenantExists reports whether a tenant with slug is stored (outside any
// transaction).
func tenantExists(t *testing.T, s tenancy.DirectoryStore, slug string) bool {
	t.Helper()
	_, err := s.TenantBySlug(t.Context(), slug)
	if err != nil && !errors.Is(err, tenancy.ErrNotFound) {
		t.Fatalf("TenantBySlug(%s): %v", slug, err)
	}
	return err == nil
}

// createBareTenant stores a minimal tenant with slug on ctx's transaction,
// for the transaction tests.
func createBareTenant(ctx context.Context, s tenancy.DirectoryStore, slug string) error {
	return s.CreateTenant(ctx, tenancy.Tenant{ID: id.New(id.Tenant), Slug: slug, Name: slug, PlanID: "free", Seats: 2, CreatedAt: at(0)})
}
