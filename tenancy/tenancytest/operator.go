package tenancytest

import (
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// RunOperatorKeys checks an operator.KeyStore (Backend.OperatorKeys):
// every method and its documented errors. It lists keys across the whole
// store, so the backend's database must hold no operator keys but its
// own.
func RunOperatorKeys(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"Keys", testOperatorKeys},
	})
}

func testOperatorKeys(t *testing.T, s Backend) {
	ctx := t.Context()
	st := s.OperatorKeys
	mk := func(name string, scopes ...tenancy.Scope) operator.Key {
		k := operator.Key{ID: id.New(id.OperatorKey), Name: name, Scopes: scopes, Prefix: "tko_eeeeee", CreatedAt: at(0)}
		if err := st.CreateOperatorKey(ctx, k, tenancy.HashSecret(k.ID)); err != nil {
			t.Fatalf("CreateOperatorKey(%s): %v", name, err)
		}
		return k
	}
	reader := mk("reader", operator.ScopeRead)
	writer := mk("writer", operator.ScopeRead, operator.ScopeWrite)
	third := mk("third", operator.ScopeWrite)

	same := func(got, want operator.Key) bool {
		return got.ID == want.ID && got.Name == want.Name && got.Prefix == want.Prefix &&
			slices.Equal(got.Scopes, want.Scopes) && got.CreatedAt.Equal(want.CreatedAt)
	}
	t.Run("ByHash", func(t *testing.T) {
		got, err := st.OperatorKeyByHash(ctx, tenancy.HashSecret(writer.ID))
		wantErr(t, "OperatorKeyByHash", err, nil)
		if !same(got, writer) || got.RevokedAt != nil {
			t.Fatalf("OperatorKeyByHash: got %+v, want %+v", got, writer)
		}
	})
	t.Run("ErrNotFoundHash", func(t *testing.T) {
		_, err := st.OperatorKeyByHash(ctx, tenancy.HashSecret("tko_"+unique()))
		wantErr(t, "OperatorKeyByHash(unknown)", err, tenancy.ErrNotFound)
	})
	t.Run("ErrConflictHash", func(t *testing.T) {
		dup := operator.Key{ID: id.New(id.OperatorKey), Name: "dup", Scopes: []tenancy.Scope{operator.ScopeRead}, Prefix: "tko_ffffff", CreatedAt: at(0)}
		wantErr(t, "CreateOperatorKey(taken hash)", st.CreateOperatorKey(ctx, dup, tenancy.HashSecret(reader.ID)), tenancy.ErrConflict)
	})
	t.Run("Revoke", func(t *testing.T) {
		got, err := st.RevokeOperatorKey(ctx, reader.ID, at(5))
		wantErr(t, "RevokeOperatorKey", err, nil)
		if !same(got, reader) || got.RevokedAt == nil || !got.RevokedAt.Equal(at(5)) {
			t.Fatalf("RevokeOperatorKey: got %+v, want %+v revoked at %v", got, reader, at(5))
		}
		got, err = st.RevokeOperatorKey(ctx, reader.ID, at(9))
		wantErr(t, "RevokeOperatorKey again", err, nil)
		if got.RevokedAt == nil || !got.RevokedAt.Equal(at(5)) {
			t.Fatalf("RevokeOperatorKey again: revoked at %v, want the first %v", got.RevokedAt, at(5))
		}
		byHash, err := st.OperatorKeyByHash(ctx, tenancy.HashSecret(reader.ID))
		wantErr(t, "OperatorKeyByHash of a revoked key", err, nil)
		if byHash.RevokedAt == nil || !byHash.RevokedAt.Equal(at(5)) {
			t.Fatalf("OperatorKeyByHash of a revoked key: revoked at %v, want %v", byHash.RevokedAt, at(5))
		}
	})
	t.Run("ErrNotFoundRevoke", func(t *testing.T) {
		_, err := st.RevokeOperatorKey(ctx, id.New(id.OperatorKey), at(5))
		wantErr(t, "RevokeOperatorKey(unknown)", err, tenancy.ErrNotFound)
	})
	t.Run("List", func(t *testing.T) {
		got, more, err := st.OperatorKeys(ctx, operator.Filter{Limit: 2})
		wantErr(t, "OperatorKeys", err, nil)
		if len(got) != 2 || !more || !same(got[0], third) || !same(got[1], writer) {
			t.Fatalf("OperatorKeys(limit 2): got %+v more %v, want third, writer and more", got, more)
		}
		got, more, err = st.OperatorKeys(ctx, operator.Filter{Limit: 2, Before: writer.ID})
		wantErr(t, "OperatorKeys(before)", err, nil)
		if len(got) != 1 || more || !same(got[0], reader) || got[0].RevokedAt == nil {
			t.Fatalf("OperatorKeys(before writer): got %+v more %v, want the revoked reader only", got, more)
		}
	})
}
