package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
)

// workCommands are the operator's queues across tenants, on the services
// the operator API calls: contract requests to list, tickets to answer,
// payment events to settle.
var workCommands = []string{
	"contract list", "ticket list", "ticket get", "ticket reply", "ticket change",
	"payment-event list", "payment-event apply", "payment-event dismiss",
}

// runWork runs one of workCommands; name is "group sub".
func runWork(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	var (
		cfg                                                 config
		status, priority, tenant, assignee, outcome, cursor string
		body, agent, invoice, reason                        string
		limit                                               int
		unassign                                            bool
	)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	commonFlags(fs, &cfg)
	paged := func() {
		fs.IntVar(&limit, "limit", 50, "how many to list, 1-100")
		fs.StringVar(&cursor, "cursor", "", "continue after this id (next_cursor of the previous page)")
	}
	wantArgs := 1
	switch name {
	case "contract list":
		fs.StringVar(&status, "status", "", "pending, approved, applied, rejected or cancelled")
		fs.StringVar(&tenant, "tenant", "", "only this tenant's (tenant id)")
		paged()
		wantArgs = 0
	case "ticket list":
		fs.StringVar(&status, "status", "", "open, pending, on_hold, solved or closed")
		fs.StringVar(&priority, "priority", "", "low, normal, high or urgent")
		fs.StringVar(&tenant, "tenant", "", "only this tenant's (tenant id)")
		fs.StringVar(&assignee, "assignee", "", "only tickets assigned to this agent")
		paged()
		wantArgs = 0
	case "ticket reply":
		fs.StringVar(&body, "body", "", "the reply (required)")
		fs.StringVar(&agent, "agent", "", "the agent id the reply is from (default: the local account, cli:NAME)")
	case "ticket change":
		fs.StringVar(&status, "status", "", "move the ticket to this status")
		fs.StringVar(&priority, "priority", "", "set this priority")
		fs.StringVar(&assignee, "assignee", "", "assign the ticket to this agent")
		fs.BoolVar(&unassign, "unassign", false, "assign the ticket to nobody")
	case "payment-event list":
		fs.StringVar(&outcome, "outcome", "unmatched", "unmatched, applied, dismissed, ignored or pending")
		paged()
		wantArgs = 0
	case "payment-event apply":
		fs.StringVar(&invoice, "invoice", "", "the invoice id the event belongs to (required)")
	case "payment-event dismiss":
		fs.StringVar(&reason, "reason", "", "why the event is set aside (required)")
	}
	positional, err := parse(name, fs, args, stdout)
	if err != nil {
		return err
	}
	switch {
	case len(positional) > wantArgs:
		return usageError(name, "unexpected argument %q", positional[wantArgs])
	case len(positional) < wantArgs:
		return usageError(name, "missing ID")
	case limit < 0 || limit > 100 || (limit == 0 && fs.Lookup("limit") != nil):
		return &cliError{Code: codeInvalid, Message: "invalid input: limit: must be between 1 and 100",
			Fields: map[string]string{"limit": "must be between 1 and 100"}}
	case name == "ticket change" && status == "" && priority == "" && assignee == "" && !unassign:
		return usageError(name, "ticket change needs --status, --priority, --assignee or --unassign")
	case unassign && assignee != "":
		return usageError(name, "--assignee and --unassign exclude each other")
	}
	a, err := openApp(ctx, cfg, stderr, true)
	if err != nil {
		return err
	}
	defer a.close()
	actor := cliActor()
	ctx = tenancy.WithActor(ctx, actor)
	out := func(v any, human string) error { return output(stdout, cfg.JSON, v, human) }
	desk, settle := a.kit.Desk, a.kit.Settlement

	switch name {
	case "contract list":
		reqs, more, err := a.contracts.AllRequests(ctx, contract.AllFilter{
			Filter: contract.Filter{Status: status, Limit: limit, Before: cursor}, TenantID: tenant})
		if err != nil {
			return renameField(err, "tenant_id", "tenant")
		}
		js := make([]contractRequestJSON, len(reqs))
		rows := make([][]string, len(reqs))
		for i, r := range reqs {
			js[i] = contractJSON(r)
			rows[i] = []string{r.ID, r.TenantID, string(r.Type), string(r.Effective), string(r.Status)}
		}
		p := newPage(js, more, func(r contractRequestJSON) string { return r.ID })
		return out(p, table(rows, p.NextCursor))
	case "ticket list":
		ts, more, err := desk.Tickets(ctx, support.AgentFilter{TenantID: tenant, Status: status, Priority: priority,
			AssigneeID: assignee, Limit: limit, Before: cursor})
		if err != nil {
			return renameField(err, "tenant_id", "tenant")
		}
		p := newPage(ts, more, func(t support.TenantTicket) string { return t.ID })
		rows := make([][]string, len(ts))
		for i, t := range ts {
			who := "-"
			if t.AssigneeID != nil {
				who = *t.AssigneeID
			}
			rows[i] = []string{t.ID, t.TenantID, fmt.Sprintf("#%d", t.Number), string(t.Status), string(t.Priority), who, t.Subject}
		}
		return out(p, table(rows, p.NextCursor))
	case "ticket get":
		t, err := desk.Ticket(ctx, positional[0])
		if err != nil {
			return err
		}
		return out(t, fmt.Sprintf("%s (%s #%d) %s, %s: %s", t.ID, t.TenantID, t.Number, t.Status, t.Priority, t.Subject))
	case "ticket reply":
		if agent == "" {
			agent = actor.ID
		}
		c, err := desk.Reply(ctx, positional[0], agent, body)
		if err != nil {
			return renameField(err, "agent_id", "agent")
		}
		return out(c, fmt.Sprintf("replied on %s as %s (%s)", positional[0], c.Author.ID, c.ID))
	case "ticket change":
		ch := support.AgentChange{ClearAssignee: unassign}
		if status != "" {
			s := support.Status(status)
			ch.Status = &s
		}
		if priority != "" {
			p := support.Priority(priority)
			ch.Priority = &p
		}
		if assignee != "" {
			ch.AssigneeID = &assignee
		}
		t, err := desk.Change(ctx, positional[0], ch)
		if err != nil {
			return renameField(err, "assignee_id", "assignee")
		}
		return out(t, fmt.Sprintf("%s is %s, %s", t.ID, t.Status, t.Priority))
	case "payment-event list":
		recs, more, err := settle.Events(ctx, webhook.EventFilter{Outcome: webhook.Outcome(outcome), Limit: limit, Before: cursor})
		if err != nil {
			return err
		}
		js := make([]eventJSON, len(recs))
		rows := make([][]string, len(recs))
		for i, r := range recs {
			js[i] = newEventJSON(r)
			rows[i] = []string{r.ID, r.Type, string(r.Outcome), orDash(r.InvoiceID), r.Reason}
		}
		p := newPage(js, more, func(e eventJSON) string { return e.ID })
		return out(p, table(rows, p.NextCursor))
	case "payment-event apply":
		rec, err := settle.Apply(ctx, positional[0], invoice)
		if err != nil {
			return renameField(err, "invoice_id", "invoice")
		}
		return out(newEventJSON(rec), fmt.Sprintf("applied %s to %s (%s)", rec.ID, rec.InvoiceID, rec.TenantID))
	case "payment-event dismiss":
		rec, err := settle.Dismiss(ctx, positional[0], reason)
		if err != nil {
			return err
		}
		return out(newEventJSON(rec), fmt.Sprintf("dismissed %s: %s", rec.ID, rec.Reason))
	}
	return unknownCommand(strings.Fields(name)[0], strings.Fields(name)[1])
}

// eventJSON is a payment event as `payment-event … --json` prints it.
type eventJSON struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Outcome    webhook.Outcome `json:"outcome"`
	Reason     string          `json:"reason"`
	TenantID   string          `json:"tenant_id,omitempty"`
	InvoiceID  string          `json:"invoice_id,omitempty"`
	ReceivedAt string          `json:"received_at"`
}

func newEventJSON(r webhook.Record) eventJSON {
	return eventJSON{ID: r.ID, Type: r.Type, Outcome: r.Outcome, Reason: r.Reason, TenantID: r.TenantID,
		InvoiceID: r.InvoiceID, ReceivedAt: r.ReceivedAt.Format("2006-01-02T15:04:05Z07:00")}
}

// runWorkGroup runs the ticket and payment-event groups.
func runWorkGroup(ctx context.Context, group string, args []string, stdout, stderr io.Writer) error {
	sub, args, err := subcommand(group, args, stdout)
	if err != nil {
		return err
	}
	name := group + " " + sub
	for _, c := range workCommands {
		if c == name {
			return runWork(ctx, name, args, stdout, stderr)
		}
	}
	return unknownCommand(group, sub)
}
