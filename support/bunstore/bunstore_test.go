package bunstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/support/bunstore"
	"github.com/tenantkit/tenantkit/support/supporttest"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
)

func TestBunStoreConformance(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ten := tenancy.NewDirectory(tenancystore.New(db), catalog.Default())
		h := supporttest.Harness{
			NewStore: func(*testing.T) support.Store { return bunstore.New(db) },
			NewTenant: func(t *testing.T, _ support.Store) string {
				t.Helper()
				slug := strings.ReplaceAll(id.New("t"), "_", "-")
				tn, err := ten.CreateTenant(context.Background(), tenancy.CreateTenantInput{Slug: slug, Name: "Tenant " + slug, PlanID: catalog.PlanEnterprise})
				if err != nil {
					t.Fatalf("CreateTenant: %v", err)
				}
				return tn.ID
			},
		}
		supporttest.Run(t, h)
		t.Run("Agent", func(t *testing.T) { supporttest.RunAgent(t, h) })
	}, tenancystore.Migrations(), bunstore.Migrations())
}

func TestBunStoreUnknownTenant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := bunstore.New(db)
		ghost := id.New(id.Tenant)
		if _, err := s.NextNumber(ctx, ghost); !errors.Is(err, support.ErrNotFound) {
			t.Errorf("NextNumber(unknown tenant) = %v, want ErrNotFound", err)
		}
		tk := support.Ticket{ID: id.New(id.Ticket), Number: 1, Subject: "s", Description: "d",
			Status: support.StatusOpen, Priority: support.PriorityNormal,
			Requester: support.Requester{ID: "usr_01jd0000000000000000000000", Email: "ana@example.com", Name: "Ana Lima"}}
		if err := s.CreateTicket(ctx, ghost, tk); !errors.Is(err, support.ErrNotFound) {
			t.Errorf("CreateTicket(unknown tenant) = %v, want ErrNotFound", err)
		}
	}, tenancystore.Migrations(), bunstore.Migrations())
}
