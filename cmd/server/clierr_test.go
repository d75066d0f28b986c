package main

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// splitStderr separates a command's standard error into its log lines
// (JSON objects with a level) and the rest, what it says to people.
func splitStderr(stderr string) (logs []map[string]any, said []string) {
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var entry map[string]any
		if json.Unmarshal([]byte(line), &entry) == nil && entry["level"] != nil {
			logs = append(logs, entry)
			continue
		}
		said = append(said, line)
	}
	return logs, said
}

// chainWords are the package prefixes of wrapped errors: context for the
// log that a sentence for the operator never shows.
var chainWords = []string{"tenancy:", "portal:", "database:", "dial tcp", "SQLSTATE", "(14)"}

// TestCLIErrorSentences: the CLI says what went wrong in one sentence —
// the domain's, naming what was not found, or that the database cannot
// be reached — and keeps the chain of wrapped errors for the log: at
// debug level when the command was refused (shown with --log-level
// debug), at error level when it failed. The exit status and the code
// stay as documented.
func TestCLIErrorSentences(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		mustCLIJSON(t, dbURL, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "starter")
		mustCLIJSON(t, dbURL, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
		mustCLIJSON(t, dbURL, "user", "create", "--email", "bob@elsewhere.test", "--name", "Bob")
		mustCLIJSON(t, dbURL, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
		unreachable := "sqlite:" + filepath.Join(t.TempDir(), "no-such-dir", "tk.db")
		if strings.HasPrefix(dbURL, "postgres") {
			u, err := url.Parse(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			u.Path = "/tenantkit_no_such_database"
			unreachable = u.String()
		}
		tests := []struct {
			name     string
			args     []string
			database string
			code     string
			want     string // the sentence
			chain    string // in the logged error
			logLevel string // of the logged error: debug for a refusal, error for a failure
		}{
			{"UnknownTenant", []string{"member", "add", "--tenant", "nope", "--email", "ann@acme.test"}, dbURL,
				codeNotFound, `tenant "nope" not found`, `tenancy: tenant "nope": not found`, "debug"},
			{"UnknownTenantChange", []string{"tenant", "change", "--tenant", "nope", "--seats", "3"}, dbURL,
				codeNotFound, `tenant "nope" not found`, `tenancy: tenant "nope": not found`, "debug"},
			{"UnknownUserMemberAdd", []string{"member", "add", "--tenant", "acme", "--email", "nobody@acme.test"}, dbURL,
				codeNotFound, `user "nobody@acme.test" not found`, "tenancy: user nobody@acme.test: not found", "debug"},
			{"LoginLinkUnknownUser", []string{"login-link", "--email", "a@b.test"}, dbURL,
				codeNotFound, `user "a@b.test" not found`, "tenancy: user a@b.test: not found", "debug"},
			{"LoginLinkUnknownTenant", []string{"login-link", "--email", "ann@acme.test", "--tenant", "nope"}, dbURL,
				codeNotFound, `tenant "nope" not found`, `tenancy: tenant "nope": not found`, "debug"},
			{"LoginLinkNotMember", []string{"login-link", "--email", "bob@elsewhere.test", "--tenant", "acme"}, dbURL,
				codeFailed, "bob@elsewhere.test is not a member of acme", "portal: bob@elsewhere.test in acme: you are not a member", "debug"},
			{"MemberRemoveNotMember", []string{"member", "remove", "--tenant", "acme", "--user", "bob@elsewhere.test"}, dbURL,
				codeNotFound, "member bob@elsewhere.test of acme not found", "tenancy: remove bob@elsewhere.test from acme: not found", "debug"},
			{"RevokeUnknownKey", []string{"apikey", "revoke", "key_nope"}, dbURL,
				codeNotFound, `API key "key_nope" not found`, "tenancy: revoke key key_nope: not found", "debug"},
			{"TenantTaken", []string{"tenant", "create", "--slug", "acme", "--name", "A", "--plan", "free"}, dbURL,
				codeConflict, `tenant "acme" already exists`, `tenancy: create tenant "acme": already exists`, "debug"},
			{"LimitSetUnknownTenant", []string{"limit", "set", "--tenant", "nope", "--feature", "seats", "--limit", "3"}, dbURL,
				codeNotFound, `tenant "nope" not found`, `tenancy:`, "debug"},
			{"DatabaseUnreachable", []string{"tenant", "list"}, unreachable,
				codeFailed, "cannot connect to the database; the log line above says why", "database: connect to", "error"},
			{"DatabaseUnreachableLoginLink", []string{"login-link", "--email", "ann@acme.test"}, unreachable,
				codeFailed, "cannot connect to the database; the log line above says why", "database: connect to", "error"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				args := append(tt.args[:len(tt.args):len(tt.args)], "--database-url", tt.database)

				// For people: the sentence after "server: ", and a log
				// line only when the command failed.
				code, stdout, stderr := cliRun(t, args...)
				logs, said := splitStderr(stderr)
				if code != 1 || stdout != "" {
					t.Fatalf("server %s: exit %d, stdout %q; want exit 1 and no output", strings.Join(args, " "), code, stdout)
				}
				if got, want := strings.Join(said, "\n"), "server: "+tt.want; got != want {
					t.Errorf("said %q, want %q", got, want)
				}
				if wantLogs := tt.logLevel == "error"; (len(logs) > 0) != wantLogs {
					t.Errorf("log lines %v at the default level, want some: %v", logs, wantLogs)
				}

				// --log-level debug shows the chain, in the log line only.
				code, _, stderr = cliRun(t, append(args, "--json", "--log-level", "debug")...)
				logs, said = splitStderr(stderr)
				var got struct {
					Error struct{ Code, Message string } `json:"error"`
				}
				if len(said) != 1 || json.Unmarshal([]byte(said[0]), &got) != nil {
					t.Fatalf("--json: stderr %q: want log lines and one {\"error\":…}", stderr)
				}
				if code != 1 || got.Error.Code != tt.code || got.Error.Message != tt.want {
					t.Errorf("--json: exit %d, error %+v; want exit 1, code %q, message %q", code, got.Error, tt.code, tt.want)
				}
				for _, w := range chainWords {
					if strings.Contains(got.Error.Message, w) {
						t.Errorf("message %q shows the chain (%q)", got.Error.Message, w)
					}
				}
				var logged map[string]any
				for _, l := range logs {
					if l["code"] == tt.code {
						logged = l
					}
				}
				if logged == nil || logged["level"] != tt.logLevel || !strings.Contains(logged["error"].(string), tt.chain) {
					t.Errorf("log lines %v: want one at level %s with an error containing %q", logs, tt.logLevel, tt.chain)
				}
			})
		}
	})
}

// TestCLISettingErrors: a bad setting is named with what it wants, in one
// sentence; the error behind it, if any, goes to the log.
func TestCLISettingErrors(t *testing.T) {
	dbURL := "sqlite:" + filepath.Join(t.TempDir(), "settings.db")
	missing := filepath.Join(t.TempDir(), "none.json")
	tests := []struct {
		name string
		env  string // NAME=value of a TENANTKIT_ setting
		args []string
		exit int
		want string
	}{
		{"EnvNotANumber", "TENANTKIT_RATE_LIMIT=lots", []string{"serve", "--addr", "127.0.0.1:0"}, 1,
			`TENANTKIT_RATE_LIMIT "lots": want a number of requests per second`},
		{"EnvNotADuration", "TENANTKIT_SCHEDULER_INTERVAL=often", []string{"serve", "--addr", "127.0.0.1:0"}, 1,
			`TENANTKIT_SCHEDULER_INTERVAL "often": want a duration such as 1m`},
		{"LogLevel", "", []string{"tenant", "list", "--log-level", "loud"}, 1,
			`log level "loud": want debug, info, warn or error`},
		{"Catalog", "", []string{"tenant", "list", "--catalog", missing}, 1,
			"cannot load the catalog " + missing},
		{"PublicURL", "", []string{"serve", "--addr", "127.0.0.1:0", "--public-url", "tk.example.test"}, 2,
			`--public-url "tk.example.test": want http(s)://host[:port]`},
		{"SMTPWithoutFrom", "TENANTKIT_SMTP_URL=smtp://127.0.0.1:2525", []string{"serve", "--addr", "127.0.0.1:0"}, 1,
			"--smtp-url needs --mail-from (TENANTKIT_MAIL_FROM), the address the emails come from"},
		{"SMTPScheme", "", []string{"serve", "--addr", "127.0.0.1:0", "--mail-from", "b@x.test", "--smtp-url", "http://mail.test:25"}, 1,
			`--smtp-url (TENANTKIT_SMTP_URL): the SMTP URL's scheme is "http", not smtp or smtps`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if name, value, ok := strings.Cut(tt.env, "="); ok {
				t.Setenv(name, value)
			}
			code, _, stderr := cliRun(t, append(tt.args, "--database-url", dbURL)...)
			_, said := splitStderr(stderr)
			if code != tt.exit || said[0] != "server: "+tt.want {
				t.Fatalf("server %s: exit %d, said %q; want exit %d and %q", strings.Join(tt.args, " "), code, said, tt.exit, "server: "+tt.want)
			}
		})
	}
}
