package operator_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

var now = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func eachKeys(t *testing.T, fn func(t *testing.T, keys *operator.Keys)) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		fn(t, operator.NewKeys(bunstore.New(db), operator.WithClock(func() time.Time { return now })))
	}, bunstore.Migrations())
}

func TestKeys_Create(t *testing.T) {
	eachKeys(t, func(t *testing.T, keys *operator.Keys) {
		tests := []struct {
			name       string
			in         operator.CreateInput
			wantScopes []tenancy.Scope
			wantFields []string
		}{
			{"OK", operator.CreateInput{Name: " billing-bot ", Scopes: []tenancy.Scope{operator.ScopeWrite, operator.ScopeRead, operator.ScopeWrite}},
				[]tenancy.Scope{operator.ScopeRead, operator.ScopeWrite}, nil},
			{"ReadOnly", operator.CreateInput{Name: "auditor", Scopes: []tenancy.Scope{operator.ScopeRead}}, []tenancy.Scope{operator.ScopeRead}, nil},
			{"ErrNameRequired", operator.CreateInput{Name: "  ", Scopes: []tenancy.Scope{operator.ScopeRead}}, nil, []string{"name"}},
			{"ErrNameTooLong", operator.CreateInput{Name: strings.Repeat("n", 201), Scopes: []tenancy.Scope{operator.ScopeRead}}, nil, []string{"name"}},
			{"ErrScopesRequired", operator.CreateInput{Name: "x"}, nil, []string{"scopes"}},
			{"ErrTenantScope", operator.CreateInput{Name: "x", Scopes: []tenancy.Scope{tenancy.ScopeTicketsRead}}, nil, []string{"scopes[0]"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				k, secret, err := keys.Create(t.Context(), tc.in)
				if tc.wantFields != nil {
					var ie *field.InvalidError
					if !errors.As(err, &ie) || !errors.Is(err, tenancy.ErrInvalid) {
						t.Fatalf("Create: got %v, want an InvalidError on %v", err, tc.wantFields)
					}
					for _, f := range tc.wantFields {
						if ie.Fields[f] == "" {
							t.Fatalf("Create: fields %v, want %v", ie.Fields, tc.wantFields)
						}
					}
					return
				}
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				if !strings.HasPrefix(secret, operator.KeyPrefix) || len(secret) != len(operator.KeyPrefix)+43 ||
					!id.Valid(id.OperatorKey, k.ID) || k.Prefix != secret[:10] || !k.CreatedAt.Equal(now) ||
					k.Name != strings.TrimSpace(tc.in.Name) || strings.Join(scopeStrings(k.Scopes), " ") != strings.Join(scopeStrings(tc.wantScopes), " ") {
					t.Fatalf("Create: got %+v and secret %q", k, secret)
				}
				got, err := keys.Authenticate(t.Context(), secret)
				if err != nil || got.ID != k.ID {
					t.Fatalf("Authenticate(new secret): got %+v, %v", got, err)
				}
			})
		}
	})
}

func TestKeys_AuthenticateAndRevoke(t *testing.T) {
	eachKeys(t, func(t *testing.T, keys *operator.Keys) {
		ctx := t.Context()
		k, secret, err := keys.Create(ctx, operator.CreateInput{Name: "ops", Scopes: []tenancy.Scope{operator.ScopeRead}})
		if err != nil {
			t.Fatal(err)
		}
		revoked, err := keys.Revoke(ctx, k.ID)
		if err != nil || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(now) {
			t.Fatalf("Revoke: got %+v, %v", revoked, err)
		}
		tests := []struct {
			name   string
			secret string
		}{
			{"Revoked", secret},
			{"Unknown", operator.KeyPrefix + strings.Repeat("A", 43)},
			{"TenantKeyPrefix", "tk_" + strings.TrimPrefix(secret, operator.KeyPrefix)},
			{"TooLong", operator.KeyPrefix + strings.Repeat("A", 200)},
			{"Empty", ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := keys.Authenticate(ctx, tc.secret); !errors.Is(err, tenancy.ErrUnauthenticated) {
					t.Fatalf("Authenticate: got %v, want ErrUnauthenticated", err)
				}
			})
		}
		t.Run("RevokeUnknown", func(t *testing.T) {
			for _, ref := range []string{id.New(id.OperatorKey), "opk_nope", id.New(id.APIKey)} {
				if _, err := keys.Revoke(ctx, ref); !errors.Is(err, tenancy.ErrNotFound) {
					t.Fatalf("Revoke(%s): got %v, want ErrNotFound", ref, err)
				}
			}
		})
	})
}

func TestKeys_List(t *testing.T) {
	eachKeys(t, func(t *testing.T, keys *operator.Keys) {
		ctx := t.Context()
		var made []operator.Key
		for _, name := range []string{"a", "b", "c"} {
			k, _, err := keys.Create(ctx, operator.CreateInput{Name: name, Scopes: []tenancy.Scope{operator.ScopeRead}})
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, k)
		}
		page, more, err := keys.List(ctx, operator.Filter{Limit: 2})
		if err != nil || !more || len(page) != 2 || page[0].ID != made[2].ID || page[1].ID != made[1].ID {
			t.Fatalf("List(limit 2): got %+v more %v (%v)", page, more, err)
		}
		page, more, err = keys.List(ctx, operator.Filter{Before: page[1].ID})
		if err != nil || more || len(page) != 1 || page[0].ID != made[0].ID {
			t.Fatalf("List(before): got %+v more %v (%v)", page, more, err)
		}
		if _, _, err := keys.List(ctx, operator.Filter{Before: "key_x"}); !errors.Is(err, tenancy.ErrInvalid) {
			t.Fatalf("List(bad cursor): got %v, want ErrInvalid", err)
		}
	})
}

func scopeStrings(scopes []tenancy.Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// TestCreateInputRules: the fields, codes and messages of a key refused
// before the store is reached, and the Scopes tag listing Scopes.
func TestCreateInputRules(t *testing.T) {
	keys := operator.NewKeys(nil)
	read := []tenancy.Scope{operator.ScopeRead}
	tests := []struct {
		name string
		in   operator.CreateInput
		want []string // "field code: message"
	}{
		{"Empty", operator.CreateInput{}, []string{"name required: is required", "scopes required: is required"}},
		{"BlankName", operator.CreateInput{Name: " \n ", Scopes: read}, []string{"name required: is required"}},
		{"NameTooLong", operator.CreateInput{Name: strings.Repeat("é", 201), Scopes: read}, []string{"name too_long: must have at most 200 characters"}},
		{"NameTwoLines", operator.CreateInput{Name: "billing\nbot", Scopes: read}, []string{"name control_character: must be a single line without control characters"}},
		{"NoScopes", operator.CreateInput{Name: "x", Scopes: []tenancy.Scope{}}, []string{"scopes required: must have at least 1 item"}},
		{"TenantScope", operator.CreateInput{Name: "x", Scopes: []tenancy.Scope{operator.ScopeWrite, tenancy.ScopeTicketsRead}},
			[]string{"scopes[1] invalid: must be one of: operator:read, operator:write"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := keys.Create(t.Context(), tc.in)
			var ie *field.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("Create: got %v, want an InvalidError", err)
			}
			var got []string
			for _, fe := range ie.Errors() {
				got = append(got, fe.Field+" "+fe.Code+": "+fe.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("errors:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	t.Run("ScopesTag", func(t *testing.T) {
		sf, _ := reflect.TypeFor[operator.CreateInput]().FieldByName("Scopes")
		_, list, _ := strings.Cut(sf.Tag.Get("validate"), "oneof=")
		if got, want := list, strings.Join(scopeStrings(operator.Scopes()), " "); got != want {
			t.Fatalf("oneof of the Scopes tag: got %q, want %q", got, want)
		}
	})
}
