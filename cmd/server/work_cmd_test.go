package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TestWorkCommands: the operator's queues across tenants from the CLI,
// with --json and JSON errors: contract requests listed, tickets listed,
// answered and changed, unmatched payment events listed, applied and
// dismissed.
func TestWorkCommands(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		ten := mustCLIJSON(t, dbURL, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "growth")
		usr := mustCLIJSON(t, dbURL, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
		mustCLIJSON(t, dbURL, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
		tenantID, userID := ten["id"].(string), usr["id"].(string)
		seats := 12
		req := mustSubmitContract(t, dbURL, tenantID, userID, contract.SubmitInput{Type: "change_seats", Seats: &seats, Effective: "immediately"})

		ctx := context.Background()
		a, err := openApp(ctx, config{DatabaseURL: dbURL, LogLevel: "warn", LogFormat: "json"}, io.Discard, false)
		if err != nil {
			t.Fatal(err)
		}
		tk, err := a.kit.Support.Create(ctx, tenantID, support.Requester{ID: userID, Email: "ann@acme.test", Name: "Ann"},
			support.CreateTicketInput{Subject: "Export fails", Description: "Steps…"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.kit.Webhooks.Handle(ctx, []byte(`{"id":"evt_cli_1","type":"payment.succeeded","data":{"payment_id":"pay_1","invoice_id":"inv_lost","amount":500,"currency":"USD"}}`))
		if err != nil || res.Outcome != "unmatched" {
			t.Fatalf("unmatched event: %+v, %v", res, err)
		}
		a.close()

		t.Run("ContractList", func(t *testing.T) {
			got := mustCLIJSON(t, dbURL, "contract", "list", "--status", "pending")
			if d := got["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != req || d[0].(map[string]any)["tenant_id"] != tenantID {
				t.Fatalf("contract list = %v", got)
			}
		})
		t.Run("Tickets", func(t *testing.T) {
			got := mustCLIJSON(t, dbURL, "ticket", "list", "--tenant", tenantID)
			if d := got["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != tk.ID {
				t.Fatalf("ticket list = %v", got)
			}
			c := mustCLIJSON(t, dbURL, "ticket", "reply", tk.ID, "--body", "On it", "--agent", "agent-7")
			if c["author"].(map[string]any)["id"] != "agent-7" {
				t.Fatalf("ticket reply = %v", c)
			}
			if got := mustCLIJSON(t, dbURL, "ticket", "get", tk.ID); got["first_responded_at"] == nil {
				t.Fatalf("ticket get after a reply = %v", got)
			}
			ch := mustCLIJSON(t, dbURL, "ticket", "change", tk.ID, "--status", "solved", "--priority", "high", "--assignee", "agent-7")
			if ch["status"] != "solved" || ch["priority"] != "high" || ch["assignee_id"] != "agent-7" {
				t.Fatalf("ticket change = %v", ch)
			}
			code, _, stderr := cliRun(t, "ticket", "change", tk.ID, "--status", "asleep", "--json", "--log-level", "warn", "--database-url", dbURL)
			if code != 1 || !strings.Contains(stderr, `"code":"invalid"`) {
				t.Fatalf("bad status: exit %d, %s", code, stderr)
			}
		})
		t.Run("PaymentEvents", func(t *testing.T) {
			got := mustCLIJSON(t, dbURL, "payment-event", "list")
			if d := got["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != "evt_cli_1" {
				t.Fatalf("payment-event list = %v", got)
			}
			code, _, stderr := cliRun(t, "payment-event", "apply", "evt_cli_1", "--invoice", "inv_nothing", "--json", "--log-level", "warn", "--database-url", dbURL)
			if code != 1 || !strings.Contains(stderr, `"invoice"`) {
				t.Fatalf("apply to an unknown invoice: exit %d, %s", code, stderr)
			}
			d := mustCLIJSON(t, dbURL, "payment-event", "dismiss", "evt_cli_1", "--reason", "a test payment")
			if d["outcome"] != "dismissed" {
				t.Fatalf("payment-event dismiss = %v", d)
			}
			code, _, stderr = cliRun(t, "payment-event", "dismiss", "evt_cli_1", "--reason", "again", "--json", "--log-level", "warn", "--database-url", dbURL)
			if code != 1 || !strings.Contains(stderr, `"code":"conflict"`) {
				t.Fatalf("second dismiss: exit %d, %s", code, stderr)
			}
		})
		t.Run("Help", func(t *testing.T) {
			for _, args := range [][]string{{"ticket", "-h"}, {"ticket", "reply", "-h"}, {"payment-event", "apply", "--help"}, {"contract", "list", "-h"}} {
				code, out, _ := cliRun(t, args...)
				if code != 0 || !strings.Contains(out, "Usage") {
					t.Fatalf("%v: exit %d, %s", args, code, out)
				}
			}
		})
	})
}
