package client_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi/client"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The tests here drive tenantkit's API through the generated client: the
// API as the reference server wires it (tenantkit.New, App.HTTPConfig,
// httpapi.New) on a real port, on SQLite and on Postgres.

// mustServe serves app's API on a real port until the test ends, with
// tenant acme whose owner alice holds an API key of every scope, and returns
// the server's URL and the key.
func mustServe(t *testing.T, app *tenantkit.App) (url, key string) {
	t.Helper()
	key = dbtest.OwnerKey(t, app, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth},
		tenancy.CreateUserInput{Email: "alice@acme.test", Name: "Alice"})
	return dbtest.Serve(t, app), key
}

// mustClient returns a client of the API at url that sends key, or no
// credential when key is "".
func mustClient(t *testing.T, url, key string) *client.ClientWithResponses {
	t.Helper()
	bearer := func(_ context.Context, req *http.Request) error {
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		return nil
	}
	c, err := client.NewClientWithResponses(url, client.WithRequestEditorFn(bearer))
	check(t, err)
	return c
}

// newInvoice is a one-line invoice of amount USD cents to Ada, created in
// status.
func newInvoice(status client.CreateInvoiceInputStatus, amount int64) client.CreateInvoiceInput {
	return client.CreateInvoiceInput{
		Customer:  &client.InvoiceCustomerInput{Name: "Ada Lovelace", Email: "ada@example.com"},
		Currency:  "USD",
		LineItems: []client.LineItemInput{{Description: "Analytical engine, monthly", Quantity: 1, UnitAmount: amount}},
		Status:    &status,
	}
}

// mustCreateInvoice creates in and returns the invoice the server answered.
func mustCreateInvoice(t *testing.T, c *client.ClientWithResponses, in client.CreateInvoiceInput) client.Invoice {
	t.Helper()
	res, err := c.CreateInvoiceWithResponse(t.Context(), nil, in)
	check(t, err)
	if res.JSON201 == nil {
		t.Fatalf("create invoice: %s %s", res.Status(), res.Body)
	}
	return *res.JSON201
}

// TestInvoiceLifecycle creates invoices, reads one back, pages through the
// list with a cursor, finalizes a draft and pays an invoice, all through
// the typed client.
func TestInvoiceLifecycle(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		url, key := mustServe(t, app)
		c, ctx := mustClient(t, url, key), t.Context()

		draft := mustCreateInvoice(t, c, newInvoice(client.CreateInvoiceInputStatusDraft, 1500))
		if draft.Status != client.InvoiceStatusDraft || draft.Number != nil || draft.Total != 1500 || draft.Customer.Email != "ada@example.com" {
			t.Fatalf("created draft: status %s, number %v, total %d, customer %v", draft.Status, draft.Number, draft.Total, draft.Customer)
		}
		first := mustCreateInvoice(t, c, newInvoice(client.CreateInvoiceInputStatusOpen, 2000))
		second := mustCreateInvoice(t, c, newInvoice(client.CreateInvoiceInputStatusOpen, 3000))
		if first.Status != client.InvoiceStatusOpen || first.Number == nil || first.AmountDue != 2000 {
			t.Fatalf("created open invoice: status %s, number %v, amount due %d", first.Status, first.Number, first.AmountDue)
		}

		got, err := c.GetInvoiceWithResponse(ctx, first.ID, nil)
		check(t, err)
		if got.JSON200 == nil || got.JSON200.ID != first.ID || got.JSON200.Total != first.Total || *got.JSON200.Number != *first.Number {
			t.Fatalf("get invoice %s: %s %s", first.ID, got.Status(), got.Body)
		}

		// Newest first, two a page: the second page ends the list.
		limit := 2
		page1, err := c.ListInvoicesWithResponse(ctx, &client.ListInvoicesParams{Limit: &limit})
		check(t, err)
		if page1.JSON200 == nil || !page1.JSON200.HasMore || page1.JSON200.NextCursor == nil {
			t.Fatalf("list invoices, first page: %s %s", page1.Status(), page1.Body)
		}
		page2, err := c.ListInvoicesWithResponse(ctx, &client.ListInvoicesParams{Limit: &limit, Cursor: page1.JSON200.NextCursor})
		check(t, err)
		if page2.JSON200 == nil || page2.JSON200.HasMore || page2.JSON200.NextCursor != nil {
			t.Fatalf("list invoices, second page: %s %s", page2.Status(), page2.Body)
		}
		var ids []client.InvoiceID
		for _, inv := range append(page1.JSON200.Data, page2.JSON200.Data...) {
			ids = append(ids, inv.ID)
		}
		if want := []client.InvoiceID{second.ID, first.ID, draft.ID}; !slices.Equal(ids, want) {
			t.Fatalf("listed %v, want %v", ids, want)
		}

		fin, err := c.FinalizeInvoiceWithResponse(ctx, draft.ID, nil, client.FinalizeInvoiceJSONRequestBody{})
		check(t, err)
		if fin.JSON200 == nil || fin.JSON200.Status != client.InvoiceStatusOpen || fin.JSON200.Number == nil || fin.JSON200.FinalizedAt == nil {
			t.Fatalf("finalize %s: %s %s", draft.ID, fin.Status(), fin.Body)
		}

		reference := "transfer 42"
		pay, err := c.RecordInvoicePaymentWithResponse(ctx, first.ID, nil,
			client.RecordPaymentInput{Amount: first.AmountDue, Method: client.PaymentMethodBankTransfer, Reference: &reference})
		check(t, err)
		if p := pay.JSON201; p == nil || p.InvoiceID != first.ID || p.Amount != 2000 || p.Currency != "USD" ||
			p.Kind != client.PaymentKindPayment || p.Source != client.PaymentSourceManual || p.Reference != reference {
			t.Fatalf("record payment on %s: %s %s", first.ID, pay.Status(), pay.Body)
		}
		paid, err := c.GetInvoiceWithResponse(ctx, first.ID, nil)
		check(t, err)
		if inv := paid.JSON200; inv == nil || inv.Status != client.InvoiceStatusPaid || inv.AmountPaid != 2000 || inv.AmountDue != 0 || inv.PaidAt == nil {
			t.Fatalf("invoice after payment: %s %s", paid.Status(), paid.Body)
		}
	})
}

// TestProblems reads error responses of several statuses as the one
// Problem type.
func TestProblems(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		url, key := mustServe(t, app)
		c := mustClient(t, url, key)

		t.Run("NotFound", func(t *testing.T) {
			const id = "inv_01jd3k5q8r9s0t1v2w3x4y5z6a" // well formed, no such invoice
			res, err := c.GetInvoiceWithResponse(t.Context(), id, nil)
			check(t, err)
			p := mustProblem(t, res.Problem, res.Body, http.StatusNotFound, client.ProblemCodeNotFound)
			if p.Errors != nil {
				t.Errorf("errors = %v, want none", *p.Errors)
			}
			if res.JSON200 != nil {
				t.Errorf("JSON200 = %v beside the problem", res.JSON200)
			}
		})

		t.Run("ValidationFailed", func(t *testing.T) {
			in := newInvoice(client.CreateInvoiceInputStatusOpen, 1000)
			in.LineItems[0].Quantity = 0
			res, err := c.CreateInvoiceWithResponse(t.Context(), nil, in)
			check(t, err)
			p := mustProblem(t, res.Problem, res.Body, http.StatusUnprocessableEntity, client.ProblemCodeValidationFailed)
			if p.Errors == nil || len(*p.Errors) != 1 {
				t.Fatalf("errors = %v, want one", p.Errors)
			}
			if fe := (*p.Errors)[0]; fe.Field != "line_items[0].quantity" || fe.Code != "out_of_range" || fe.Message == "" {
				t.Errorf("field error = %+v, want line_items[0].quantity out_of_range with a message", fe)
			}
			if p.Error() != *p.Detail {
				t.Errorf("Error() = %q, want the detail %q", p.Error(), *p.Detail)
			}
		})

		t.Run("Unauthenticated", func(t *testing.T) {
			res, err := mustClient(t, url, "").GetMeWithResponse(t.Context(), nil)
			check(t, err)
			mustProblem(t, res.Problem, res.Body, http.StatusUnauthorized, client.ProblemCodeUnauthenticated)
			if res.HTTPResponse.Header.Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		})
	})
}

// mustProblem checks that a response was a problem of status and code, a
// whole one (type, title, request id), and returns it.
func mustProblem(t *testing.T, p *client.Problem, body []byte, status int, code client.ProblemCode) *client.Problem {
	t.Helper()
	if p == nil {
		t.Fatalf("no problem decoded; body %s", body)
	}
	if p.Status != status || p.Code != code {
		t.Fatalf("problem %d %s, want %d %s; body %s", p.Status, p.Code, status, code, body)
	}
	if !p.Code.Valid() || p.Type != "https://tenantkit.dev/problems/"+string(code) || p.Title != http.StatusText(status) ||
		p.RequestID == "" || p.Detail == nil || *p.Detail == "" {
		t.Errorf("incomplete problem: %s", body)
	}
	return p
}

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
