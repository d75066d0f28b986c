package tenancy_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

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
			{"ErrScopeUnknown", tenancy.CreateAPIKeyInput{UserEmail: user.Email, Scopes: []tenancy.Scope{read, "admin:all"}}, nil, "", tenancy.ErrInvalid, []string{"scopes[1]"}},
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
// secret appears nowhere, and that its hash does. The row is read by its
// id alone, across tenants, as the store reads keys.
func assertOnlyHashStored(tb testing.TB, e *env, keyID, secret string) {
	tb.Helper()
	var row struct {
		ID, UserID, Name, Scopes, TenantID, Prefix, SecretHash string
	}
	err := database.AcrossTenants(e.db.NewSelect()).Table("api_keys").
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
