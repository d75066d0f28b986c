package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// TestPlatformInvoiceCommands: a test tenant's clock, moved past the end
// of the month, generates the platform's invoice for it; the operator
// lists it, marks it paid, and cannot void it then. A real tenant's clock
// does not move.
func TestPlatformInvoiceCommands(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		mustCLIJSON(t, dbURL, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "growth")
		ten := mustCLIJSON(t, dbURL, "tenant", "create", "--slug", "acme-test", "--name", "Acme (test)", "--plan", "growth", "--test")
		if ten["test"] != true || ten["test_clock"] == nil {
			t.Fatalf("tenant create --test --json = %v; want test true and its clock", ten)
		}
		tenantID := ten["id"].(string)
		if out := string(mustCLI(t, dbURL, "tenant", "create", "--slug", "globex-test", "--name", "Globex", "--plan", "starter", "--test")); !strings.Contains(out, "created test tenant") || !strings.Contains(out, "server clock advance --tenant globex-test") {
			t.Errorf("tenant create --test printed %q; want it to say a test tenant and how to move its clock", out)
		}

		period, _, end := tenancy.Period(time.Now())
		to := end.Add(time.Hour).Format(time.RFC3339)
		clock := mustCLIJSON(t, dbURL, "clock", "advance", "--tenant", "acme-test", "--to", to)
		if clock["tenant_id"] != tenantID || clock["test_clock"] != to || clock["invoices"] != float64(1) || clock["open_invoices"] != float64(1) {
			t.Fatalf("clock advance --json = %v; want the clock at %s and one open invoice", clock, to)
		}
		if out := string(mustCLI(t, dbURL, "clock", "advance", "--tenant", tenantID, "--to", end.Add(2*time.Hour).Format(time.RFC3339))); !strings.Contains(out, "is now "+end.Add(2*time.Hour).Format(time.RFC3339)) || !strings.Contains(out, "1 platform invoices") {
			t.Errorf("clock advance by tenant id printed %q", out)
		}

		list := mustCLIJSON(t, dbURL, "invoice", "list", "--tenant", "acme-test", "--period", period)
		data := list["data"].([]any)
		if len(data) != 1 || list["has_more"] != false {
			t.Fatalf("invoice list --json = %v; want the one invoice", list)
		}
		inv := data[0].(map[string]any)
		id := inv["id"].(string)
		if !strings.HasPrefix(id, "pin_") || inv["status"] != "open" || inv["tenant_id"] != tenantID || inv["amount_due"] != inv["total"] {
			t.Fatalf("invoice = %v; want an open pin_ invoice of acme-test, all due", inv)
		}
		for _, tc := range []struct {
			args []string
			n    int
		}{
			{[]string{"--status", "paid"}, 0},
			{[]string{"--status", "open"}, 1},
			{[]string{"--tenant", "acme"}, 0},
			{[]string{"--limit", "1"}, 1},
		} {
			got := mustCLIJSON(t, dbURL, append([]string{"invoice", "list"}, tc.args...)...)
			if n := len(got["data"].([]any)); n != tc.n {
				t.Errorf("invoice list %s: %d invoices, want %d", strings.Join(tc.args, " "), n, tc.n)
			}
		}
		if out := string(mustCLI(t, dbURL, "invoice", "list")); !strings.Contains(out, id) || !strings.Contains(out, "open") {
			t.Errorf("invoice list printed %q; want the invoice", out)
		}
		if out := string(mustCLI(t, dbURL, "invoice", "show", id)); !strings.HasPrefix(out, id) || !strings.Contains(out, "total") {
			t.Errorf("invoice show printed %q; want the invoice and its total", out)
		}

		paid := mustCLIJSON(t, dbURL, "invoice", "mark-paid", id, "--reference", "wire 2026-12-03")
		if paid["status"] != "paid" || paid["reference"] != "wire 2026-12-03" || paid["amount_due"] != float64(0) || paid["paid_at"] == nil {
			t.Fatalf("invoice mark-paid --json = %v", paid)
		}
		if shown := mustCLIJSON(t, dbURL, "invoice", "show", id); shown["status"] != "paid" {
			t.Errorf("invoice show after mark-paid = %v", shown)
		}
		if got := mustCLIJSON(t, dbURL, "billing", "run"); got["done"] != float64(0) {
			t.Errorf("billing run --json = %v; want nothing to do (the real tenant's month has not ended)", got)
		}

		errs := []struct {
			name string
			args []string
			want string
		}{
			{"VoidPaid", []string{"invoice", "void", id}, "platform invoice is paid, cannot void (it was paid"},
			{"MarkPaidTwice", []string{"invoice", "mark-paid", id, "--reference", "again"}, "is paid, cannot mark paid"},
			{"AdvanceRealTenant", []string{"clock", "advance", "--tenant", "acme", "--to", to}, "only a test tenant's clock moves"},
			{"AdvanceBackwards", []string{"clock", "advance", "--tenant", "acme-test", "--to", end.Format(time.RFC3339)}, "to: must be after the clock's time"},
			{"ShowUnknown", []string{"invoice", "show", "pin_01jd0000000000000000000000"}, "platform invoice not found"},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				err := run(context.Background(), append(tc.args, "--database-url", dbURL, "--log-level", "warn"), io.Discard, io.Discard)
				if err == nil || !strings.Contains(classify(err).Message, tc.want) {
					t.Fatalf("server %s: got %v, want an error mentioning %q", strings.Join(tc.args, " "), err, tc.want)
				}
			})
		}
	})
}
