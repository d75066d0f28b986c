package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// commandHelp is one line of `server --help`: a command, the arguments it
// takes and what it does. Each command's -h starts with its line.
type commandHelp struct {
	name, args, summary string
}

// commands lists every command, in the order `server --help` shows them.
var commands = []commandHelp{
	{"serve", "[flags]", "serve the API (the default command)"},
	{"migrate", "", "apply pending migrations"},
	{"tenant create", "--slug S --name N --plan P [--test]", "create a tenant on a plan of the catalog (--test: on its own clock)"},
	{"tenant list", "[--query Q] [--limit N] [--cursor ID]", "list tenants, newest first"},
	{"tenant change", "--tenant T [--plan P] [--seats N]", "change a tenant's plan or seats now"},
	{"user create", "--email E --name N", "create a user"},
	{"user list", "[--query Q] [--limit N] [--cursor ID]", "list users, newest first"},
	{"user end-sessions", "--user U", "sign a user out of the portal everywhere (ends every session)"},
	{"member add", "--tenant T --email E --role R", "give a user a role in a tenant (takes a seat)"},
	{"member list", "--tenant T [--limit N] [--cursor ID]", "list a tenant's members"},
	{"member role", "--tenant T --user U --role R", "change a member's role"},
	{"member remove", "--tenant T --user U", "remove a member (frees a seat)"},
	{"apikey create", "--email E --scopes a,b [--tenant T] [--name N]", "create an API key (shown once)"},
	{"apikey list", "[--tenant T] [--limit N] [--cursor ID]", "list API keys, never their secrets"},
	{"apikey revoke", "KEY_ID", "revoke an API key"},
	{"limit set", "--tenant T --feature F --limit N|unlimited", "override a tenant's entitlement limit"},
	{"limit clear", "--tenant T --feature F", "remove a limit override: the plan's limit applies again"},
	{"operator-key create", "--name N --scopes operator:read,operator:write", "create an operator key (shown once)"},
	{"operator-key list", "[--limit N] [--cursor ID]", "list operator keys, never their secrets"},
	{"operator-key revoke", "KEY_ID", "revoke an operator key"},
	{"contract list", "[--status S] [--tenant T] [--limit N] [--cursor ID]", "list contract change requests of every tenant, newest first"},
	{"contract approve", "REQUEST_ID [--reason R]", "approve a contract change request"},
	{"contract reject", "REQUEST_ID [--reason R]", "reject a contract change request"},
	{"contract apply-due", "", "apply approved changes whose period has come"},
	{"invoice list", "[--tenant T] [--status S] [--period YYYY-MM] [--limit N] [--cursor ID]", "list the platform's invoices to its tenants (pin_…), newest first"},
	{"invoice show", "INVOICE_ID", "show a platform invoice of any tenant, line by line"},
	{"invoice void", "INVOICE_ID", "void an open platform invoice: nothing is owed on it any more"},
	{"invoice mark-paid", "INVOICE_ID --reference R", "mark an open platform invoice paid outside the payment provider"},
	{"clock advance", "--tenant T --to TIME", "move a test tenant's clock forward, generating what falls due on the way"},
	{"billing run", "[--at TIME]", "generate the platform invoices of ended periods now (the scheduler's billing run)"},
	{"ticket list", "[--status S] [--priority P] [--tenant T] [--assignee A] [--limit N] [--cursor ID]", "list tickets of every tenant, newest first"},
	{"ticket get", "TICKET_ID", "show a ticket of any tenant"},
	{"ticket reply", "TICKET_ID --body B [--agent A]", "reply as a platform agent (the first reply stops the first-response clock)"},
	{"ticket change", "TICKET_ID [--status S] [--priority P] [--assignee A | --unassign]", "change a ticket's status, priority or assignee"},
	{"payment-event list", "[--outcome O] [--limit N] [--cursor ID]", "list the payment provider's events (unmatched by default)"},
	{"payment-event apply", "EVENT_ID --invoice INVOICE_ID", "apply an unmatched payment event to the invoice it belongs to, once"},
	{"payment-event dismiss", "EVENT_ID --reason R", "set an unmatched payment event aside"},
	{"webhook sign", "--file F [--secret S] [--id ID] [--timestamp UNIX] [--scheme standard|stripe]", "sign a test payment event"},
	{"seed", "--demo [--demo-env FILE]", "seed the demo data (as serve --demo does)"},
	{"login-link", "--email E [--tenant T] [--base-url URL | --addr HOST:PORT]", "print a one-time sign-in link to the tenant portal"},
}

// usage is what `server --help` prints.
func usage() string {
	var b strings.Builder
	b.WriteString("tenantkit reference server and admin CLI\n\nUsage:\n")
	for _, c := range commands {
		writeCommandLine(&b, c)
	}
	b.WriteString(`
Every command takes --database-url (TENANTKIT_DATABASE_URL) and --json.
Run "server COMMAND -h" for a command's flags ("server serve -h" for the server's).
Exit status: 0 done, 1 failed, 2 wrong usage; under --json a failure is
printed on standard error as {"error":{"code":…,"message":…}}. The error
behind a failure is logged on standard error; behind a refusal (not
found, conflict, invalid) only with --log-level debug.
`)
	return b.String()
}

// writeCommandLine writes a command's line of help: the command, then its
// summary in a column, or on the next line when the command is long.
func writeCommandLine(w io.Writer, c commandHelp) {
	line := strings.TrimSpace("server " + c.name + " " + c.args)
	if len(line) > 48 {
		fmt.Fprintf(w, "  %s\n  %-48s %s\n", line, "", c.summary)
		return
	}
	fmt.Fprintf(w, "  %-48s %s\n", line, c.summary)
}

// errHelp is returned, through the layers, once help has been printed:
// run turns it into success.
var errHelp = errors.New("help printed")

// run executes the command line args and returns when it is done (for
// serve: when ctx is cancelled and the server has drained). Asking for
// help is not an error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// dispatch runs the command args name; help comes back as errHelp.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			fmt.Fprint(stdout, usage())
			return errHelp
		case "help":
			if len(args) == 1 {
				fmt.Fprint(stdout, usage())
				return errHelp
			}
			// server help tenant create = server tenant create -h
			return dispatch(ctx, append(args[1:len(args):len(args)], "-h"), stdout, stderr)
		}
		if !strings.HasPrefix(args[0], "-") {
			cmd, args = args[0], args[1:]
		}
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args, stdout, stderr)
	case "tenant", "user", "member", "apikey", "limit", "seed", "operator-key":
		return runAdmin(ctx, cmd, args, stdout, stderr)
	case "contract":
		return runContract(ctx, args, stdout, stderr)
	case "invoice", "clock", "billing":
		return runPlatform(ctx, cmd, args, stdout, stderr)
	case "ticket", "payment-event":
		return runWorkGroup(ctx, cmd, args, stdout, stderr)
	case "webhook":
		return runWebhook(args, stdout)
	case "login-link":
		return runLoginLink(ctx, args, stdout, stderr)
	default:
		return &cliError{Code: codeUsage, Message: fmt.Sprintf("unknown command %q", cmd), hint: `Run "server --help" for the commands.`}
	}
}

// subcommand splits off the subcommand of a command group ("tenant
// create"). `server tenant` alone is a usage error; `server tenant -h`
// prints the group's commands.
func subcommand(group string, args []string, stdout io.Writer) (string, []string, error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "help" {
		return args[0], args[1:], nil
	}
	if len(args) > 0 && isHelpFlag(args[0]) {
		printGroupHelp(stdout, group)
		return "", nil, errHelp
	}
	return "", nil, unknownCommand(group, "")
}

// unknownCommand is the usage error for a missing or unknown subcommand
// of group.
func unknownCommand(group, sub string) error {
	msg := fmt.Sprintf("%q needs a command: %s", group, strings.Join(groupCommands(group), ", "))
	if sub != "" {
		msg = fmt.Sprintf("unknown command %q; %q has: %s", group+" "+sub, group, strings.Join(groupCommands(group), ", "))
	}
	return &cliError{Code: codeUsage, Message: msg, hint: fmt.Sprintf("Run \"server %s -h\" for its usage.", group)}
}

func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// groupCommands returns the subcommands of group.
func groupCommands(group string) []string {
	var subs []string
	for _, c := range commands {
		if g, sub, ok := strings.Cut(c.name, " "); ok && g == group {
			subs = append(subs, sub)
		}
	}
	return subs
}

// printGroupHelp prints the commands of a group ("server tenant -h").
func printGroupHelp(w io.Writer, group string) {
	fmt.Fprintln(w, "Usage:")
	for _, c := range commands {
		if strings.HasPrefix(c.name, group+" ") || c.name == group {
			writeCommandLine(w, c)
		}
	}
	fmt.Fprintf(w, "\nRun \"server %s COMMAND -h\" for a command's flags.\n", group)
}

// printCommandHelp prints a command's usage line, summary and flags.
func printCommandHelp(w io.Writer, name string, fs *flag.FlagSet) {
	for _, c := range commands {
		if c.name == name {
			fmt.Fprintf(w, "Usage: %s\n\n%s.\n", strings.TrimSpace("server "+c.name+" "+c.args), strings.ToUpper(c.summary[:1])+c.summary[1:])
		}
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parse parses the flags of command name, which may come before or after
// its positional arguments, and returns the positional arguments. -h
// prints the command's help on stdout (errHelp); a bad flag is a usage
// error.
func parse(name string, fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printCommandHelp(stdout, name, fs)
				return nil, errHelp
			}
			return nil, usageError(name, "%v", err)
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
	positional, err := parse("serve", fs, args, stdout)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError("serve", "unexpected argument %q", positional[0])
	}
	if cfg.SchedulerInterval < 0 {
		return usageError("serve", "--scheduler-interval %s: want 0 (off) or a positive duration such as 1m", cfg.SchedulerInterval)
	}
	if cfg.EventRetention < 0 {
		return usageError("serve", "--event-retention %s: want 0 (keep forever) or a positive duration such as 2160h", cfg.EventRetention)
	}
	if cfg.PlatformGraceDays < -1 {
		return usageError("serve", "--platform-grace-days %d: want -1 (off), 0 (past due from the due date) or more days", cfg.PlatformGraceDays)
	}
	if cfg.WebhookWorkers < 0 {
		return usageError("serve", "--webhook-workers %d: want 0 (deliver nothing on this replica) or more", cfg.WebhookWorkers)
	}
	if cfg.WebhookRescueAfter <= riverqueue.DefaultJobTimeout {
		return usageError("serve", "--webhook-rescue-after %s: want more than River's %s job timeout, such as 1m", cfg.WebhookRescueAfter, riverqueue.DefaultJobTimeout)
	}
	if cfg.WebhookRetryBase <= 0 {
		return usageError("serve", "--webhook-retry-base %s: want a positive duration such as 30s", cfg.WebhookRetryBase)
	}
	if cfg.PublicURL != "" {
		if err := checkPublicURL("public-url", cfg.PublicURL); err != nil {
			return usageError("serve", "%v", err)
		}
	}
	applyDemoDefaults(fs, &cfg)
	a, err := openApp(ctx, cfg, stderr, cfg.Migrate)
	if err != nil {
		return err
	}
	var seed demoSeed
	if cfg.Demo {
		if seed, err = seedDemo(ctx, a); err != nil {
			_ = a.close()
			return err
		}
		if len(a.cfg.WebhookSecrets) == 0 {
			a.cfg.WebhookSecrets = []string{seed.WebhookSecret}
		}
	}
	s, err := a.serve(ctx)
	if err != nil {
		_ = a.close()
		return err
	}
	if cfg.Demo {
		if cfg.Portal && !cfg.JSON {
			printDemoLinks(ctx, stdout, a, s.PublicURL(), seed)
		}
		if err := finishDemo(stdout, s.URL(), cfg, &seed); err != nil {
			_ = s.shutdown(context.Background())
			return err
		}
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
	positional, err := parse("migrate", fs, args, stdout)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError("migrate", "unexpected argument %q", positional[0])
	}
	a, err := openApp(ctx, cfg, stderr, false)
	if err != nil {
		return err
	}
	defer a.close()
	n, err := tenantkit.Migrate(ctx, a.db)
	if err != nil {
		return err
	}
	return output(stdout, cfg.JSON, map[string]int{"applied": n}, fmt.Sprintf("applied %d migrations", n))
}

func runAdmin(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	name := cmd
	if cmd != "seed" {
		sub, rest, err := subcommand(cmd, args, stdout)
		if err != nil {
			return err
		}
		name, args = cmd+" "+sub, rest
		if isManageCommand(name) {
			return runManage(ctx, name, args, stdout, stderr)
		}
	}
	var (
		cfg                                                         config
		slug, tname, plan, email, tenant, role, scp, feature, limit string
		demo, test                                                  bool
	)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	commonFlags(fs, &cfg)
	switch name {
	case "tenant create":
		fs.StringVar(&slug, "slug", "", "tenant slug (lower-case, digits, hyphens)")
		fs.StringVar(&tname, "name", "", "tenant name")
		fs.StringVar(&plan, "plan", "", "catalog plan id")
		fs.BoolVar(&test, "test", false, "a test tenant: its own clock, moved by \"server clock advance\", bills it")
	case "user create":
		fs.StringVar(&email, "email", "", "email")
		fs.StringVar(&tname, "name", "", "name")
	case "member add":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		fs.StringVar(&email, "email", "", "user email (or user id)")
		fs.StringVar(&role, "role", "member", "owner, admin, billing, support or member")
	case "apikey create":
		fs.StringVar(&email, "email", "", "email of the key's user")
		fs.StringVar(&scp, "scopes", "", "comma-separated scopes")
		fs.StringVar(&tenant, "tenant", "", "pin the key to this tenant (id or slug)")
		fs.StringVar(&tname, "name", "", "a name to recognise the key by")
	case "apikey revoke":
	case "limit set":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		fs.StringVar(&feature, "feature", "", "collections.invoices, support.tickets or seats")
		fs.StringVar(&limit, "limit", "", "a number, or unlimited")
	case "seed":
		fs.BoolVar(&demo, "demo", false, "seed the demo data")
		demoEnvFlag(fs, &cfg)
	default:
		return unknownCommand(cmd, strings.TrimPrefix(name, cmd+" "))
	}
	positional, err := parse(name, fs, args, stdout)
	if err != nil {
		return err
	}
	wantArgs := 0
	if name == "apikey revoke" {
		wantArgs = 1
	}
	switch {
	case len(positional) > wantArgs:
		return usageError(name, "unexpected argument %q", positional[wantArgs])
	case len(positional) < wantArgs:
		return usageError(name, "missing KEY_ID")
	case name == "seed" && !demo:
		return usageError(name, "seed needs --demo")
	}
	a, err := openApp(ctx, cfg, stderr, true)
	if err != nil {
		return err
	}
	defer a.close()
	ctx = tenancy.WithActor(ctx, cliActor())
	svc := a.tenancy
	switch name {
	case "tenant create":
		t, err := svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: slug, Name: tname, PlanID: plan, Test: test})
		if err != nil {
			return withValidPlans(renameField(about(err, "tenant %q", slug), "plan_id", "plan"), a)
		}
		js := map[string]any{"id": t.ID, "slug": t.Slug, "name": t.Name, "plan_id": t.PlanID, "test": t.Test}
		human := fmt.Sprintf("created tenant %s (%s) on plan %s", t.ID, t.Slug, t.PlanID)
		if t.Test && t.TestClock != nil {
			js["test_clock"] = *t.TestClock
			human = fmt.Sprintf("created test tenant %s (%s) on plan %s; its clock is at %s (move it with: server clock advance --tenant %s --to TIME)",
				t.ID, t.Slug, t.PlanID, t.TestClock.Format(time.RFC3339), t.Slug)
		}
		return output(stdout, cfg.JSON, js, human)
	case "user create":
		u, err := svc.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: email, Name: tname})
		if err != nil {
			return about(err, "user %q", email)
		}
		return output(stdout, cfg.JSON, map[string]string{"id": u.ID, "email": u.Email, "name": u.Name},
			fmt.Sprintf("created user %s (%s)", u.ID, u.Email))
	case "member add":
		if err := a.findTenantAndUser(ctx, tenant, email); err != nil {
			return err
		}
		m, err := svc.Members.Add(ctx, tenant, email, tenancy.Role(role))
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
		if _, err := a.findUser(ctx, email); err != nil {
			return err
		}
		if tenant != "" {
			if _, err := a.findTenant(ctx, tenant); err != nil {
				return err
			}
		}
		k, secret, err := svc.Keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: email, Scopes: scopes, Tenant: tenant, Name: tname})
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
		if err := svc.Keys.Revoke(ctx, positional[0]); err != nil {
			return about(err, "API key %q", positional[0])
		}
		return output(stdout, cfg.JSON, map[string]any{"id": positional[0], "revoked": true}, "revoked "+positional[0])
	case "limit set":
		var lim *int64
		if limit != "unlimited" {
			n, err := strconv.ParseInt(limit, 10, 64)
			if err != nil {
				return &cliError{Code: codeInvalid, Message: fmt.Sprintf("limit: %q is not a number or unlimited", limit),
					Fields: map[string]string{"limit": "want a number or unlimited"}}
			}
			lim = &n
		}
		if err := svc.Entitlements.SetLimit(ctx, tenant, feature, lim); err != nil {
			return about(err, "tenant %q", tenant)
		}
		t, err := svc.Directory.FindTenant(ctx, tenant)
		if err != nil {
			return err
		}
		return output(stdout, cfg.JSON, map[string]any{"tenant_id": t.ID, "feature": feature, "limit": lim},
			fmt.Sprintf("set %s limit of %s to %s", feature, t.Slug, limit))
	case "seed":
		s, err := seedDemo(ctx, a)
		if err != nil {
			return err
		}
		return finishDemo(stdout, "", cfg, &s)
	}
	return nil
}

// withValidPlans adds the catalog's plans to a refused plan, so that the
// operator can pick one.
func withValidPlans(err error, a *app) error {
	ce := classify(err)
	if ce.Fields["plan"] == "" {
		return err
	}
	ids := make([]string, len(a.catalog.Plans))
	for i, p := range a.catalog.Plans {
		ids[i] = p.ID
	}
	fields := make(map[string]string, len(ce.Fields))
	for k, v := range ce.Fields {
		fields[k] = v
	}
	fields["plan"] += " (valid plans: " + strings.Join(ids, ", ") + ")"
	return &cliError{Code: codeInvalid, Message: fieldsMessage(fields), Fields: fields}
}

// apiKeyJSON is what `apikey create --json` prints.
type apiKeyJSON struct {
	ID       string          `json:"id"`
	Key      string          `json:"key"`
	Scopes   []tenancy.Scope `json:"scopes"`
	TenantID *string         `json:"tenant_id"`
}
