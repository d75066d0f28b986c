package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// cliRun runs a command line as main does and returns its exit status and
// output.
func cliRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runMain(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestCLIHelp: help on every command, its group and the whole CLI exits 0
// and prints the usage on standard output.
func TestCLIHelp(t *testing.T) {
	type helpCase struct {
		args []string
		want string
	}
	var tests []helpCase
	for _, top := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}} {
		tests = append(tests, helpCase{top, "Usage:\n  server serve [flags]"})
	}
	groups := map[string]bool{}
	for _, c := range commands {
		name := strings.Fields(c.name)
		want := "Usage: server " + c.name
		tests = append(tests,
			helpCase{append(name, "-h"), want},
			helpCase{append(name, "--help"), want},
			helpCase{append([]string{"help"}, name...), want},
		)
		if len(name) == 2 && !groups[name[0]] {
			groups[name[0]] = true
			want := "Usage:\n  server " + name[0] + " "
			tests = append(tests,
				helpCase{[]string{name[0], "-h"}, want},
				helpCase{[]string{name[0], "--help"}, want},
				helpCase{[]string{name[0], "help"}, want},
			)
		}
	}
	// Flags before -h are parsed, not run.
	tests = append(tests, helpCase{[]string{"--demo", "--addr", "127.0.0.1:1", "-h"}, "Usage: server serve"})
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, "_"), func(t *testing.T) {
			code, stdout, stderr := cliRun(t, tt.args...)
			if code != 0 || !strings.HasPrefix(strings.TrimPrefix(stdout, "tenantkit reference server and admin CLI\n\n"), tt.want) {
				t.Fatalf("server %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and stdout starting %q",
					strings.Join(tt.args, " "), code, stdout, stderr, tt.want)
			}
			if stderr != "" {
				t.Errorf("help wrote to stderr: %q", stderr)
			}
		})
	}
}

// TestCLIErrors: every command's failures exit non-zero (2 for a wrong
// command line) with one sentence, and with --json as
// {"error":{"code","message"}} on standard error.
func TestCLIErrors(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite:" + filepath.Join(dir, "cli.db")
	mustCLIJSON(t, url, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "starter")
	mustCLIJSON(t, url, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
	mustCLIJSON(t, url, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
	mustCLIJSON(t, url, "user", "create", "--email", "bob@elsewhere.test", "--name", "Bob")
	event := writeFile(t, specPayload)
	tests := []struct {
		name     string
		args     []string
		code     string
		contains string // in the message
	}{
		{"UnknownCommand", []string{"frobnicate"}, codeUsage, `unknown command "frobnicate"`},
		{"ServeUnknownFlag", []string{"--bogus"}, codeUsage, "-bogus"},
		{"ServeArgument", []string{"serve", "extra"}, codeUsage, `"extra"`},
		{"ServeNegativeSchedulerInterval", []string{"serve", "--addr", "127.0.0.1:0", "--scheduler-interval", "-1m"}, codeUsage, "--scheduler-interval"},
		{"ServeNegativeEventRetention", []string{"serve", "--addr", "127.0.0.1:0", "--event-retention", "-1h"}, codeUsage, "--event-retention"},
		{"ServeNegativeWebhookWorkers", []string{"serve", "--addr", "127.0.0.1:0", "--webhook-workers", "-1"}, codeUsage, "--webhook-workers"},
		{"ServeShortWebhookRescue", []string{"serve", "--addr", "127.0.0.1:0", "--webhook-rescue-after", "10s"}, codeUsage, "--webhook-rescue-after"},
		{"ServeNegativeGrace", []string{"serve", "--addr", "127.0.0.1:0", "--platform-grace-days", "-2"}, codeUsage, "--platform-grace-days"},
		{"ServeZeroWebhookRetryBase", []string{"serve", "--addr", "127.0.0.1:0", "--webhook-retry-base", "0s"}, codeUsage, "--webhook-retry-base"},
		{"ServeNegativeWebhookRetryBase", []string{"serve", "--addr", "127.0.0.1:0", "--webhook-retry-base", "-1s"}, codeUsage, "--webhook-retry-base"},
		{"ServeBadScheme", []string{"serve", "--addr", "127.0.0.1:0", "--webhook-secret", specSecret, "--webhook-scheme", "hmac"}, codeFailed, "webhook-scheme"},
		{"MigrateBadURL", []string{"migrate", "--database-url", "mysql://x"}, codeFailed, "--database-url takes postgres://… or sqlite:PATH"},
		{"TenantNoCommand", []string{"tenant"}, codeUsage, "create"},
		{"TenantUnknownCommand", []string{"tenant", "delete"}, codeUsage, `"tenant delete"`},
		{"TenantUnknownPlan", []string{"tenant", "create", "--slug", "x", "--name", "X", "--plan", "gold"}, codeInvalid, "free, starter, growth, enterprise"},
		{"TenantBadSlug", []string{"tenant", "create", "--slug", "X Y", "--name", "X", "--plan", "growth"}, codeInvalid, "slug"},
		{"TenantTaken", []string{"tenant", "create", "--slug", "acme", "--name", "X", "--plan", "growth"}, codeConflict, ""},
		{"UserBadEmail", []string{"user", "create", "--email", "nope", "--name", "N"}, codeInvalid, "email"},
		{"UserTaken", []string{"user", "create", "--email", "ann@acme.test", "--name", "Ann"}, codeConflict, ""},
		{"MemberUnknownTenant", []string{"member", "add", "--tenant", "nope", "--email", "ann@acme.test", "--role", "owner"}, codeNotFound, "nope"},
		{"MemberBadRole", []string{"member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "boss"}, codeInvalid, "role"},
		{"APIKeyBadScope", []string{"apikey", "create", "--email", "ann@acme.test", "--scopes", "admin"}, codeInvalid, "scope"},
		{"LoginLinkNoEmail", []string{"login-link"}, codeUsage, "--email"},
		{"LoginLinkUnknownUser", []string{"login-link", "--email", "nobody@acme.test"}, codeNotFound, ""},
		{"LoginLinkNotMember", []string{"login-link", "--email", "bob@elsewhere.test", "--tenant", "acme"}, codeFailed, "not a member"},
		{"APIKeyUnknownUser", []string{"apikey", "create", "--email", "nobody@acme.test", "--scopes", "tickets:read"}, codeNotFound, ""},
		{"RevokeNoID", []string{"apikey", "revoke"}, codeUsage, "KEY_ID"},
		{"RevokeUnknown", []string{"apikey", "revoke", "key_nope"}, codeNotFound, ""},
		{"LimitNotANumber", []string{"limit", "set", "--tenant", "acme", "--feature", "support.tickets", "--limit", "lots"}, codeInvalid, "lots"},
		{"LimitUnknownFeature", []string{"limit", "set", "--tenant", "acme", "--feature", "nope", "--limit", "3"}, codeInvalid, "feature"},
		{"ContractNoID", []string{"contract", "approve"}, codeUsage, "REQUEST_ID"},
		{"ContractUnknown", []string{"contract", "reject", "ccr_nope"}, codeNotFound, ""},
		{"ContractApplyDueArgument", []string{"contract", "apply-due", "x"}, codeUsage, `"x"`},
		{"InvoiceListBadStatus", []string{"invoice", "list", "--status", "draft"}, codeInvalid, "status"},
		{"InvoiceListUnknownTenant", []string{"invoice", "list", "--tenant", "nope"}, codeNotFound, "nope"},
		{"InvoiceShowUnknown", []string{"invoice", "show", "pin_nope"}, codeNotFound, "pin_"},
		{"InvoiceVoidNoID", []string{"invoice", "void"}, codeUsage, "INVOICE_ID"},
		{"InvoiceMarkPaidNoReference", []string{"invoice", "mark-paid", "pin_01jd0000000000000000000000"}, codeInvalid, "reference"},
		{"InvoiceUnknownCommand", []string{"invoice", "refund"}, codeUsage, `"invoice refund"`},
		{"ClockAdvanceNoTo", []string{"clock", "advance", "--tenant", "acme"}, codeUsage, "--to"},
		{"ClockAdvanceBadTime", []string{"clock", "advance", "--tenant", "acme", "--to", "tomorrow"}, codeInvalid, "RFC 3339"},
		{"ClockAdvanceRealTenant", []string{"clock", "advance", "--tenant", "acme", "--to", "2099-01-01T00:00:00Z"}, codeInvalid, "this tenant is real"},
		{"BillingRunBadAt", []string{"billing", "run", "--at", "now"}, codeInvalid, "at"},
		{"WebhookNoFile", []string{"webhook", "sign", "--secret", specSecret}, codeUsage, "--file"},
		{"WebhookBadScheme", []string{"webhook", "sign", "--secret", specSecret, "--file", event, "--scheme", "hmac"}, codeUsage, "hmac"},
		{"WebhookUnknownCommand", []string{"webhook", "verify"}, codeUsage, `"webhook verify"`},
		{"SeedWithoutDemo", []string{"seed"}, codeUsage, "--demo"},
		{"TenantListBadLimit", []string{"tenant", "list", "--limit", "0"}, codeInvalid, "limit"},
		{"TenantListBadCursor", []string{"tenant", "list", "--cursor", "acme"}, codeInvalid, "cursor"},
		{"TenantChangeNothing", []string{"tenant", "change", "--tenant", "acme"}, codeUsage, "--plan"},
		{"TenantChangeUnknownPlan", []string{"tenant", "change", "--tenant", "acme", "--plan", "gold"}, codeInvalid, "valid plans"},
		{"TenantChangeUnknownTenant", []string{"tenant", "change", "--tenant", "nope", "--seats", "5"}, codeNotFound, "nope"},
		{"UserListQueryTooLong", []string{"user", "list", "--query", strings.Repeat("q", 201)}, codeInvalid, "query"},
		{"UserEndSessionsNoUser", []string{"user", "end-sessions"}, codeUsage, "--user"},
		{"UserEndSessionsUnknownUser", []string{"user", "end-sessions", "--user", "nobody@acme.test"}, codeNotFound, ""},
		{"MemberAddTwice", []string{"member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "admin"}, codeConflict, "already"},
		{"MemberListUnknownTenant", []string{"member", "list", "--tenant", "nope"}, codeNotFound, "nope"},
		{"MemberRoleLastOwner", []string{"member", "role", "--tenant", "acme", "--user", "ann@acme.test", "--role", "admin"}, codeConflict, "owner"},
		{"MemberRemoveLastOwner", []string{"member", "remove", "--tenant", "acme", "--user", "ann@acme.test"}, codeConflict, "owner"},
		{"MemberRemoveUnknownUser", []string{"member", "remove", "--tenant", "acme", "--user", "nobody@acme.test"}, codeNotFound, ""},
		{"APIKeyListUnknownTenant", []string{"apikey", "list", "--tenant", "nope"}, codeNotFound, "nope"},
		{"LimitClearUnknownFeature", []string{"limit", "clear", "--tenant", "acme", "--feature", "nope"}, codeInvalid, "feature"},
		{"OperatorKeyNoCommand", []string{"operator-key"}, codeUsage, "create"},
		{"OperatorKeyTenantScope", []string{"operator-key", "create", "--name", "ops", "--scopes", "tickets:read"}, codeInvalid, "scopes"},
		{"OperatorKeyNoName", []string{"operator-key", "create", "--scopes", "operator:read"}, codeInvalid, "name"},
		{"OperatorKeyListBadCursor", []string{"operator-key", "list", "--cursor", "key_1"}, codeInvalid, "cursor"},
		{"OperatorKeyRevokeNoID", []string{"operator-key", "revoke"}, codeUsage, "KEY_ID"},
		{"OperatorKeyRevokeUnknown", []string{"operator-key", "revoke", "opk_nope"}, codeNotFound, ""},
		{"ContractListBadStatus", []string{"contract", "list", "--status", "open"}, codeInvalid, "status"},
		{"TicketListBadPriority", []string{"ticket", "list", "--priority", "asap"}, codeInvalid, "priority"},
		{"TicketGetUnknown", []string{"ticket", "get", "tkt_nope"}, codeNotFound, ""},
		{"TicketReplyNoID", []string{"ticket", "reply", "--body", "hi"}, codeUsage, "ID"},
		{"TicketChangeNothing", []string{"ticket", "change", "tkt_nope"}, codeUsage, "--status"},
		{"PaymentEventListBadOutcome", []string{"payment-event", "list", "--outcome", "lost"}, codeInvalid, "outcome"},
		{"PaymentEventApplyUnknown", []string{"payment-event", "apply", "evt_nope", "--invoice", "inv_01jd0000000000000000000000"}, codeNotFound, ""},
		{"PaymentEventDismissNoReason", []string{"payment-event", "dismiss", "evt_nope"}, codeInvalid, "reason"},
	}
	covered := map[string]bool{"serve": true}
	for _, tt := range tests {
		covered[tt.args[0]] = true
		covered[strings.Join(tt.args[:min(2, len(tt.args))], " ")] = true
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TENANTKIT_WEBHOOK_SECRET", "")
			args := append(tt.args[:len(tt.args):len(tt.args)], "--log-level", "warn")
			if tt.args[0] != "migrate" {
				args = append(args, "--database-url", url)
			}
			wantExit := 1
			if tt.code == codeUsage {
				wantExit = 2
			}

			code, stdout, stderr := cliRun(t, args...)
			if code != wantExit || stdout != "" {
				t.Fatalf("server %s: exit %d, stdout %q; want exit %d and no output", strings.Join(args, " "), code, stdout, wantExit)
			}
			_, said := splitStderr(stderr)
			if first := said[0]; !strings.HasPrefix(first, "server: ") || strings.HasSuffix(first, ";") || !strings.Contains(first, tt.contains) {
				t.Errorf("stderr %q: want one line \"server: …\" naming %q, not ending in ;", stderr, tt.contains)
			}

			code, stdout, stderr = cliRun(t, append(args, "--json")...)
			var got struct {
				Error *struct {
					Code    string            `json:"code"`
					Message string            `json:"message"`
					Fields  map[string]string `json:"fields"`
				} `json:"error"`
			}
			_, said = splitStderr(stderr)
			if err := json.Unmarshal([]byte(said[len(said)-1]), &got); len(said) != 1 || err != nil || got.Error == nil {
				t.Fatalf("--json: stderr %q is not {\"error\":{…}}: %v", stderr, err)
			}
			e := got.Error
			if code != wantExit || stdout != "" || e.Code != tt.code || !strings.Contains(e.Message, tt.contains) ||
				strings.HasSuffix(e.Message, ";") || strings.HasPrefix(e.Message, "server:") {
				t.Fatalf("--json: exit %d, stdout %q, error %+v; want exit %d, code %q, a message naming %q", code, stdout, e, wantExit, tt.code, tt.contains)
			}
			if (tt.code == codeInvalid) != (len(e.Fields) > 0) {
				t.Errorf("--json: fields %v for code %s", e.Fields, e.Code)
			}
		})
	}
	for _, c := range commands {
		if !covered[c.name] {
			t.Errorf("no error case for %q", c.name)
		}
	}
}

// TestJSONRequested: --json is found before the flags are parsed, in the
// forms the flag package accepts.
func TestJSONRequested(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"tenant", "create", "--json"}, true},
		{[]string{"-json", "x"}, true},
		{[]string{"--json=true"}, true},
		{[]string{"--json=false"}, false},
		{[]string{"--json", "--json=0"}, false},
		{[]string{"json"}, false},
		{[]string{"--", "--json"}, false},
		{[]string{"--jsonx"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := jsonRequested(tt.args); got != tt.want {
			t.Errorf("jsonRequested(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestCLIErrorsOnPostgres: the domain's errors get the same codes on
// Postgres.
func TestCLIErrorsOnPostgres(t *testing.T) {
	url := dbtest.PostgresURL(t)
	code, _, stderr := cliRun(t, "tenant", "create", "--slug", "x", "--name", "X", "--plan", "gold", "--json", "--log-level", "warn", "--database-url", url)
	if code != 1 || !strings.Contains(stderr, `"code":"invalid"`) || !strings.Contains(stderr, "valid plans") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = cliRun(t, "member", "add", "--tenant", "nope", "--email", "a@b.test", "--json", "--log-level", "warn", "--database-url", url)
	if code != 1 || !strings.Contains(stderr, `"code":"not_found"`) {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}
