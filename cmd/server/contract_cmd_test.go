package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// mustSubmitContract submits a request for the tenant as its owner, as the
// API would, through the app the CLI opens.
func mustSubmitContract(t *testing.T, dbURL, tenantID, userID string, in contract.SubmitInput) string {
	t.Helper()
	ctx := context.Background()
	a, err := openApp(ctx, config{DatabaseURL: dbURL, LogLevel: "warn", LogFormat: "json"}, io.Discard, false)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	req, err := a.contracts.Submit(ctx, tenantID, userID, in)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	return req.ID
}

func TestContractCommands(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		ten := mustCLIJSON(t, dbURL, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "starter")
		usr := mustCLIJSON(t, dbURL, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
		mustCLIJSON(t, dbURL, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
		tenantID, userID := ten["id"].(string), usr["id"].(string)
		plan := "growth"

		upgrade := mustSubmitContract(t, dbURL, tenantID, userID,
			contract.SubmitInput{Type: "change_plan", PlanID: &plan, Effective: "immediately"})
		got := mustCLIJSON(t, dbURL, "contract", "approve", upgrade, "--reason", "welcome")
		if got["id"] != upgrade || got["status"] != "applied" || got["tenant_id"] != tenantID || got["reason"] != "welcome" {
			t.Fatalf("contract approve --json = %v", got)
		}

		seats := 20
		later := mustSubmitContract(t, dbURL, tenantID, userID,
			contract.SubmitInput{Type: "change_seats", Seats: &seats, Effective: "next_period"})
		if out := string(mustCLI(t, dbURL, "contract", "approve", later)); !strings.Contains(out, "is approved, effective") {
			t.Fatalf("contract approve of a next_period request printed %q", out)
		}
		// The next period has not begun: nothing is due yet.
		if due := mustCLIJSON(t, dbURL, "contract", "apply-due"); len(due["decided"].([]any)) != 0 {
			t.Fatalf("contract apply-due --json = %v, want nothing decided", due)
		}

		module := "collections.dunning"
		addOn := mustSubmitContract(t, dbURL, tenantID, userID,
			contract.SubmitInput{Type: "add_module", ModuleID: &module, Effective: "immediately"})
		got = mustCLIJSON(t, dbURL, "contract", "reject", addOn, "--reason", "not now")
		if got["status"] != "rejected" || got["reason"] != "not now" || got["applied_at"] != nil {
			t.Fatalf("contract reject --json = %v", got)
		}

		t.Run("ServedByTheServer", func(t *testing.T) {
			key := mustCLIJSON(t, dbURL, "apikey", "create", "--email", "ann@acme.test", "--scopes", "collections:read")["key"].(string)
			s := mustServe(t, dbURL)
			for path, body := range map[string]string{"/api/invoices/preview": "", "/api/contract-requests": `{"type":"change_plan","plan_id":"enterprise","effective":"next_period"}`} {
				req, _ := http.NewRequest("POST", s.URL()+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var out map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					t.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
				}
			}
		})

		errs := []struct {
			name string
			args []string
			want string
		}{
			{"ApproveTwice", []string{"contract", "approve", upgrade}, "cannot approve"},
			{"RejectApplied", []string{"contract", "reject", upgrade}, "cannot reject"},
			{"UnknownID", []string{"contract", "approve", "ccr_01jd0000000000000000000000"}, "not found"},
			{"MissingID", []string{"contract", "reject"}, "missing REQUEST_ID"},
			{"UnknownSubcommand", []string{"contract", "renew", upgrade}, "unknown command"},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				err := run(context.Background(), append(tc.args, "--database-url", dbURL, "--log-level", "warn"), io.Discard, io.Discard)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("server %s: got %v, want an error mentioning %q", strings.Join(tc.args, " "), err, tc.want)
				}
			})
		}
	})
}
