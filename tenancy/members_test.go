package tenancy_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestMembers_Add(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		byID, bySlug, twice := mustUser(t, e.svc), mustUser(t, e.svc), mustUser(t, e.svc)
		mustMember(t, e.svc, tenant.ID, twice, tenancy.RoleMember)

		tests := []struct {
			name       string
			tenantRef  string
			userRef    string
			role       tenancy.Role
			want       tenancy.User
			wantErr    error
			wantFields []string
		}{
			{"OKByIDs", tenant.ID, byID.ID, tenancy.RoleAdmin, byID, nil, nil},
			{"OKBySlugAndEmailAnyCase", tenant.Slug, strings.ToUpper(bySlug.Email), tenancy.RoleBilling, bySlug, nil, nil},
			{"ErrRoleUnknown", tenant.ID, byID.Email, "root", tenancy.User{}, tenancy.ErrInvalid, []string{"role"}},
			{"ErrNotFoundTenant", "no-such-tenant", byID.Email, tenancy.RoleMember, tenancy.User{}, tenancy.ErrNotFound, nil},
			{"ErrNotFoundUser", tenant.ID, "nobody@example.com", tenancy.RoleMember, tenancy.User{}, tenancy.ErrNotFound, nil},
			{"ErrNotFoundUserID", tenant.ID, id.New(id.User), tenancy.RoleMember, tenancy.User{}, tenancy.ErrNotFound, nil},
			{"ErrConflictTwice", tenant.ID, twice.Email, tenancy.RoleOwner, tenancy.User{}, tenancy.ErrConflict, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				m, err := e.svc.Members.Add(ctx, tc.tenantRef, tc.userRef, tc.role)
				if tc.wantFields != nil {
					wantFields(t, "Add", err, tc.wantFields...)
					return
				}
				wantErr(t, "Add", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				want := tenancy.Member{TenantID: tenant.ID, UserID: tc.want.ID, Email: tc.want.Email, Name: tc.want.Name,
					Role: tc.role, CreatedAt: testNow()}
				if m != want {
					t.Fatalf("Add: got %+v, want %+v", m, want)
				}
			})
		}
		t.Run("Memberships", func(t *testing.T) {
			ms, err := e.svc.Directory.Memberships(ctx, byID.ID)
			wantErr(t, "Memberships", err, nil)
			if len(ms) != 1 || ms[0].Tenant.ID != tenant.ID || ms[0].Role != tenancy.RoleAdmin {
				t.Fatalf("Memberships: got %+v, want [%s admin]", ms, tenant.ID)
			}
		})
	})
}

// TestMembers_Seats: adding a member takes a seat of the tenant's seats
// limit (its contract's seats, or an override), removing one frees it.
func TestMembers_Seats(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanFree) // 2 seats
		users := make([]tenancy.User, 5)
		for i := range users {
			users[i] = mustUser(t, e.svc)
		}
		add := func(u tenancy.User) error {
			_, err := e.svc.Members.Add(ctx, tenant.ID, u.ID, tenancy.RoleMember)
			return err
		}
		wantLimit := func(t *testing.T, err error, limit, usage int64) {
			t.Helper()
			var le *tenancy.LimitError
			if !errors.As(err, &le) || !errors.Is(err, tenancy.ErrLimitExceeded) {
				t.Fatalf("Add: got %v, want a *LimitError", err)
			}
			if le.Feature != catalog.FeatureSeats || le.Limit != limit || le.Usage != usage || !le.ResetsAt.IsZero() {
				t.Fatalf("Add: got %+v, want seats limit %d usage %d and no reset", le, limit, usage)
			}
			if want := "limit of 2 seats reached; remove a member or raise the seats first"; limit == 2 && le.Detail() != want {
				t.Fatalf("Detail: got %q, want %q", le.Detail(), want)
			}
		}
		steps := []struct {
			name string
			do   func(t *testing.T)
		}{
			{"FirstSeat", func(t *testing.T) { wantErr(t, "Add", add(users[0]), nil) }},
			{"LastSeat", func(t *testing.T) { wantErr(t, "Add", add(users[1]), nil) }},
			{"ErrLimitExceeded", func(t *testing.T) { wantLimit(t, add(users[2]), 2, 2) }},
			{"RemoveFreesASeat", func(t *testing.T) {
				wantErr(t, "Remove", e.svc.Members.Remove(ctx, tenant.Slug, users[1].Email), nil)
				wantErr(t, "Add", add(users[2]), nil)
			}},
			{"OverrideRaises", func(t *testing.T) {
				wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureSeats, ptr(3)), nil)
				wantErr(t, "Add", add(users[1]), nil)
				wantLimit(t, add(users[3]), 3, 3)
			}},
			{"UnlimitedOverride", func(t *testing.T) {
				wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureSeats, nil), nil)
				wantErr(t, "Add", add(users[3]), nil)
			}},
			{"ClearedOverrideRestoresContract", func(t *testing.T) {
				wantErr(t, "ClearLimit", e.svc.Entitlements.ClearLimit(ctx, tenant.Slug, catalog.FeatureSeats), nil)
				if got := mustEntitlement(t, e.svc, tenant.ID, catalog.FeatureSeats); got.Limit == nil || *got.Limit != 2 || got.Usage != 4 {
					t.Fatalf("seats after ClearLimit: %+v, want limit 2, usage 4", got)
				}
				wantLimit(t, add(users[4]), 2, 4)
			}},
		}
		for _, st := range steps {
			t.Run(st.name, st.do)
		}
	})
}

// TestMembers_AddConcurrent: concurrent adds never take more seats than
// the tenant has.
func TestMembers_AddConcurrent(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tenant := mustTenant(t, e.svc, catalog.PlanStarter) // 3 seats
		const workers = 12
		users := make([]tenancy.User, workers)
		for i := range users {
			users[i] = mustUser(t, e.svc)
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			added   int
			refused int
		)
		for _, u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.svc.Members.Add(context.Background(), tenant.ID, u.ID, tenancy.RoleMember)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					added++
				case errors.Is(err, tenancy.ErrLimitExceeded):
					refused++
				default:
					t.Errorf("Add: %v", err)
				}
			}()
		}
		wg.Wait()
		if added != 3 || refused != workers-3 {
			t.Fatalf("%d concurrent adds to 3 seats: %d added, %d refused; want 3 and %d", workers, added, refused, workers-3)
		}
		if got := mustEntitlement(t, e.svc, tenant.ID, catalog.FeatureSeats); got.Usage != 3 {
			t.Fatalf("seats used: %d, want 3", got.Usage)
		}
	})
}

func TestMembers_SetRoleAndRemove(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		ann, bob, stranger := mustUser(t, e.svc), mustUser(t, e.svc), mustUser(t, e.svc)
		mustMember(t, e.svc, tenant.ID, ann, tenancy.RoleOwner)
		mustMember(t, e.svc, tenant.ID, bob, tenancy.RoleMember)

		steps := []struct {
			name    string
			do      func() error
			wantErr error
		}{
			{"ErrLastOwnerDemote", func() error {
				_, err := e.svc.Members.SetRole(ctx, tenant.ID, ann.ID, tenancy.RoleAdmin)
				return err
			}, tenancy.ErrLastOwner},
			{"ErrLastOwnerRemove", func() error { return e.svc.Members.Remove(ctx, tenant.ID, ann.ID) }, tenancy.ErrLastOwner},
			{"OwnerStaysOwner", func() error {
				_, err := e.svc.Members.SetRole(ctx, tenant.ID, ann.ID, tenancy.RoleOwner)
				return err
			}, nil},
			{"Promote", func() error {
				m, err := e.svc.Members.SetRole(ctx, tenant.Slug, bob.Email, tenancy.RoleOwner)
				if err == nil && (m.Role != tenancy.RoleOwner || m.UserID != bob.ID || m.Email != bob.Email) {
					t.Fatalf("SetRole: got %+v, want bob as owner", m)
				}
				return err
			}, nil},
			{"DemoteOneOfTwoOwners", func() error {
				_, err := e.svc.Members.SetRole(ctx, tenant.ID, ann.ID, tenancy.RoleBilling)
				return err
			}, nil},
			{"RemoveNonOwner", func() error { return e.svc.Members.Remove(ctx, tenant.ID, ann.ID) }, nil},
			{"ErrNotFoundRemoved", func() error { return e.svc.Members.Remove(ctx, tenant.ID, ann.ID) }, tenancy.ErrNotFound},
			{"ErrNotFoundStranger", func() error {
				_, err := e.svc.Members.SetRole(ctx, tenant.ID, stranger.ID, tenancy.RoleMember)
				return err
			}, tenancy.ErrNotFound},
			{"ErrNotFoundTenant", func() error { return e.svc.Members.Remove(ctx, id.New(id.Tenant), bob.ID) }, tenancy.ErrNotFound},
			{"ErrInvalidRole", func() error {
				_, err := e.svc.Members.SetRole(ctx, tenant.ID, bob.ID, "root")
				return err
			}, tenancy.ErrInvalid},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				err := st.do()
				wantErr(t, st.name, err, st.wantErr)
				if errors.Is(st.wantErr, tenancy.ErrLastOwner) && !errors.Is(err, tenancy.ErrConflict) {
					t.Fatalf("ErrLastOwner does not match ErrConflict: %v", err)
				}
			})
		}
		t.Run("Members", func(t *testing.T) {
			ms, more, err := e.svc.Members.List(ctx, tenant.ID, tenancy.MemberFilter{})
			wantErr(t, "List", err, nil)
			if more || len(ms) != 1 || ms[0].UserID != bob.ID || ms[0].Role != tenancy.RoleOwner {
				t.Fatalf("List: got %+v, want bob as the only owner", ms)
			}
		})
	})
}

// TestMembers_RemoveOwnersConcurrent: two owners removing each other at
// once leave the tenant one of them.
func TestMembers_RemoveOwnersConcurrent(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		ann, bob := mustUser(t, e.svc), mustUser(t, e.svc)
		mustMember(t, e.svc, tenant.ID, ann, tenancy.RoleOwner)
		mustMember(t, e.svc, tenant.ID, bob, tenancy.RoleOwner)
		errs := make(chan error, 2)
		for _, u := range []tenancy.User{ann, bob} {
			go func() { errs <- e.svc.Members.Remove(context.Background(), tenant.ID, u.ID) }()
		}
		var removed, refused int
		for range 2 {
			switch err := <-errs; {
			case err == nil:
				removed++
			case errors.Is(err, tenancy.ErrLastOwner):
				refused++
			default:
				t.Fatalf("Remove: %v", err)
			}
		}
		if removed != 1 || refused != 1 {
			t.Fatalf("two owners removed at once: %d removed, %d refused; want 1 and 1", removed, refused)
		}
	})
}

func TestMembers_List(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		first, second := mustUser(t, e.svc), mustUser(t, e.svc)
		mustMember(t, e.svc, tenant.ID, first, tenancy.RoleOwner)
		mustMember(t, e.svc, tenant.ID, second, tenancy.RoleMember)
		t.Run("Page", func(t *testing.T) {
			ms, more, err := e.svc.Members.List(ctx, tenant.Slug, tenancy.MemberFilter{Limit: 1})
			wantErr(t, "List", err, nil)
			if len(ms) != 1 || !more || ms[0].UserID != second.ID {
				t.Fatalf("List(limit 1): got %+v more %v, want the newest user and more", ms, more)
			}
			ms, more, err = e.svc.Members.List(ctx, tenant.ID, tenancy.MemberFilter{Limit: 1, Before: second.ID})
			wantErr(t, "List(before)", err, nil)
			if len(ms) != 1 || more || ms[0].UserID != first.ID {
				t.Fatalf("List(before): got %+v more %v, want the first user only", ms, more)
			}
		})
		t.Run("ErrInvalidCursor", func(t *testing.T) {
			_, _, err := e.svc.Members.List(ctx, tenant.ID, tenancy.MemberFilter{Before: "nope"})
			wantFields(t, "List", err, "cursor")
		})
		t.Run("ErrNotFoundTenant", func(t *testing.T) {
			_, _, err := e.svc.Members.List(ctx, "no-such-tenant", tenancy.MemberFilter{})
			wantErr(t, "List", err, tenancy.ErrNotFound)
		})
	})
}

func TestIndex(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		tests := []struct {
			name       string
			do         func() error
			wantErr    error
			wantFields []string
		}{
			{"Tenants", func() error {
				ts, _, err := e.svc.Index.Tenants(ctx, tenancy.SearchFilter{Query: tenant.Slug})
				if err == nil && (len(ts) != 1 || ts[0].ID != tenant.ID) {
					t.Fatalf("Tenants(q=%s): got %+v", tenant.Slug, ts)
				}
				return err
			}, nil, nil},
			{"ErrTenantsQueryTooLong", func() error {
				_, _, err := e.svc.Index.Tenants(ctx, tenancy.SearchFilter{Query: strings.Repeat("a", 201)})
				return err
			}, nil, []string{"q"}},
			{"ErrTenantsCursor", func() error {
				_, _, err := e.svc.Index.Tenants(ctx, tenancy.SearchFilter{Before: id.New(id.User)})
				return err
			}, nil, []string{"cursor"}},
			{"ErrUsersQueryNul", func() error {
				_, _, err := e.svc.Index.Users(ctx, tenancy.SearchFilter{Query: "a\x00"})
				return err
			}, nil, []string{"q"}},
			{"ErrAPIKeysCursor", func() error {
				_, _, err := e.svc.Index.APIKeys(ctx, "", tenancy.KeyFilter{Before: id.New(id.Tenant)})
				return err
			}, nil, []string{"cursor"}},
			{"ErrAPIKeysUnknownTenant", func() error {
				_, _, err := e.svc.Index.APIKeys(ctx, "no-such-tenant", tenancy.KeyFilter{})
				return err
			}, tenancy.ErrNotFound, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := tc.do()
				if tc.wantFields != nil {
					wantFields(t, tc.name, err, tc.wantFields...)
					return
				}
				wantErr(t, tc.name, err, tc.wantErr)
			})
		}
	})
}
