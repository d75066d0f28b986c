package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The demo seeds its data once. API keys are stored hashed and shown only
// when they are created, so the demo writes them (with the ids and the
// webhook secret) to an env file; a later run on the same database creates
// nothing and shows the keys of that file again, or says how to start over
// when the file is gone.

// demoSeed is what `seed --demo --json` (and `serve --demo --json`) prints.
type demoSeed struct {
	Tenants []demoTenant `json:"tenants"`
	// TestTenant is acme-test, a test tenant on its own clock (server
	// clock advance), to try the platform's billing on; its id is empty
	// when the database was seeded before the demo had it.
	TestTenant    demoTenant `json:"test_tenant"`
	Users         []demoUser `json:"users"`
	APIKeys       []demoKey  `json:"api_keys"`
	WebhookSecret string     `json:"webhook_secret"`
	// InvoiceID is acme's open demo invoice, for the payment webhook.
	InvoiceID string `json:"invoice_id"`
	// AlreadySeeded: the database held the demo data before this run,
	// which created nothing.
	AlreadySeeded bool `json:"already_seeded"`
	// EnvFile is the file holding the keys, or "" when none does (the
	// data was seeded earlier and its file is gone).
	EnvFile string `json:"env_file"`
	// url is the base URL recorded in the env file, if any.
	url string
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

// demoKeySpec is one of the demo's API keys: its user, the tenant it is
// pinned to ("" for none), its scopes, and its name in the env file.
type demoKeySpec struct {
	env, email, tenant, who string
	scopes                  []tenancy.Scope
}

// demoKeys are the demo's API keys, in the order they are printed.
func demoKeys() []demoKeySpec {
	all := tenancy.Scopes()
	return []demoKeySpec{
		{"TK_ALICE", "alice@acme.test", "", "alice (owner of acme, admin of globex; all scopes)", all},
		{"TK_BOB", "bob@acme.test", "acme", "bob   (billing at acme; collections scopes)", []tenancy.Scope{tenancy.ScopeCollectionsRead, tenancy.ScopeCollectionsWrite}},
		{"TK_DAVE", "dave@acme.test", "acme", "dave  (support at acme; tickets scopes)", []tenancy.Scope{tenancy.ScopeTicketsRead, tenancy.ScopeTicketsWrite}},
		{"TK_CAROL", "carol@globex.test", "globex", "carol (owner of globex; all scopes)", all},
	}
}

// The demo's tenants and users.
var (
	demoTenants = []tenancy.CreateTenantInput{
		{Slug: "acme", Name: "Acme Corp", PlanID: catalog.PlanGrowth},
		{Slug: "globex", Name: "Globex Inc", PlanID: catalog.PlanStarter},
	}
	// demoTestTenant lives on its own clock: moving it past a month's end
	// generates the platform's invoice, without waiting for the month.
	demoTestTenant = tenancy.CreateTenantInput{Slug: "acme-test", Name: "Acme Corp (test)", PlanID: catalog.PlanGrowth, Test: true}
	demoUsers      = []tenancy.CreateUserInput{
		{Email: "alice@acme.test", Name: "Alice Owner"},
		{Email: "bob@acme.test", Name: "Bob Billing"},
		{Email: "dave@acme.test", Name: "Dave Support"},
		{Email: "carol@globex.test", Name: "Carol Owner"},
	}
)

// demoInvoice is acme's open invoice: 19.99 USD, which the README's
// payment webhook pays.
var demoInvoice = billing.CreateInvoiceInput{
	Customer:  billing.CustomerInput{Name: "Ada Lovelace", Email: "ada@example.com"},
	Currency:  "USD",
	LineItems: []billing.LineItemInput{{Description: "Starter pack", Quantity: 1, UnitAmount: 1999}},
	Memo:      "tenantkit demo",
}

// newWebhookSecret returns a fresh Standard Webhooks secret, whsec_<base64>.
func newWebhookSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// seedDemo seeds the demo data in one transaction, unless the database
// holds it already: acme on growth and globex on starter; alice owns acme
// and is an admin of globex, bob does acme's billing, dave its support,
// carol owns globex; four API keys and an open invoice of acme's.
func seedDemo(ctx context.Context, a *app) (demoSeed, error) {
	acme, err := a.tenancy.Directory.FindTenant(ctx, "acme")
	switch {
	case errors.Is(err, tenancy.ErrNotFound):
		var s demoSeed
		err := database.RunInTx(ctx, a.db, func(ctx context.Context) error {
			s, err = createDemo(ctx, a)
			return err
		})
		return s, err
	case err != nil:
		return demoSeed{}, err
	}
	return existingDemo(ctx, a, acme)
}

// createDemo creates the demo data.
func createDemo(ctx context.Context, a *app) (demoSeed, error) {
	svc := a.tenancy
	s := demoSeed{APIKeys: []demoKey{}, WebhookSecret: newWebhookSecret()}
	if len(a.cfg.WebhookSecrets) > 0 {
		s.WebhookSecret = a.cfg.WebhookSecrets[0]
	}
	for _, in := range demoTenants {
		t, err := svc.Directory.CreateTenant(ctx, in)
		if err != nil {
			return s, err
		}
		s.Tenants = append(s.Tenants, demoTenant{ID: t.ID, Slug: t.Slug})
	}
	t, err := svc.Directory.CreateTenant(ctx, demoTestTenant)
	if err != nil {
		return s, fmt.Errorf("demo test tenant: %w", err)
	}
	s.TestTenant = demoTenant{ID: t.ID, Slug: t.Slug}
	for _, in := range demoUsers {
		u, err := svc.Directory.CreateUser(ctx, in)
		if err != nil {
			return s, fmt.Errorf("demo user %s: %w", in.Email, err)
		}
		s.Users = append(s.Users, demoUser{ID: u.ID, Email: u.Email})
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
		if _, err := svc.Members.Add(ctx, m.tenant, m.email, m.role); err != nil {
			return s, err
		}
	}
	for _, k := range demoKeys() {
		key, secret, err := svc.Keys.Create(ctx, tenancy.CreateAPIKeyInput{
			UserEmail: k.email, Scopes: k.scopes, Tenant: k.tenant, Name: "demo"})
		if err != nil {
			return s, err
		}
		s.APIKeys = append(s.APIKeys, demoKey{Email: k.email, Tenant: k.tenant, Key: secret, Scopes: key.Scopes})
	}
	inv, err := a.billing.Create(ctx, s.Tenants[0].ID, demoInvoice)
	if err != nil {
		return s, fmt.Errorf("demo invoice: %w", err)
	}
	s.InvoiceID = inv.ID
	return s, nil
}

// existingDemo describes the demo data already in the database, with the
// keys of the env file when that file belongs to this database.
func existingDemo(ctx context.Context, a *app, acme tenancy.Tenant) (demoSeed, error) {
	svc := a.tenancy
	s := demoSeed{AlreadySeeded: true, APIKeys: []demoKey{}}
	alice, err := svc.Directory.UserByEmail(ctx, "alice@acme.test")
	if err != nil && !errors.Is(err, tenancy.ErrNotFound) {
		return s, err
	}
	if !ownsAcme(ctx, svc, alice, acme) {
		return s, &cliError{Code: codeConflict, Message: "this database already has a tenant acme that the demo did not create; " +
			"run the demo on an empty database, e.g. --database-url sqlite:./demo.db"}
	}
	for _, in := range demoTenants {
		t, err := svc.Directory.FindTenant(ctx, in.Slug)
		if err != nil {
			return s, err
		}
		s.Tenants = append(s.Tenants, demoTenant{ID: t.ID, Slug: t.Slug})
	}
	switch t, err := svc.Directory.FindTenant(ctx, demoTestTenant.Slug); {
	case err == nil:
		s.TestTenant = demoTenant{ID: t.ID, Slug: t.Slug}
	case !errors.Is(err, tenancy.ErrNotFound): // seeded before the demo had it: none
		return s, err
	}
	for _, in := range demoUsers {
		u, err := svc.Directory.UserByEmail(ctx, in.Email)
		if err != nil {
			return s, err
		}
		s.Users = append(s.Users, demoUser{ID: u.ID, Email: u.Email})
	}
	env, _ := readDemoEnv(a.cfg.DemoEnv)
	if env["TENANT_ACME"] == acme.ID && demoKeysValid(ctx, svc, env) {
		for _, k := range demoKeys() {
			s.APIKeys = append(s.APIKeys, demoKey{Email: k.email, Tenant: k.tenant, Key: env[k.env], Scopes: k.scopes})
		}
		s.InvoiceID, s.WebhookSecret, s.url = env["INVOICE_ID"], env["TENANTKIT_WEBHOOK_SECRET"], env["TK_URL"]
		s.EnvFile = a.cfg.DemoEnv
	}
	if len(a.cfg.WebhookSecrets) > 0 {
		s.WebhookSecret = a.cfg.WebhookSecrets[0]
	}
	if s.WebhookSecret == "" {
		s.WebhookSecret = newWebhookSecret()
	}
	return s, nil
}

// ownsAcme reports whether alice owns acme, as the demo made her.
func ownsAcme(ctx context.Context, svc *tenancy.Services, alice tenancy.User, acme tenancy.Tenant) bool {
	if alice.ID == "" {
		return false
	}
	ms, err := svc.Directory.Memberships(ctx, alice.ID)
	if err != nil {
		return false
	}
	for _, m := range ms {
		if m.Tenant.ID == acme.ID && m.Role == tenancy.RoleOwner {
			return true
		}
	}
	return false
}

// demoKeysValid reports whether every demo key of env still authenticates.
func demoKeysValid(ctx context.Context, svc *tenancy.Services, env map[string]string) bool {
	for _, k := range demoKeys() {
		if _, _, err := svc.Keys.Authenticate(ctx, env[k.env]); err != nil {
			return false
		}
	}
	return true
}

// finishDemo writes the env file (when this run knows the keys) and
// prints the demo's walk-through, or the seed as JSON with --json. url is
// where the server listens, "" when nothing does (seed --demo).
func finishDemo(w io.Writer, url string, cfg config, s *demoSeed) error {
	serving := url != ""
	if url == "" {
		url = s.url
	}
	if url == "" {
		url = "http://" + demoAddr
	}
	if !s.AlreadySeeded || s.EnvFile != "" {
		if err := writeDemoEnv(cfg.DemoEnv, url, *s); err != nil {
			return err
		}
		s.EnvFile = cfg.DemoEnv
	}
	if cfg.JSON {
		return output(w, true, s, "")
	}
	printWalkthrough(w, url, serving, cfg, *s)
	return nil
}

// writeDemoEnv writes the demo's keys and ids as shell exports, readable
// only by the user (they are secrets).
func writeDemoEnv(path, url string, s demoSeed) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# tenantkit demo: API keys, ids and webhook secret of the demo data (written by --demo).\n")
	fmt.Fprintf(&b, "# Load into a shell with:  . %s\n", sourcePath(path))
	fmt.Fprintf(&b, "export TK_URL=%s\n", shellQuote(url))
	for i, k := range demoKeys() {
		fmt.Fprintf(&b, "# %s\n", strings.Join(strings.Fields(k.who), " "))
		fmt.Fprintf(&b, "export %s=%s\n", k.env, shellQuote(s.APIKeys[i].Key))
	}
	fmt.Fprintf(&b, "export TENANT_ACME=%s\n", shellQuote(s.Tenants[0].ID))
	fmt.Fprintf(&b, "export TENANT_GLOBEX=%s\n", shellQuote(s.Tenants[1].ID))
	if s.TestTenant.ID != "" {
		fmt.Fprintf(&b, "# acme-test, a test tenant on its own clock: server clock advance --tenant acme-test --to TIME\n")
		fmt.Fprintf(&b, "export TENANT_ACME_TEST=%s\n", shellQuote(s.TestTenant.ID))
	}
	fmt.Fprintf(&b, "# acme's open invoice of 19.99 USD\n")
	fmt.Fprintf(&b, "export INVOICE_ID=%s\n", shellQuote(s.InvoiceID))
	fmt.Fprintf(&b, "# the server verifies the payment webhook with it; server webhook sign signs with it\n")
	fmt.Fprintf(&b, "export TENANTKIT_WEBHOOK_SECRET=%s\n", shellQuote(s.WebhookSecret))
	// Written beside and renamed into place, so that a reader (a script
	// waiting for the demo) never sees half a file.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return failure(err, "cannot write the demo's env file %s", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		return failure(err, "cannot write the demo's env file %s", path)
	}
	return nil
}

// nextMonth is the start of the month after t's, in UTC: where the demo
// suggests moving the test tenant's clock.
func nextMonth(t time.Time) time.Time {
	_, _, end := tenancy.Period(t)
	return end
}

// readDemoEnv reads the exports of an env file written by writeDemoEnv.
func readDemoEnv(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "export ")
		if !ok {
			continue
		}
		name, value, _ := strings.Cut(line, "=")
		env[name] = strings.Trim(value, "'")
	}
	return env, sc.Err()
}

// shellQuote quotes s for a POSIX shell. The demo's values (ids, keys,
// base64, URLs) hold no single quote.
func shellQuote(s string) string { return "'" + s + "'" }

// sourcePath is path as `.` needs it: a bare file name would be looked up
// in $PATH.
func sourcePath(path string) string {
	if filepath.IsAbs(path) || strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../") {
		return path
	}
	return "./" + path
}

// resetHint says how to start the demo over on databaseURL.
func resetHint(databaseURL, envFile string) string {
	if strings.HasPrefix(databaseURL, "postgres") {
		return fmt.Sprintf("To start over, run it on an empty database (--database-url) and delete %s.\n", sourcePath(envFile))
	}
	path := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite://"), "sqlite:"), "file:")
	path, _, _ = strings.Cut(path, "?")
	return fmt.Sprintf("To start over, stop the server, run\n  rm -f %[1]s %[1]s-wal %[1]s-shm %[2]s\nand run the demo again.\n",
		sourcePath(path), sourcePath(envFile))
}

// printWalkthrough prints the demo's data and copy-paste curl calls;
// serving says whether a server listens at base already.
func printWalkthrough(w io.Writer, base string, serving bool, cfg config, s demoSeed) {
	if serving {
		fmt.Fprintf(w, "\ntenantkit demo is ready at %s", base)
		if strings.HasPrefix(base, "http://127.0.0.1:") {
			fmt.Fprint(w, " (this machine only; --addr to listen elsewhere)")
		}
		fmt.Fprintln(w)
	} else {
		same := ""
		if cfg.DatabaseURL != defaultDatabaseURL {
			same = " (with the same --database-url)"
		}
		fmt.Fprintf(w, "\ntenantkit demo data is in the database. Serve it, with the demo's webhook secret, at %s%s:\n  . %s && server serve --addr %s\n",
			base, same, sourcePath(cfg.DemoEnv), strings.TrimPrefix(base, "http://"))
	}
	fmt.Fprintf(w, "\nTenants: acme (%s, plan growth), globex (%s, plan starter)\n", s.Tenants[0].ID, s.Tenants[1].ID)
	if s.TestTenant.ID != "" {
		fmt.Fprintf(w, "Test tenant: acme-test (%s, plan growth) on its own clock; move it past a month's end to bill it:\n"+
			"  server clock advance --tenant acme-test --to %s && server invoice list --tenant acme-test\n",
			s.TestTenant.ID, nextMonth(time.Now()).Format(time.RFC3339))
	}
	if len(s.APIKeys) == 0 {
		fmt.Fprintf(w, `
The demo data was seeded in this database before, and nothing new was created. Its API
keys were shown once, when they were created (only their hashes are stored), and the file
that kept them, %s, is gone or belongs to another database.
%sWebhook secret of this run: %s
`, sourcePath(cfg.DemoEnv), resetHint(cfg.DatabaseURL, cfg.DemoEnv), s.WebhookSecret)
		return
	}
	if s.AlreadySeeded {
		fmt.Fprintf(w, `
The demo data was seeded in this database before: nothing new was created, and the keys
below are those kept in %s.
%s
`, sourcePath(cfg.DemoEnv), resetHint(cfg.DatabaseURL, cfg.DemoEnv))
	}
	fmt.Fprintf(w, "Invoice: %s (acme's, 19.99 USD; the README's payment webhook pays it)\nAPI keys:\n", s.InvoiceID)
	for i, k := range demoKeys() {
		fmt.Fprintf(w, "  %-52s %s\n", k.who+":", s.APIKeys[i].Key)
	}
	alice, bob, dave := s.APIKeys[0].Key, s.APIKeys[1].Key, s.APIKeys[2].Key
	fmt.Fprintf(w, `Webhook secret: %[5]s

All of this is in %[6]s, for the README's recipes:  . %[6]s

Try:
  curl -s %[1]s/api/auth/me -H "Authorization: Bearer %[2]s"
  curl -s -X POST %[1]s/api/tenant/select -H "Authorization: Bearer %[2]s" \
       -H 'Content-Type: application/json' -d '{"tenant_id":"%[7]s"}'
  curl -s %[1]s/api/tenant/access-matrix -H "Authorization: Bearer %[2]s"
  curl -s %[1]s/api/tenant/entitlements/limit -H "Authorization: Bearer %[2]s"

  # bob invoices a customer of acme (his key is pinned to acme)
  curl -s -X POST %[1]s/api/v1/collections/invoices -H "Authorization: Bearer %[3]s" \
       -H 'Content-Type: application/json' -H 'Idempotency-Key: first-invoice' \
       -d '{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Consulting","quantity":2,"unit_amount":15000,"tax_rate_bps":825}]}'
  curl -s %[1]s/api/v1/collections/invoices/%[8]s -H "Authorization: Bearer %[3]s"

  # dave opens a support ticket
  curl -s -X POST %[1]s/api/tickets -H "Authorization: Bearer %[4]s" \
       -H 'Content-Type: application/json' -d '{"subject":"Export fails","description":"CSV export times out.","priority":"high"}'

  curl -s %[1]s/api/catalog/public
  curl -s %[1]s/api/health/ready

`, base, alice, bob, dave, s.WebhookSecret, sourcePath(s.EnvFile), s.Tenants[0].ID, s.InvoiceID)
}
