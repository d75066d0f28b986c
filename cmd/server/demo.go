package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

// demoSeed is what `seed --demo --json` prints.
type demoSeed struct {
	Tenants       []demoTenant `json:"tenants"`
	Users         []demoUser   `json:"users"`
	APIKeys       []demoKey    `json:"api_keys"`
	WebhookSecret string       `json:"webhook_secret"`
}

type demoTenant struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
}

type demoUser struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

type demoKey struct {
	Email  string          `json:"email"`
	Tenant string          `json:"tenant"`
	Key    string          `json:"key"`
	Scopes []tenancy.Scope `json:"scopes"`
}

// newWebhookSecret returns a fresh Standard Webhooks secret, whsec_<base64>.
func newWebhookSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// seedDemo creates the demo tenants and users (reusing them when they
// exist) and new API keys: acme on growth and globex on starter; alice owns
// acme and is an admin of globex, bob does acme's billing, dave its
// support, carol owns globex.
func seedDemo(ctx context.Context, a *app) (demoSeed, error) {
	svc := a.tenancy
	var out demoSeed
	tenants := []tenancy.CreateTenantInput{
		{Slug: "acme", Name: "Acme Corp", PlanID: catalog.PlanGrowth},
		{Slug: "globex", Name: "Globex Inc", PlanID: catalog.PlanStarter},
	}
	for _, in := range tenants {
		t, err := svc.CreateTenant(ctx, in)
		if errors.Is(err, tenancy.ErrConflict) {
			t, err = svc.FindTenant(ctx, in.Slug)
		}
		if err != nil {
			return out, err
		}
		out.Tenants = append(out.Tenants, demoTenant{ID: t.ID, Slug: t.Slug})
	}
	users := []tenancy.CreateUserInput{
		{Email: "alice@acme.test", Name: "Alice Owner"},
		{Email: "bob@acme.test", Name: "Bob Billing"},
		{Email: "dave@acme.test", Name: "Dave Support"},
		{Email: "carol@globex.test", Name: "Carol Owner"},
	}
	for _, in := range users {
		u, err := svc.CreateUser(ctx, in)
		if errors.Is(err, tenancy.ErrConflict) {
			u, err = svc.UserByEmail(ctx, in.Email)
		}
		if err != nil {
			return out, err
		}
		out.Users = append(out.Users, demoUser{ID: u.ID, Email: u.Email})
	}
	members := []struct {
		tenant, email string
		role          tenancy.Role
	}{
		{"acme", "alice@acme.test", tenancy.RoleOwner},
		{"globex", "alice@acme.test", tenancy.RoleAdmin},
		{"acme", "bob@acme.test", tenancy.RoleBilling},
		{"acme", "dave@acme.test", tenancy.RoleSupport},
		{"globex", "carol@globex.test", tenancy.RoleOwner},
	}
	for _, m := range members {
		if _, err := svc.AddMember(ctx, m.tenant, m.email, m.role); err != nil && !errors.Is(err, tenancy.ErrConflict) {
			return out, err
		}
	}
	all := tenancy.Scopes()
	keys := []struct {
		email, tenant string
		scopes        []tenancy.Scope
	}{
		{"alice@acme.test", "", all},
		{"bob@acme.test", "acme", []tenancy.Scope{tenancy.ScopeCollectionsRead, tenancy.ScopeCollectionsWrite}},
		{"dave@acme.test", "acme", []tenancy.Scope{tenancy.ScopeTicketsRead, tenancy.ScopeTicketsWrite}},
		{"carol@globex.test", "globex", all},
	}
	for _, k := range keys {
		key, secret, err := svc.CreateAPIKey(ctx, tenancy.CreateAPIKeyInput{
			UserEmail: k.email, Scopes: k.scopes, Tenant: k.tenant, Name: "demo"})
		if err != nil {
			return out, err
		}
		out.APIKeys = append(out.APIKeys, demoKey{Email: k.email, Tenant: k.tenant, Key: secret, Scopes: key.Scopes})
	}
	out.WebhookSecret = newWebhookSecret()
	if len(a.cfg.WebhookSecrets) > 0 {
		out.WebhookSecret = a.cfg.WebhookSecrets[0]
	}
	return out, nil
}

// printWalkthrough prints copy-paste curl calls against the demo data.
func printWalkthrough(w io.Writer, base string, s demoSeed) {
	alice, bob, dave := s.APIKeys[0].Key, s.APIKeys[1].Key, s.APIKeys[2].Key
	fmt.Fprintf(w, `
tenantkit demo is ready at %[1]s

Tenants: acme (%[2]s, plan growth), globex (%[3]s, plan starter)
API keys (shown once):
  alice (owner of acme, admin of globex; all scopes):  %[4]s
  bob   (billing at acme; collections scopes):          %[5]s
  dave  (support at acme; tickets scopes):              %[6]s
  carol (owner of globex; all scopes):                  %[7]s
Webhook secret: %[8]s

Try:
  export TK=%[4]s
  curl -s %[1]s/api/auth/me -H "Authorization: Bearer $TK"
  curl -s -X POST %[1]s/api/tenant/select -H "Authorization: Bearer $TK" \
       -H 'Content-Type: application/json' -d '{"tenant_id":"%[2]s"}'
  curl -s %[1]s/api/tenant/access-matrix -H "Authorization: Bearer $TK"
  curl -s %[1]s/api/tenant/entitlements/limit -H "Authorization: Bearer $TK"

  # bob invoices a customer of acme (his key is pinned to acme)
  curl -s -X POST %[1]s/api/v1/collections/invoices -H "Authorization: Bearer %[5]s" \
       -H 'Content-Type: application/json' -H 'Idempotency-Key: first-invoice' \
       -d '{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Consulting","quantity":2,"unit_amount":15000,"tax_rate_bps":825}]}'
  curl -s %[1]s/api/v1/collections/invoices -H "Authorization: Bearer %[5]s"

  # dave opens a support ticket
  curl -s -X POST %[1]s/api/tickets -H "Authorization: Bearer %[6]s" \
       -H 'Content-Type: application/json' -d '{"subject":"Export fails","description":"CSV export times out.","priority":"high"}'

  curl -s %[1]s/api/catalog/public
  curl -s %[1]s/api/health/ready

`, base, s.Tenants[0].ID, s.Tenants[1].ID, alice, bob, dave, s.APIKeys[3].Key, s.WebhookSecret)
}
