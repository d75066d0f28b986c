package tenancy_test

import (
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestService_CreateTenant(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		taken := mustTenant(t, e.svc, catalog.PlanFree)

		tests := []struct {
			name       string
			in         tenancy.CreateTenantInput
			wantErr    error
			wantFields []string
		}{
			{"OK", tenancy.CreateTenantInput{Slug: "ok-" + unique(), Name: "  Acme Ltd ", PlanID: catalog.PlanStarter}, nil, nil},
			{"OKOneChar", tenancy.CreateTenantInput{Slug: "z", Name: "Z", PlanID: catalog.PlanFree}, nil, nil},
			{"OKLongest", tenancy.CreateTenantInput{Slug: "l-" + unique() + strings.Repeat("a", 61-len(unique())), Name: "L", PlanID: catalog.PlanFree}, nil, nil},
			{"ErrSlugUpperCase", tenancy.CreateTenantInput{Slug: "Acme", Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrSlugEmpty", tenancy.CreateTenantInput{Slug: "", Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrSlugTrailingHyphen", tenancy.CreateTenantInput{Slug: "acme-", Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrSlugTooLong", tenancy.CreateTenantInput{Slug: strings.Repeat("a", 64), Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrNameRequired", tenancy.CreateTenantInput{Slug: "n-" + unique(), Name: "   ", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"name"}},
			{"ErrNameTooLong", tenancy.CreateTenantInput{Slug: "n-" + unique(), Name: strings.Repeat("x", 201), PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"name"}},
			{"ErrPlanUnknown", tenancy.CreateTenantInput{Slug: "p-" + unique(), Name: "Acme", PlanID: "platinum"}, tenancy.ErrInvalid, []string{"plan_id"}},
			{"ErrEveryField", tenancy.CreateTenantInput{Slug: "-", Name: "", PlanID: ""}, tenancy.ErrInvalid, []string{"slug", "name", "plan_id"}},
			{"ErrConflictSlug", tenancy.CreateTenantInput{Slug: taken.Slug, Name: "Again", PlanID: catalog.PlanFree}, tenancy.ErrConflict, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, err := e.svc.Directory.CreateTenant(ctx, tc.in)
				if tc.wantFields != nil {
					wantFields(t, "CreateTenant", err, tc.wantFields...)
					return
				}
				wantErr(t, "CreateTenant", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				plan, _ := catalog.Default().Plan(tc.in.PlanID)
				if !id.Valid(id.Tenant, got.ID) || got.Slug != tc.in.Slug || got.Name != strings.TrimSpace(tc.in.Name) ||
					got.PlanID != plan.ID || got.Seats != plan.IncludedSeats || !got.CreatedAt.Equal(testNow()) {
					t.Fatalf("CreateTenant(%+v): got %+v", tc.in, got)
				}
				for _, ref := range []string{got.ID, got.Slug} {
					found, err := e.svc.Directory.FindTenant(ctx, ref)
					wantErr(t, "FindTenant", err, nil)
					if found.ID != got.ID {
						t.Fatalf("FindTenant(%s): got %s, want %s", ref, found.ID, got.ID)
					}
				}
			})
		}
		t.Run("FindTenantErrNotFound", func(t *testing.T) {
			for _, ref := range []string{id.New(id.Tenant), "no-such-slug"} {
				_, err := e.svc.Directory.FindTenant(ctx, ref)
				wantErr(t, "FindTenant("+ref+")", err, tenancy.ErrNotFound)
			}
		})
	})
}

func TestService_CreateUser(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		taken := mustUser(t, e.svc)

		tests := []struct {
			name       string
			in         tenancy.CreateUserInput
			wantEmail  string
			wantErr    error
			wantFields []string
		}{
			{"OKNormalised", tenancy.CreateUserInput{Email: "  Ada.Lovelace@Example.COM ", Name: " Ada "}, "ada.lovelace@example.com", nil, nil},
			{"ErrEmailRequired", tenancy.CreateUserInput{Email: "", Name: "Ada"}, "", tenancy.ErrInvalid, []string{"email"}},
			{"ErrEmailMalformed", tenancy.CreateUserInput{Email: "ada@", Name: "Ada"}, "", tenancy.ErrInvalid, []string{"email"}},
			{"ErrEmailWithDisplayName", tenancy.CreateUserInput{Email: "Ada <ada@example.com>", Name: "Ada"}, "", tenancy.ErrInvalid, []string{"email"}},
			{"ErrEmailTooLong", tenancy.CreateUserInput{Email: strings.Repeat("a", 250) + "@example.com", Name: "Ada"}, "", tenancy.ErrInvalid, []string{"email"}},
			{"ErrNameRequired", tenancy.CreateUserInput{Email: unique() + "@example.com", Name: " "}, "", tenancy.ErrInvalid, []string{"name"}},
			{"ErrNameTooLong", tenancy.CreateUserInput{Email: unique() + "@example.com", Name: strings.Repeat("n", 201)}, "", tenancy.ErrInvalid, []string{"name"}},
			{"ErrEveryField", tenancy.CreateUserInput{}, "", tenancy.ErrInvalid, []string{"email", "name"}},
			{"ErrConflictEmailAnyCase", tenancy.CreateUserInput{Email: strings.ToUpper(taken.Email), Name: "Again"}, "", tenancy.ErrConflict, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, err := e.svc.Directory.CreateUser(ctx, tc.in)
				if tc.wantFields != nil {
					wantFields(t, "CreateUser", err, tc.wantFields...)
					return
				}
				wantErr(t, "CreateUser", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				if !id.Valid(id.User, got.ID) || got.Email != tc.wantEmail || got.Name != strings.TrimSpace(tc.in.Name) {
					t.Fatalf("CreateUser(%+v): got %+v, want email %s", tc.in, got, tc.wantEmail)
				}
				found, err := e.svc.Directory.UserByEmail(ctx, strings.ToUpper(tc.wantEmail))
				wantErr(t, "UserByEmail", err, nil)
				if found.ID != got.ID {
					t.Fatalf("UserByEmail(upper case): got %s, want %s", found.ID, got.ID)
				}
			})
		}
		t.Run("UserByEmailErrNotFound", func(t *testing.T) {
			for _, email := range []string{"nobody@example.com", "not an email"} {
				_, err := e.svc.Directory.UserByEmail(ctx, email)
				wantErr(t, "UserByEmail("+email+")", err, tenancy.ErrNotFound)
			}
		})
	})
}
