package tenancy_test

import (
	"context"
	"regexp"
	"slices"
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
			{"ErrSlugUpperCase", tenancy.CreateTenantInput{Slug: "Acme", Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrSlugEmpty", tenancy.CreateTenantInput{Slug: "", Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrSlugTrailingHyphen", tenancy.CreateTenantInput{Slug: "acme-", Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrSlugTooLong", tenancy.CreateTenantInput{Slug: strings.Repeat("a", 64), Name: "Acme", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"slug"}},
			{"ErrNameRequired", tenancy.CreateTenantInput{Slug: "n-" + unique(), Name: "   ", PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"name"}},
			{"ErrNameTooLong", tenancy.CreateTenantInput{Slug: "n-" + unique(), Name: strings.Repeat("x", 201), PlanID: catalog.PlanFree}, tenancy.ErrInvalid, []string{"name"}},
			{"ErrPlanUnknown", tenancy.CreateTenantInput{Slug: "p-" + unique(), Name: "Acme", PlanID: "platinum"}, tenancy.ErrInvalid, []string{"plan"}},
			{"ErrEveryField", tenancy.CreateTenantInput{Slug: "-", Name: "", PlanID: ""}, tenancy.ErrInvalid, []string{"slug", "name", "plan"}},
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

func TestService_AddMember(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		byID, bySlug, twice := mustUser(t, e.svc), mustUser(t, e.svc), mustUser(t, e.svc)
		mustMember(t, e.svc, tenant.ID, twice, tenancy.RoleMember)

		tests := []struct {
			name       string
			tenantRef  string
			email      string
			role       tenancy.Role
			wantErr    error
			wantFields []string
		}{
			{"OKByID", tenant.ID, byID.Email, tenancy.RoleAdmin, nil, nil},
			{"OKBySlugAnyCase", tenant.Slug, strings.ToUpper(bySlug.Email), tenancy.RoleBilling, nil, nil},
			{"ErrRoleUnknown", tenant.ID, byID.Email, "root", tenancy.ErrInvalid, []string{"role"}},
			{"ErrNotFoundTenant", "no-such-tenant", byID.Email, tenancy.RoleMember, tenancy.ErrNotFound, nil},
			{"ErrNotFoundUser", tenant.ID, "nobody@example.com", tenancy.RoleMember, tenancy.ErrNotFound, nil},
			{"ErrConflictTwice", tenant.ID, twice.Email, tenancy.RoleOwner, tenancy.ErrConflict, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				m, err := e.svc.Directory.AddMember(ctx, tc.tenantRef, tc.email, tc.role)
				if tc.wantFields != nil {
					wantFields(t, "AddMember", err, tc.wantFields...)
					return
				}
				wantErr(t, "AddMember", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				if m.TenantID != tenant.ID || m.Role != tc.role || !m.CreatedAt.Equal(testNow()) {
					t.Fatalf("AddMember: got %+v, want tenant %s role %s", m, tenant.ID, tc.role)
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

var secretRE = regexp.MustCompile(`^tk_[A-Za-z0-9_-]{43}$`)

func TestService_CreateAPIKey(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant, other := mustTenant(t, e.svc, catalog.PlanStarter), mustTenant(t, e.svc, catalog.PlanStarter)
		user := mustUser(t, e.svc)
		mustMember(t, e.svc, tenant.ID, user, tenancy.RoleOwner)
		read, write := tenancy.ScopeCollectionsRead, tenancy.ScopeTicketsWrite

		tests := []struct {
			name       string
			in         tenancy.CreateAPIKeyInput
			wantScopes []tenancy.Scope
			wantTenant string
			wantErr    error
			wantFields []string
		}{
			{"OKUnpinned", tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{read}, Name: "ci"}, []tenancy.Scope{read}, "", nil, nil},
			{"OKPinnedBySlug", tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{write, read, write}, Tenant: tenant.Slug}, []tenancy.Scope{read, write}, tenant.ID, nil, nil},
			{"ErrScopesRequired", tenancy.CreateAPIKeyInput{UserEmail: user.Email}, nil, "", tenancy.ErrInvalid, []string{"scopes"}},
			{"ErrScopeUnknown", tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{read, "admin:all"}}, nil, "", tenancy.ErrInvalid, []string{"scopes"}},
			{"ErrNameTooLong", tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{read}, Name: strings.Repeat("k", 201)}, nil, "", tenancy.ErrInvalid, []string{"name"}},
			{"ErrNotFoundUser", tenancy.CreateAPIKeyInput{UserEmail: "nobody@example.com", Scopes: []tenancy.Scope{read}}, nil, "", tenancy.ErrNotFound, nil},
			{"ErrNotFoundTenant", tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{read}, Tenant: "no-such-tenant"}, nil, "", tenancy.ErrNotFound, nil},
			{"ErrNotMemberPinned", tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{read}, Tenant: other.ID}, nil, "", tenancy.ErrNotMember, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				k, secret, err := e.svc.Keys.Create(ctx, tc.in)
				if tc.wantFields != nil {
					wantFields(t, "CreateAPIKey", err, tc.wantFields...)
					return
				}
				wantErr(t, "CreateAPIKey", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				if !secretRE.MatchString(secret) {
					t.Fatalf("secret: got %q, want tk_ and 43 base64url characters", secret)
				}
				if !id.Valid(id.APIKey, k.ID) || k.UserID != user.ID || k.TenantID != tc.wantTenant ||
					!slices.Equal(k.Scopes, tc.wantScopes) || !strings.HasPrefix(secret, k.Prefix) || len(k.Prefix) != len("tk_")+6 {
					t.Fatalf("CreateAPIKey: got %+v, want scopes %v tenant %q and a 9-character prefix of the secret", k, tc.wantScopes, tc.wantTenant)
				}
				assertOnlyHashStored(t, e, k.ID, secret)
			})
		}
	})
}

// assertOnlyHashStored reads the key's row as text and checks that the
// secret appears nowhere, and that its hash does.
func assertOnlyHashStored(tb testing.TB, e *env, keyID, secret string) {
	tb.Helper()
	var row struct {
		ID, UserID, Name, Scopes, TenantID, Prefix, SecretHash string
	}
	err := e.db.NewSelect().Table("api_keys").
		ColumnExpr("id, user_id, name, scopes, COALESCE(tenant_id, '') AS tenant_id, prefix, secret_hash").
		Where("id = ?", keyID).Scan(context.Background(), &row.ID, &row.UserID, &row.Name, &row.Scopes, &row.TenantID, &row.Prefix, &row.SecretHash)
	if err != nil {
		tb.Fatalf("read api_keys row: %v", err)
	}
	for _, col := range []string{row.ID, row.UserID, row.Name, row.Scopes, row.TenantID, row.Prefix, row.SecretHash} {
		if strings.Contains(col, secret[len(row.Prefix):]) {
			tb.Fatalf("api_keys row holds the secret: %+v", row)
		}
	}
	if row.SecretHash != tenancy.HashSecret(secret) {
		tb.Fatalf("secret_hash: got %s, want the hash of the secret", row.SecretHash)
	}
}

func TestService_AuthenticateAPIKey(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		user := mustUser(t, e.svc)
		key, secret := mustKey(t, e.svc, tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{tenancy.ScopeTicketsRead}})
		revoked, revokedSecret := mustKey(t, e.svc, tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{tenancy.ScopeTicketsRead}})
		wantErr(t, "RevokeAPIKey", e.svc.Keys.Revoke(ctx, revoked.ID), nil)

		tests := []struct {
			name    string
			secret  string
			wantErr error
		}{
			{"OK", secret, nil},
			{"ErrUnauthenticatedUnknown", "tk_" + strings.Repeat("A", 43), tenancy.ErrUnauthenticated},
			{"ErrUnauthenticatedRevoked", revokedSecret, tenancy.ErrUnauthenticated},
			{"ErrUnauthenticatedTooLong", secret + strings.Repeat("A", 200), tenancy.ErrUnauthenticated},
			{"ErrUnauthenticatedNotKey", "eyJhbGciOiJIUzI1NiJ9.e30.sig", tenancy.ErrUnauthenticated},
			{"ErrUnauthenticatedEmpty", "", tenancy.ErrUnauthenticated},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				k, u, err := e.svc.Keys.Authenticate(ctx, tc.secret)
				wantErr(t, "AuthenticateAPIKey", err, tc.wantErr)
				if tc.wantErr == nil && (k.ID != key.ID || u.ID != user.ID) {
					t.Fatalf("AuthenticateAPIKey: got key %s user %s, want %s %s", k.ID, u.ID, key.ID, user.ID)
				}
			})
		}
		t.Run("RevokeErrNotFound", func(t *testing.T) {
			wantErr(t, "RevokeAPIKey(unknown)", e.svc.Keys.Revoke(ctx, id.New(id.APIKey)), tenancy.ErrNotFound)
		})
	})
}
