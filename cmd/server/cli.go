package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

const usage = `tenantkit reference server and admin CLI

Usage:
  server [serve] [flags]                          serve the API (default)
  server migrate                                  apply pending migrations
  server tenant create --slug S --name N --plan P
  server user create --email E --name N
  server member add --tenant T --email E --role R
  server apikey create --email E --scopes a,b [--tenant T] [--name N]
  server apikey revoke ID
  server limit set --tenant T --feature F --limit N|unlimited
  server contract approve|reject ID [--reason R]
  server contract apply-due                       apply approved changes whose period has come
  server webhook sign --secret S --file F [--id ID] [--timestamp UNIX] [--scheme standard|stripe]
  server seed --demo

Every command takes --database-url (TENANTKIT_DATABASE_URL) and --json.
Run "server COMMAND -h" for a command's flags.
`

// run executes the command line args and returns when it is done (for
// serve: when ctx is cancelled and the server has drained).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args, stdout, stderr)
	case "tenant", "user", "member", "apikey", "limit", "seed":
		return runAdmin(ctx, cmd, args, stdout, stderr)
	case "contract":
		return runContract(ctx, args, stdout, stderr)
	case "webhook":
		return runWebhook(args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// parse parses a subcommand's flags, which may come before or after its
// positional arguments; errors (and -h) print its usage. It returns the
// positional arguments.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	if err := serveFlags(fs, &cfg); err != nil {
		return err
	}
	if _, err := parse(fs, args, stderr); err != nil {
		return err
	}
	if cfg.Demo && len(cfg.WebhookSecrets) == 0 {
		cfg.WebhookSecrets = []string{newWebhookSecret()}
	}
	s, err := startServer(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	if cfg.Demo {
		seed, err := seedDemo(ctx, s.app)
		if err != nil {
			_ = s.shutdown(context.Background())
			return err
		}
		printWalkthrough(stdout, s.URL(), seed)
	}
	select {
	case <-ctx.Done():
	case err := <-s.done:
		s.done <- err
	}
	s.app.log.Info().Msg("shutting down: draining requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.shutdown(shutdownCtx)
}

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	commonFlags(fs, &cfg)
	if _, err := parse(fs, args, stderr); err != nil {
		return err
	}
	a, err := openApp(ctx, cfg, stderr, false)
	if err != nil {
		return err
	}
	defer a.close()
	n, err := httpapi.Migrate(ctx, a.db)
	if err != nil {
		return err
	}
	return output(stdout, cfg.JSON, map[string]int{"applied": n}, fmt.Sprintf("applied %d migrations", n))
}

// output prints v as JSON with --json, else the human line.
func output(w io.Writer, asJSON bool, v any, human string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(w, human)
	return err
}

func runAdmin(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	var (
		cfg                                                        config
		slug, name, plan, email, tenant, role, scp, feature, limit string
		demo                                                       bool
	)
	fs := flag.NewFlagSet(cmd+" "+sub, flag.ContinueOnError)
	commonFlags(fs, &cfg)
	switch cmd + " " + sub {
	case "tenant create":
		fs.StringVar(&slug, "slug", "", "tenant slug (lower-case, digits, hyphens)")
		fs.StringVar(&name, "name", "", "tenant name")
		fs.StringVar(&plan, "plan", "", "catalog plan id")
	case "user create":
		fs.StringVar(&email, "email", "", "email")
		fs.StringVar(&name, "name", "", "name")
	case "member add":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		fs.StringVar(&email, "email", "", "user email")
		fs.StringVar(&role, "role", "member", "owner, admin, billing, support or member")
	case "apikey create":
		fs.StringVar(&email, "email", "", "email of the key's user")
		fs.StringVar(&scp, "scopes", "", "comma-separated scopes")
		fs.StringVar(&tenant, "tenant", "", "pin the key to this tenant (id or slug)")
		fs.StringVar(&name, "name", "", "a name to recognise the key by")
	case "apikey revoke":
	case "limit set":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		fs.StringVar(&feature, "feature", "", "collections.invoices, support.tickets or seats")
		fs.StringVar(&limit, "limit", "", "a number, or unlimited")
	case "seed ":
		fs.BoolVar(&demo, "demo", false, "seed the demo data")
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", strings.TrimSpace(cmd+" "+sub))
	}
	positional, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	a, err := openApp(ctx, cfg, stderr, true)
	if err != nil {
		return err
	}
	defer a.close()
	svc := a.tenancy
	switch cmd + " " + sub {
	case "tenant create":
		t, err := svc.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: slug, Name: name, PlanID: plan})
		if err != nil {
			return err
		}
		return output(stdout, cfg.JSON, map[string]string{"id": t.ID, "slug": t.Slug, "name": t.Name, "plan_id": t.PlanID},
			fmt.Sprintf("created tenant %s (%s) on plan %s", t.ID, t.Slug, t.PlanID))
	case "user create":
		u, err := svc.CreateUser(ctx, tenancy.CreateUserInput{Email: email, Name: name})
		if err != nil {
			return err
		}
		return output(stdout, cfg.JSON, map[string]string{"id": u.ID, "email": u.Email, "name": u.Name},
			fmt.Sprintf("created user %s (%s)", u.ID, u.Email))
	case "member add":
		m, err := svc.AddMember(ctx, tenant, email, tenancy.Role(role))
		if err != nil {
			return err
		}
		return output(stdout, cfg.JSON, map[string]string{"tenant_id": m.TenantID, "user_id": m.UserID, "role": string(m.Role)},
			fmt.Sprintf("added %s to %s as %s", email, tenant, m.Role))
	case "apikey create":
		var scopes []tenancy.Scope
		for _, s := range list(scp) {
			scopes = append(scopes, tenancy.Scope(s))
		}
		k, secret, err := svc.CreateAPIKey(ctx, tenancy.CreateAPIKeyInput{UserEmail: email, Scopes: scopes, Tenant: tenant, Name: name})
		if err != nil {
			return err
		}
		var pinned *string
		if k.TenantID != "" {
			pinned = &k.TenantID
		}
		return output(stdout, cfg.JSON, apiKeyJSON{ID: k.ID, Key: secret, Scopes: k.Scopes, TenantID: pinned},
			fmt.Sprintf("created API key %s for %s — store it now, it is not shown again:\n%s", k.ID, email, secret))
	case "apikey revoke":
		if len(positional) != 1 {
			return errors.New("usage: server apikey revoke KEY_ID")
		}
		if err := svc.RevokeAPIKey(ctx, positional[0]); err != nil {
			return err
		}
		return output(stdout, cfg.JSON, map[string]any{"id": positional[0], "revoked": true}, "revoked "+positional[0])
	case "limit set":
		var lim *int64
		if limit != "unlimited" {
			n, err := strconv.ParseInt(limit, 10, 64)
			if err != nil {
				return fmt.Errorf("--limit %q: want a number or unlimited", limit)
			}
			lim = &n
		}
		if err := svc.SetLimit(ctx, tenant, feature, lim); err != nil {
			return err
		}
		t, err := svc.FindTenant(ctx, tenant)
		if err != nil {
			return err
		}
		return output(stdout, cfg.JSON, map[string]any{"tenant_id": t.ID, "feature": feature, "limit": lim},
			fmt.Sprintf("set %s limit of %s to %s", feature, t.Slug, limit))
	case "seed ":
		if !demo {
			return errors.New("usage: server seed --demo")
		}
		s, err := seedDemo(ctx, a)
		if err != nil {
			return err
		}
		if cfg.JSON {
			return output(stdout, true, s, "")
		}
		printWalkthrough(stdout, "http://localhost:8080", s)
		return nil
	}
	return nil
}

// apiKeyJSON is what `apikey create --json` prints.
type apiKeyJSON struct {
	ID       string          `json:"id"`
	Key      string          `json:"key"`
	Scopes   []tenancy.Scope `json:"scopes"`
	TenantID *string         `json:"tenant_id"`
}
