package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestCLIManage runs the list and manage commands with --json, and the
// operator key they create against the real server: it opens the operator
// API and nothing else.
func TestCLIManage(t *testing.T) {
	databases(t, func(t *testing.T, url string) {
		tenant := mustCLIJSON(t, url, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "free")
		mustCLIJSON(t, url, "tenant", "create", "--slug", "globex", "--name", "Globex", "--plan", "starter")
		for _, email := range []string{"ann@acme.test", "bob@acme.test", "cat@acme.test"} {
			mustCLIJSON(t, url, "user", "create", "--email", email, "--name", "Someone")
		}
		mustCLIJSON(t, url, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
		mustCLIJSON(t, url, "member", "add", "--tenant", "acme", "--email", "bob@acme.test", "--role", "member")
		tenantKey := mustCLIJSON(t, url, "apikey", "create", "--email", "ann@acme.test", "--scopes", "tickets:read", "--tenant", "acme")

		t.Run("SeatsFull", func(t *testing.T) {
			code, _, stderr := cliRun(t, "member", "add", "--tenant", "acme", "--email", "cat@acme.test", "--json", "--log-level", "warn", "--database-url", url)
			if code != 1 || !strings.Contains(stderr, `"code":"conflict"`) || !strings.Contains(stderr, "2 seats") {
				t.Fatalf("third member of a free tenant: exit %d, %s", code, stderr)
			}
		})
		t.Run("Lists", func(t *testing.T) {
			tests := []struct {
				args []string
				key  string
				want []string
				more bool
			}{
				{[]string{"tenant", "list"}, "slug", []string{"globex", "acme"}, false},
				{[]string{"tenant", "list", "--query", "ACM"}, "slug", []string{"acme"}, false},
				{[]string{"tenant", "list", "--limit", "1"}, "slug", []string{"globex"}, true},
				{[]string{"user", "list", "--query", "acme.test", "--limit", "2"}, "email", []string{"cat@acme.test", "bob@acme.test"}, true},
				{[]string{"member", "list", "--tenant", "acme"}, "email", []string{"bob@acme.test", "ann@acme.test"}, false},
				{[]string{"apikey", "list", "--tenant", "acme"}, "id", []string{tenantKey["id"].(string)}, false},
				{[]string{"apikey", "list", "--tenant", "globex"}, "id", nil, false},
			}
			for _, tt := range tests {
				t.Run(strings.Join(tt.args, "_"), func(t *testing.T) {
					got := mustCLIJSON(t, url, tt.args...)
					var values []string
					for _, item := range got["data"].([]any) {
						values = append(values, item.(map[string]any)[tt.key].(string))
						if _, ok := item.(map[string]any)["key"]; ok {
							t.Fatalf("a listed key shows its secret: %v", item)
						}
					}
					if !slices.Equal(values, tt.want) || got["has_more"] != tt.more || (got["next_cursor"] != nil) != tt.more {
						t.Fatalf("got %v (has_more %v, next_cursor %v), want %v (more %v)", values, got["has_more"], got["next_cursor"], tt.want, tt.more)
					}
				})
			}
			t.Run("Cursor", func(t *testing.T) {
				first := mustCLIJSON(t, url, "tenant", "list", "--limit", "1")
				rest := mustCLIJSON(t, url, "tenant", "list", "--limit", "1", "--cursor", first["next_cursor"].(string))
				if d := rest["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != tenant["id"] {
					t.Fatalf("second page: %v", rest)
				}
			})
			t.Run("Human", func(t *testing.T) {
				out := string(mustCLI(t, url, "tenant", "list", "--limit", "1"))
				if !strings.Contains(out, "globex") || !strings.Contains(out, "--cursor ten_") {
					t.Fatalf("human list:\n%s", out)
				}
			})
		})
		t.Run("Members", func(t *testing.T) {
			m := mustCLIJSON(t, url, "member", "role", "--tenant", "acme", "--user", "bob@acme.test", "--role", "owner")
			if m["role"] != "owner" || m["email"] != "bob@acme.test" {
				t.Fatalf("member role: %v", m)
			}
			mustCLIJSON(t, url, "member", "remove", "--tenant", "acme", "--user", "ann@acme.test")
			mustCLIJSON(t, url, "member", "add", "--tenant", "acme", "--email", "cat@acme.test", "--role", "member")
		})
		t.Run("LimitsAndPlan", func(t *testing.T) {
			mustCLIJSON(t, url, "limit", "set", "--tenant", "acme", "--feature", "seats", "--limit", "9")
			if got := mustCLIJSON(t, url, "limit", "clear", "--tenant", "acme", "--feature", "seats"); got["cleared"] != true {
				t.Fatalf("limit clear: %v", got)
			}
			got := mustCLIJSON(t, url, "tenant", "change", "--tenant", "acme", "--plan", "growth")
			if got["plan_id"] != "growth" || got["seats"] != float64(10) {
				t.Fatalf("tenant change: %v, want growth with its 10 seats", got)
			}
		})

		created := mustCLIJSON(t, url, "operator-key", "create", "--name", "ops", "--scopes", "operator:read,operator:write")
		keys := make([]string, 0, len(created))
		for k := range created {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		secret := created["key"].(string)
		if strings.Join(keys, ",") != "id,key,scopes" || !strings.HasPrefix(secret, "tko_") ||
			strings.Join(anyStrings(created["scopes"]), ",") != "operator:read,operator:write" {
			t.Fatalf("operator-key create --json: %v, want exactly id, key and scopes", created)
		}
		t.Run("OperatorKeyList", func(t *testing.T) {
			out := mustCLI(t, url, "operator-key", "list", "--json")
			if strings.Contains(string(out), secret) {
				t.Fatalf("operator-key list shows the secret: %s", out)
			}
			var got struct {
				Data []struct {
					ID, Name string
				} `json:"data"`
			}
			if err := json.Unmarshal(out, &got); err != nil || len(got.Data) != 1 || got.Data[0].ID != created["id"] || got.Data[0].Name != "ops" {
				t.Fatalf("operator-key list: %s (%v)", out, err)
			}
		})
		t.Run("Server", func(t *testing.T) {
			s := mustServe(t, url)
			if status, body := get(t, s.URL()+"/api/operator/tenants?q=acme", secret); status != http.StatusOK || len(body["data"].([]any)) != 1 {
				t.Fatalf("operator API with the CLI's key: %d %v", status, body)
			}
			if status, body := get(t, s.URL()+"/api/operator/tenants", tenantKey["key"].(string)); status != http.StatusForbidden || body["code"] != "insufficient_scope" {
				t.Fatalf("operator API with a tenant key: %d %v", status, body)
			}
			if status, body := get(t, s.URL()+"/api/auth/me", secret); status != http.StatusUnauthorized {
				t.Fatalf("tenant API with the operator key: %d %v", status, body)
			}
			revoked := mustCLIJSON(t, url, "operator-key", "revoke", created["id"].(string))
			if revoked["revoked"] != true || revoked["revoked_at"] == nil {
				t.Fatalf("operator-key revoke: %v", revoked)
			}
			if status, _ := get(t, s.URL()+"/api/operator/tenants", secret); status != http.StatusUnauthorized {
				t.Fatalf("revoked operator key: %d, want 401", status)
			}
		})
	})
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
