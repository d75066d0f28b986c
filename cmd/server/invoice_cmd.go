package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// runPlatform runs the commands of the platform's own billing of its
// tenants, on the contract service the operator API calls:
//
//	server invoice list [--tenant T] [--status S] [--period YYYY-MM]  the platform's invoices (pin_…), newest first
//	server invoice show|void pin_…                                  one invoice; void an open one
//	server invoice mark-paid pin_… --reference R                    record a payment outside the provider
//	server clock advance --tenant T --to TIME                       move a test tenant's clock, running what falls due
//	server billing run [--at TIME]                                  the billing run the scheduler makes (JobBilling)
//
// "invoice" is the platform's invoices to its tenants; the tenants'
// invoices to their own customers live under /api/v1/collections.
func runPlatform(ctx context.Context, group string, args []string, stdout, stderr io.Writer) error {
	sub, args, err := subcommand(group, args, stdout)
	if err != nil {
		return err
	}
	name := group + " " + sub
	var (
		cfg                                 config
		tenant, status, period, cursor, ref string
		to, at                              string
		limit                               int
	)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	commonFlags(fs, &cfg)
	wantArgs := 1
	switch name {
	case "invoice list":
		fs.StringVar(&tenant, "tenant", "", "only this tenant's (tenant id or slug)")
		fs.StringVar(&status, "status", "", "open, paid, void or uncollectible")
		fs.StringVar(&period, "period", "", "only the invoices of this month (2026-11)")
		fs.IntVar(&limit, "limit", 50, "how many to list, 1-100")
		fs.StringVar(&cursor, "cursor", "", "continue after this id (next_cursor of the previous page)")
		wantArgs = 0
	case "invoice show", "invoice void":
	case "invoice mark-paid":
		fs.StringVar(&ref, "reference", "", "how it was paid, e.g. \"wire 2026-12-03\" (required)")
	case "clock advance":
		fs.StringVar(&tenant, "tenant", "", "the test tenant (id or slug)")
		fs.StringVar(&to, "to", "", "the clock's new time, RFC 3339 (2026-12-01T00:00:00Z), after its current time")
		wantArgs = 0
	case "billing run":
		fs.StringVar(&at, "at", "", "run as of this RFC 3339 time (default: now)")
		wantArgs = 0
	default:
		return unknownCommand(group, sub)
	}
	positional, err := parse(name, fs, args, stdout)
	if err != nil {
		return err
	}
	switch {
	case len(positional) > wantArgs:
		return usageError(name, "unexpected argument %q", positional[wantArgs])
	case len(positional) < wantArgs:
		return usageError(name, "missing INVOICE_ID")
	case limit < 0 || limit > 100 || (limit == 0 && fs.Lookup("limit") != nil):
		return &cliError{Code: codeInvalid, Message: "invalid input: limit: must be between 1 and 100",
			Fields: map[string]string{"limit": "must be between 1 and 100"}}
	case name == "clock advance" && tenant == "":
		return usageError(name, "clock advance needs --tenant")
	case name == "clock advance" && to == "":
		return usageError(name, "clock advance needs --to")
	}
	var when time.Time
	for flagName, v := range map[string]string{"to": to, "at": at} {
		if v == "" {
			continue
		}
		if when, err = time.Parse(time.RFC3339, v); err != nil {
			return &cliError{Code: codeInvalid, Message: fmt.Sprintf("invalid input: %s: %q is not an RFC 3339 time such as 2026-12-01T00:00:00Z", flagName, v),
				Fields: map[string]string{flagName: "want an RFC 3339 time such as 2026-12-01T00:00:00Z"}}
		}
	}
	a, err := openApp(ctx, cfg, stderr, true)
	if err != nil {
		return err
	}
	defer a.close()
	ctx = tenancy.WithActor(ctx, cliActor())
	out := func(v any, human string) error { return output(stdout, cfg.JSON, v, human) }
	svc := a.contracts

	switch name {
	case "invoice list":
		tenantID := ""
		if tenant != "" {
			t, err := a.findTenant(ctx, tenant)
			if err != nil {
				return err
			}
			tenantID = t.ID
		}
		invs, more, err := svc.AllInvoices(ctx, contract.InvoiceFilter{TenantID: tenantID,
			Status: contract.InvoiceStatus(status), Period: period, Limit: limit, Before: cursor})
		if err != nil {
			return err
		}
		p := newPage(invs, more, func(inv contract.Invoice) string { return inv.ID })
		rows := make([][]string, len(invs))
		for i, inv := range invs {
			rows[i] = []string{inv.ID, fmt.Sprintf("#%d", inv.Number), inv.TenantID, inv.PeriodStart.Format("2006-01"),
				string(inv.Status), money(inv.Total, inv.Currency), "due " + money(inv.AmountDue, inv.Currency)}
		}
		return out(p, table(rows, p.NextCursor))
	case "invoice show":
		inv, err := svc.AnyInvoice(ctx, positional[0])
		if err != nil {
			return invoiceError(err)
		}
		return out(inv, describeInvoice(inv))
	case "invoice void":
		inv, err := svc.VoidInvoice(ctx, positional[0])
		if err != nil {
			return invoiceError(err)
		}
		return out(inv, fmt.Sprintf("voided %s (#%d of %s): nothing is owed on it", inv.ID, inv.Number, inv.TenantID))
	case "invoice mark-paid":
		inv, err := svc.MarkInvoicePaid(ctx, positional[0], contract.MarkPaidInput{Reference: ref})
		if err != nil {
			return invoiceError(err)
		}
		return out(inv, fmt.Sprintf("marked %s (#%d of %s) paid: %s, reference %q",
			inv.ID, inv.Number, inv.TenantID, money(inv.Total, inv.Currency), inv.Reference))
	case "clock advance":
		t, err := a.findTenant(ctx, tenant)
		if err != nil {
			return err
		}
		now, err := svc.AdvanceClock(ctx, t.ID, contract.ClockInput{AdvanceTo: when})
		if err != nil {
			return renameField(err, "advance_to", "to")
		}
		invs, more, err := svc.AllInvoices(ctx, contract.InvoiceFilter{TenantID: t.ID, Limit: 100})
		if err != nil {
			return err
		}
		open := 0
		for _, inv := range invs {
			if inv.Status == contract.InvoiceOpen {
				open++
			}
		}
		count := fmt.Sprint(len(invs))
		if more {
			count += "+"
		}
		return out(map[string]any{"tenant_id": t.ID, "test_clock": now, "invoices": len(invs), "open_invoices": open, "more_invoices": more},
			fmt.Sprintf("the clock of %s is now %s; it has %s platform invoices, %d open (server invoice list --tenant %s)",
				t.Slug, now.Format(time.RFC3339), count, open, t.Slug))
	case "billing run":
		if at == "" {
			when = time.Now()
		}
		n, err := svc.RunBilling(ctx, when)
		if oerr := out(map[string]int{"done": n},
			fmt.Sprintf("%d platform invoices generated or marked overdue (test tenants bill on their clocks: server clock advance)", n)); oerr != nil {
			return oerr
		}
		return err
	}
	return unknownCommand(group, sub)
}

// describeInvoice is `invoice show` for people: the invoice, then its
// lines.
func describeInvoice(inv contract.Invoice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s #%d of %s, %s to %s: %s\n", inv.ID, inv.Number, inv.TenantID,
		inv.PeriodStart.Format("2006-01-02"), inv.PeriodEnd.Format("2006-01-02"), inv.Status)
	rows := make([][]string, 0, len(inv.Lines)+3)
	for _, l := range inv.Lines {
		rows = append(rows, []string{"  " + l.Description, fmt.Sprintf("%d ×", l.Quantity), money(l.UnitAmount, inv.Currency), money(l.Amount, inv.Currency)})
	}
	rows = append(rows,
		[]string{"  total", "", "", money(inv.Total, inv.Currency)},
		[]string{"  paid", "", "", money(inv.AmountPaid, inv.Currency)},
		[]string{"  due " + inv.DueDate.Format("2006-01-02"), "", "", money(inv.AmountDue, inv.Currency)})
	b.WriteString(table(rows, nil))
	if inv.Reference != "" {
		fmt.Fprintf(&b, "\nreference: %s", inv.Reference)
	}
	return b.String()
}

// money writes minor units of currency for people: "49.00 USD".
func money(amount int64, currency string) string {
	s, err := billing.FormatAmount(amount, currency)
	if err != nil {
		return fmt.Sprintf("%d %s (minor units)", amount, currency)
	}
	return s + " " + currency
}

// invoiceError adds what an operator can do next to the errors of a
// platform invoice they can act on.
func invoiceError(err error) error {
	var next string
	var se *contract.InvoiceStatusError
	switch {
	case errors.Is(err, tenancy.ErrNotFound):
		next = "platform invoice ids look like pin_…; find them with: server invoice list"
	case errors.As(err, &se) && se.Status == contract.InvoicePaid:
		next = "it was paid; a paid invoice stays as it is"
	case errors.As(err, &se):
		next = "only an open invoice can be voided or marked paid"
	default:
		return err
	}
	ce := *classify(err)
	ce.Message += " (" + next + ")"
	return &ce
}
