package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi/client"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// mustServe serves app's API on a real port until the test ends, with
// tenant acme whose owner ada holds an API key of every scope, and returns
// the server's URL and the key.
func mustServe(t *testing.T, app *tenantkit.App) (url, key string) {
	t.Helper()
	key = dbtest.OwnerKey(t, app, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth},
		tenancy.CreateUserInput{Email: "ada@acme.test", Name: "Ada"})
	return dbtest.Serve(t, app), key
}

// mustInvoice creates an invoice of acme over the API: one line of amount,
// in currency, to customer, created in status.
func mustInvoice(t *testing.T, url, key, customer string, currency client.Currency, amount int64, status client.CreateInvoiceInputStatus) {
	t.Helper()
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
	c, err := client.NewClientWithResponses(url, client.WithRequestEditorFn(bearer))
	check(t, err)
	res, err := c.CreateInvoiceWithResponse(t.Context(), nil, client.CreateInvoiceInput{
		Customer:  &client.InvoiceCustomerInput{Name: customer, Email: strings.ToLower(customer) + "@example.com"},
		Currency:  currency,
		LineItems: []client.LineItemInput{{Description: "Consulting", Quantity: 1, UnitAmount: amount}},
		Status:    &status,
	})
	check(t, err)
	if res.JSON201 == nil {
		t.Fatalf("create invoice: %s %s", res.Status(), res.Body)
	}
}

// TestCommand runs the command against a server as its doc comment says:
// with flags, with the environment, and with a key the server refuses.
func TestCommand(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		url, key := mustServe(t, app)
		mustInvoice(t, url, key, "Grace", "USD", 1200, client.CreateInvoiceInputStatusOpen)
		mustInvoice(t, url, key, "Linus", "EUR", 800, client.CreateInvoiceInputStatusOpen)
		mustInvoice(t, url, key, "Barbara", "USD", 300, client.CreateInvoiceInputStatusOpen)
		mustInvoice(t, url, key, "Edsger", "USD", 5000, client.CreateInvoiceInputStatusDraft) // not open: not listed
		want := "ada@acme.test on tenant acme (owner)\n" +
			"INV-000003  Barbara <barbara@example.com>  300 USD due\n" +
			"INV-000002  Linus <linus@example.com>  800 EUR due\n" +
			"INV-000001  Grace <grace@example.com>  1200 USD due\n" +
			"3 open invoices, 800 EUR due, 1500 USD due\n"

		t.Run("Flags", func(t *testing.T) {
			var out strings.Builder
			// Pages of one: the command follows the cursor to the end.
			if err := run(t.Context(), []string{"-url", url, "-key", key, "-limit", "1"}, noEnv, &out); err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			if got := out.String(); got != want {
				t.Fatalf("printed:\n%s\nwant:\n%s", got, want)
			}
		})

		t.Run("Environment", func(t *testing.T) {
			env := map[string]string{"TENANTKIT_URL": url, "TENANTKIT_API_KEY": key}
			var out strings.Builder
			if err := run(t.Context(), nil, func(name string) string { return env[name] }, &out); err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			if got := out.String(); got != want {
				t.Fatalf("printed:\n%s\nwant:\n%s", got, want)
			}
		})

		t.Run("RefusedKey", func(t *testing.T) {
			var out strings.Builder
			err := run(t.Context(), []string{"-url", url, "-key", "tk_" + strings.Repeat("A", 43)}, noEnv, &out)
			var p *client.Problem
			if !errors.As(err, &p) || p.Status != http.StatusUnauthorized || p.Code != client.ProblemCodeUnauthenticated {
				t.Fatalf("run with a refused key: %v, want the 401 unauthenticated problem", err)
			}
			if err.Error() != *p.Detail || out.Len() != 0 {
				t.Fatalf("error %q (detail %q), printed %q", err, *p.Detail, out.String())
			}
		})

		t.Run("NoServer", func(t *testing.T) {
			if err := run(t.Context(), []string{"-key", key}, noEnv, new(strings.Builder)); err == nil || !strings.Contains(err.Error(), "TENANTKIT_URL") {
				t.Fatalf("run without a URL: %v", err)
			}
		})
	})
}

// noEnv is an empty environment.
func noEnv(string) string { return "" }

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
