package bunstore_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/portal"
	"github.com/tenantkit/tenantkit/portal/bunstore"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
)

// TestLinks: a link is consumed once, before it expires, with its tenant
// (or none); purging removes the expired ones only.
func TestLinks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		now := time.Date(2026, 11, 26, 9, 30, 0, 123456000, time.UTC)
		mustExec(t, db, "INSERT INTO users (id, email, name, created_at) VALUES ('usr_1', 'a@example.com', 'A', ?)", now)
		mustExec(t, db, "INSERT INTO tenants (id, slug, name, plan_id, seats, created_at) VALUES ('ten_1', 'acme', 'Acme', 'starter', 1, ?)", now)
		s := bunstore.New(db)
		links := []portal.LoginLink{
			{TokenHash: "tenant", UserID: "usr_1", TenantID: "ten_1", CreatedAt: now, ExpiresAt: now.Add(15 * time.Minute)},
			{TokenHash: "user", UserID: "usr_1", CreatedAt: now, ExpiresAt: now.Add(15 * time.Minute)},
			{TokenHash: "expired", UserID: "usr_1", CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(-time.Minute)},
		}
		for _, l := range links {
			if err := s.CreateLink(ctx, l); err != nil {
				t.Fatalf("CreateLink %s: %v", l.TokenHash, err)
			}
		}
		for _, want := range links[:2] {
			got, err := s.ConsumeLink(ctx, want.TokenHash, now)
			if err != nil {
				t.Fatalf("ConsumeLink %s: %v", want.TokenHash, err)
			}
			if got.UserID != want.UserID || got.TenantID != want.TenantID || !got.CreatedAt.Equal(want.CreatedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) {
				t.Fatalf("ConsumeLink = %+v, want %+v", got, want)
			}
			if _, err := s.ConsumeLink(ctx, want.TokenHash, now); !errors.Is(err, portal.ErrLinkInvalid) {
				t.Fatalf("ConsumeLink %s again: %v, want ErrLinkInvalid", want.TokenHash, err)
			}
		}
		for _, hash := range []string{"expired", "unknown"} {
			if _, err := s.ConsumeLink(ctx, hash, now); !errors.Is(err, portal.ErrLinkInvalid) {
				t.Fatalf("ConsumeLink %s: %v, want ErrLinkInvalid", hash, err)
			}
		}
		if n, err := s.PurgeLinks(ctx, now); err != nil || n != 1 {
			t.Fatalf("PurgeLinks = %d, %v; want 1 (the expired link)", n, err)
		}
	}, tenancystore.Migrations(), bunstore.Migrations())
}

// TestSecret: the first call makes the secret, every later one returns it.
func TestSecret(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		s := bunstore.New(db)
		first, err := s.Secret(ctx, "session_jwt", 32)
		if err != nil || len(first) != 32 {
			t.Fatalf("Secret = %x, %v; want 32 bytes", first, err)
		}
		again, err := s.Secret(ctx, "session_jwt", 16)
		if err != nil || !bytes.Equal(again, first) {
			t.Fatalf("Secret again = %x, %v; want %x", again, err, first)
		}
	}, tenancystore.Migrations(), bunstore.Migrations())
}

func mustExec(tb testing.TB, db *bun.DB, query string, args ...any) {
	tb.Helper()
	if _, err := db.NewRaw(query, args...).Exec(tb.Context()); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
}
