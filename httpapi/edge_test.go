package httpapi_test

import (
	"context"
	"io"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// edgeConfig is a Config whose services answer GET invoice from memory:
// one API key of a user who owns the tenant, with the invoices module on.
func edgeConfig(tb testing.TB, inv billing.Invoice) httpapi.Config {
	tb.Helper()
	user := tenancy.User{ID: "usr_1", Email: "owner@example.com", Name: "Owner"}
	m := tenancy.Membership{TenantID: inv.TenantID, UserID: user.ID, Role: tenancy.RoleOwner}
	return httpapi.Config{
		Services: httpapi.Services{
			Directory:     memDirectory{m: m},
			Keys:          memKeys{key: tenancy.APIKey{ID: "key_1", UserID: user.ID, Scopes: tenancy.Scopes()}, user: user},
			Entitlements:  memEntitlements{m: m},
			Modules:       memModules{},
			Notifications: memNotifications{},
			Catalog:       catalog.Default(),
			Billing:       memInvoices{inv: inv},
		},
		RateLimiter: httpapi.NewMemoryRateLimiter(1e9, 1e9),
		Metrics:     prometheus.NewRegistry(),
		Logger:      zerolog.New(io.Discard).Level(zerolog.InfoLevel).With().Timestamp().Logger(),
	}
}

// The in-memory services embed their interface for the methods GET
// invoice never calls (calling one panics).
type (
	memDirectory struct {
		httpapi.Directory
		m tenancy.Membership
	}
	memKeys struct {
		key  tenancy.APIKey
		user tenancy.User
	}
	memEntitlements struct {
		httpapi.Entitlements
		m tenancy.Membership
	}
	memModules       struct{ httpapi.Modules }
	memNotifications struct{ httpapi.Notifications }
	memInvoices      struct {
		httpapi.Invoices
		inv billing.Invoice
	}
)

func (d memDirectory) ResolveTenant(context.Context, tenancy.Credential, string) (tenancy.Membership, error) {
	return d.m, nil
}

func (k memKeys) Authenticate(context.Context, string) (tenancy.APIKey, tenancy.User, error) {
	return k.key, k.user, nil
}

func (e memEntitlements) ResolveTenantState(context.Context, tenancy.Credential, string, bool) (tenancy.Membership, tenancy.EntitlementState, error) {
	return e.m, tenancy.EntitlementState{}, nil
}

func (e memEntitlements) RequireModule(context.Context, string, string) error { return nil }

func (i memInvoices) Get(_ context.Context, tenantID, invoiceID string) (billing.Invoice, error) {
	if tenantID != i.inv.TenantID || invoiceID != i.inv.ID {
		return billing.Invoice{}, billing.ErrNotFound
	}
	return i.inv, nil
}
