package main

import (
	"context"
	"testing"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/database"
)

// TestCLIRecordsEvents runs every admin command that changes something and
// checks that each recorded exactly one event of its type about its
// resource, of the right tenant ("" for the platform's own), by the CLI.
func TestCLIRecordsEvents(t *testing.T) {
	databases(t, func(t *testing.T, url string) {
		ctx := context.Background()
		mustCLI(t, url, "migrate")
		db, err := database.Open(ctx, url, database.Options{})
		mustNil(t, err)
		t.Cleanup(func() { _ = db.Close() })
		app, err := tenantkit.New(db, catalog.Default())
		mustNil(t, err)
		events := func(typ, resource string) []event.Event {
			es, _, err := app.Events.ListAll(ctx, event.Filter{Type: typ, ResourceID: resource, Limit: 100})
			mustNil(t, err)
			return es
		}

		var tenantID, userID, keyID, opKeyID string
		tests := []struct {
			typ string
			// run runs the command and returns the tenant and resource of
			// its event.
			run func(t *testing.T) (tenant, resource string)
		}{
			{event.TenantCreated, func(t *testing.T) (string, string) {
				tenantID = mustCLIJSON(t, url, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "starter")["id"].(string)
				return tenantID, tenantID
			}},
			{event.TenantPlanChanged, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "tenant", "change", "--tenant", "acme", "--plan", "growth")
				return tenantID, tenantID
			}},
			{event.UserCreated, func(t *testing.T) (string, string) {
				userID = mustCLIJSON(t, url, "user", "create", "--email", "ann@acme.test", "--name", "Ann")["id"].(string)
				return "", userID
			}},
			{event.MemberAdded, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "member")
				return tenantID, userID
			}},
			{event.MemberRoleChanged, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "member", "role", "--tenant", "acme", "--user", "ann@acme.test", "--role", "owner")
				return tenantID, userID
			}},
			{event.APIKeyCreated, func(t *testing.T) (string, string) {
				keyID = mustCLIJSON(t, url, "apikey", "create", "--email", "ann@acme.test", "--scopes", "tickets:read", "--tenant", "acme")["id"].(string)
				return tenantID, keyID
			}},
			{event.APIKeyRevoked, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "apikey", "revoke", keyID)
				return "", keyID
			}},
			{event.EntitlementLimitSet, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "limit", "set", "--tenant", "acme", "--feature", catalog.FeatureTickets, "--limit", "9")
				return tenantID, catalog.FeatureTickets
			}},
			{event.EntitlementLimitCleared, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "limit", "clear", "--tenant", "acme", "--feature", catalog.FeatureTickets)
				return tenantID, catalog.FeatureTickets
			}},
			{event.LoginLinkCreated, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "login-link", "--email", "ann@acme.test", "--tenant", "acme")
				return tenantID, userID
			}},
			{event.OperatorKeyCreated, func(t *testing.T) (string, string) {
				opKeyID = mustCLIJSON(t, url, "operator-key", "create", "--name", "ops", "--scopes", "operator:read")["id"].(string)
				return "", opKeyID
			}},
			{event.OperatorKeyRevoked, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "operator-key", "revoke", opKeyID)
				return "", opKeyID
			}},
			{event.MemberRemoved, func(t *testing.T) (string, string) {
				mustCLIJSON(t, url, "user", "create", "--email", "bo@acme.test", "--name", "Bo")
				mustCLIJSON(t, url, "member", "add", "--tenant", "acme", "--email", "bo@acme.test", "--role", "owner")
				mustCLIJSON(t, url, "member", "remove", "--tenant", "acme", "--user", "ann@acme.test")
				return tenantID, userID
			}},
		}
		for _, tt := range tests {
			t.Run(tt.typ, func(t *testing.T) {
				seen := map[string]bool{}
				for _, e := range events(tt.typ, "") {
					seen[e.ID] = true
				}
				tenant, resource := tt.run(t)
				var fresh []event.Event
				for _, e := range events(tt.typ, resource) {
					if !seen[e.ID] {
						fresh = append(fresh, e)
					}
				}
				if len(fresh) != 1 {
					t.Fatalf("%d new %s events about %s, want 1", len(fresh), tt.typ, resource)
				}
				if e := fresh[0]; e.TenantID != tenant || e.Actor.Type != event.ActorCLI || e.Actor.AuthMethod != "cli" {
					t.Errorf("event %+v: want tenant %q, by the CLI", e, tenant)
				}
			})
		}
	})
}

// mustNil fails the test on err.
func mustNil(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
