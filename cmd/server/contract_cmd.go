package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// runContract runs the operator's contract commands:
//
//	server contract list [--status S] [--tenant T]  list requests of every tenant (work_cmd.go)
//	server contract approve ccr_… [--reason R]   approve (an immediate request is applied at once)
//	server contract reject ccr_… [--reason R]    reject; nothing changes
//	server contract apply-due                    apply approved next_period requests now due
//
// apply-due is safe to run at any time and as often as wanted; run it
// (from cron, say) shortly after each month starts.
func runContract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, args, err := subcommand("contract", args, stdout)
	if err != nil {
		return err
	}
	if sub == "list" {
		return runWork(ctx, "contract list", args, stdout, stderr)
	}
	var (
		cfg    config
		reason string
	)
	fs := flag.NewFlagSet("contract "+sub, flag.ContinueOnError)
	commonFlags(fs, &cfg)
	switch sub {
	case "approve", "reject":
		fs.StringVar(&reason, "reason", "", "why, shown to the tenant")
	case "apply-due":
	default:
		return unknownCommand("contract", sub)
	}
	name := "contract " + sub
	positional, err := parse(name, fs, args, stdout)
	if err != nil {
		return err
	}
	switch want := map[bool]int{true: 0, false: 1}[sub == "apply-due"]; {
	case len(positional) > want:
		return usageError(name, "unexpected argument %q", positional[want])
	case len(positional) < want:
		return usageError(name, "missing REQUEST_ID")
	}
	a, err := openApp(ctx, cfg, stderr, true)
	if err != nil {
		return err
	}
	defer a.close()
	ctx = tenancy.WithActor(ctx, cliActor())

	switch sub {
	case "approve", "reject":
		decide := a.contracts.Approve
		if sub == "reject" {
			decide = a.contracts.Reject
		}
		req, err := decide(ctx, positional[0], reason)
		if err != nil {
			return contractError(err)
		}
		human := fmt.Sprintf("contract request %s is %s", req.ID, req.Status)
		if req.Status == contract.RequestApproved && req.EffectiveAt != nil {
			human += fmt.Sprintf(", effective %s (apply with: server contract apply-due)", req.EffectiveAt.Format("2006-01-02"))
		}
		return output(stdout, cfg.JSON, contractJSON(req), human)
	default:
		done, err := a.contracts.ApplyDue(ctx)
		out := make([]contractRequestJSON, len(done))
		lines := []string{fmt.Sprintf("%d due contract requests decided", len(done))}
		for i, req := range done {
			out[i] = contractJSON(req)
			lines = append(lines, fmt.Sprintf("  %s %s", req.ID, req.Status))
		}
		if oerr := output(stdout, cfg.JSON, map[string]any{"decided": out}, strings.Join(lines, "\n")); oerr != nil {
			return oerr
		}
		return err
	}
}

// contractRequestJSON is what `contract … --json` prints: the request as
// the API shows it, with its tenant.
type contractRequestJSON struct {
	TenantID string `json:"tenant_id"`
	contract.Request
}

func contractJSON(req contract.Request) contractRequestJSON {
	return contractRequestJSON{TenantID: req.TenantID, Request: req}
}

// contractError adds what an operator can do next to the errors they can
// act on.
func contractError(err error) error {
	var next string
	switch {
	case errors.Is(err, tenancy.ErrNotFound):
		next = "request ids look like ccr_…"
	case errors.Is(err, tenancy.ErrInvalid):
		next = "the tenant's contract no longer allows this change; reject it with a reason"
	default:
		return err
	}
	ce := *classify(err)
	ce.Message += " (" + next + ")"
	return &ce
}
