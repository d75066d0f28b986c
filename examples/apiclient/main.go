// Command apiclient talks to a running tenantkit server through the typed
// Go client (httpapi/client): it says whose API key it holds and on which
// tenant, then lists the tenant's open invoices page by page, following
// each page's cursor, with what is due on them (in the currency's minor
// unit). It starts nothing itself; give it the server and a key, by flags
// or from the environment:
//
//	go run ./examples/fullapi &    # prints its URL and an API key
//	go run ./examples/apiclient -url http://127.0.0.1:8083 -key tk_…
//	TENANTKIT_URL=http://127.0.0.1:8083 TENANTKIT_API_KEY=tk_… go run ./examples/apiclient
//
// An error the server answers is printed as its problem's detail.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/tenantkit/tenantkit/httpapi/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "apiclient:", err)
		os.Exit(1)
	}
}

// run does what the command line says, reading defaults with getenv and
// printing to out.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("apiclient", flag.ContinueOnError)
	url := fs.String("url", getenv("TENANTKIT_URL"), "the tenantkit server's base URL (default $TENANTKIT_URL)")
	key := fs.String("key", getenv("TENANTKIT_API_KEY"), "an API key, tk_… (default $TENANTKIT_API_KEY)")
	limit := fs.Int("limit", 20, "invoices per page, 1–100")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" || *key == "" {
		return errors.New("give the server's URL and an API key: -url and -key, or TENANTKIT_URL and TENANTKIT_API_KEY")
	}
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+*key)
		return nil
	}
	c, err := client.NewClientWithResponses(*url, client.WithRequestEditorFn(bearer))
	if err != nil {
		return err
	}

	me, err := c.GetMeWithResponse(ctx, nil)
	switch {
	case err != nil:
		return err
	case me.Problem != nil:
		return me.Problem
	case me.JSON200 == nil:
		return fmt.Errorf("GET /api/auth/me: unexpected %s", me.Status())
	}
	fmt.Fprintf(out, "%s on %s\n", me.JSON200.Email, tenantName(*me.JSON200))

	// Open invoices, newest first, a page at a time: each page's
	// next_cursor asks for the one after it.
	open := client.InvoiceStatusOpen
	params := &client.ListInvoicesParams{Status: &open, Limit: limit}
	count, due := 0, map[client.Currency]int64{}
	for {
		page, err := c.ListInvoicesWithResponse(ctx, params)
		switch {
		case err != nil:
			return err
		case page.Problem != nil:
			return page.Problem
		case page.JSON200 == nil:
			return fmt.Errorf("GET /api/v1/collections/invoices: unexpected %s", page.Status())
		}
		for _, inv := range page.JSON200.Data {
			fmt.Fprintf(out, "%s  %s <%s>  %d %s due\n", *inv.Number, inv.Customer.Name, inv.Customer.Email, inv.AmountDue, inv.Currency)
			count++
			due[inv.Currency] += inv.AmountDue
		}
		if !page.JSON200.HasMore {
			break
		}
		params.Cursor = page.JSON200.NextCursor
	}
	fmt.Fprintf(out, "%d open invoices", count)
	currencies := make([]client.Currency, 0, len(due))
	for cur := range due {
		currencies = append(currencies, cur)
	}
	slices.Sort(currencies)
	for _, cur := range currencies {
		fmt.Fprintf(out, ", %d %s due", due[cur], cur)
	}
	fmt.Fprintln(out)
	return nil
}

// tenantName names the tenant the caller acts on, by its slug.
func tenantName(me client.Me) string {
	for _, t := range me.Tenants {
		if me.ActiveTenantID != nil && t.ID == *me.ActiveTenantID {
			return "tenant " + t.Slug + " (" + string(t.Role) + ")"
		}
	}
	return "no tenant chosen"
}
