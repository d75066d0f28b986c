package contract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TestPreviewIsTheInvoice is the property the billing run rests on: for
// random contracts, change histories (immediate and next-period changes
// of plan, seats and add-ons; operators' corrections) and usage, the
// preview taken in the period's last second equals, line for line, the
// invoice the billing run generates at the period's end; the next
// period's preview taken then equals the next period's opening; running
// the billing again generates nothing; numbers are gapless.
func TestPreviewIsTheInvoice(t *testing.T) {
	const histories = 16
	eachEnvAt(t, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, e *env) {
		ctx := context.Background()
		var numbers []int64
		for i := range histories {
			seed := uint64(i + 1)
			t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 39))
				start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(5 * 24 * time.Hour))))
				e.clock.Set(start)
				plans := []string{catalog.PlanFree, catalog.PlanStarter, catalog.PlanGrowth, catalog.PlanEnterprise}
				tn, owner := e.mustTenantWithMembers(t, plans[r.IntN(len(plans))], 1+r.IntN(2))
				at := start
				var log []string
				for range r.IntN(8) {
					at = at.Add(time.Duration(r.Int64N(int64(3 * 24 * time.Hour))))
					e.clock.Set(at)
					log = append(log, randomStep(ctx, t, e, r, tn.ID, owner.ID))
				}
				last := time.Date(2026, 11, 30, 23, 59, 59, int(r.Int64N(int64(time.Second))), time.UTC)
				e.clock.Set(last)
				preview, err := e.svc.Preview(ctx, tn.ID, contract.PreviewInput{})
				if err != nil {
					t.Fatalf("preview: %v (history %v)", err, log)
				}
				nextPreview, err := e.svc.Preview(ctx, tn.ID, contract.PreviewInput{Effective: new("next_period")})
				if err != nil {
					t.Fatalf("next period preview: %v (history %v)", err, log)
				}

				end := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(time.Hour))))
				e.clock.Set(end)
				if _, err := e.svc.RunBilling(ctx, end); err != nil {
					t.Fatalf("billing run: %v", err)
				}
				if _, err := e.svc.ApplyDueAt(ctx, end); err != nil {
					t.Fatalf("apply due: %v", err)
				}
				if _, err := e.svc.RunBilling(ctx, end.Add(time.Minute)); err != nil {
					t.Fatalf("second billing run: %v", err)
				}
				invoices, _, err := e.svc.Invoices(ctx, tn.ID, contract.InvoiceFilter{})
				if err != nil || len(invoices) != 1 {
					t.Fatalf("invoices: got %d, %v; want exactly one (history %v)", len(invoices), err, log)
				}
				inv := invoices[0]
				numbers = append(numbers, inv.Number)
				if got, want := invoiceView(inv), previewView(preview); got != want {
					t.Fatalf("the invoice is not the preview of the period's last second\n invoice %s\n preview %s\n history %v", got, want, log)
				}
				december, err := e.svc.Preview(ctx, tn.ID, contract.PreviewInput{})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := previewView(december), previewView(nextPreview); got != want {
					t.Fatalf("December opened otherwise than November's next-period preview said\n got  %s\n want %s\n history %v", got, want, log)
				}
			})
		}
		slices.Sort(numbers)
		for i, n := range numbers {
			if n != int64(i+1) {
				t.Fatalf("invoice numbers %v: want 1..%d without gaps", numbers, len(numbers))
			}
		}
	})
}

// randomStep makes one random change of the tenant's contract or usage
// at the env's clock and says what it was; refusals (a change the rules
// do not allow) are part of the history.
func randomStep(ctx context.Context, t *testing.T, e *env, r *rand.Rand, tenantID, userID string) string {
	t.Helper()
	plans := []string{catalog.PlanFree, catalog.PlanStarter, catalog.PlanGrowth, catalog.PlanEnterprise}
	modules := []string{"collections.reminders", "support.sla", "collections.dunning", "support.csat"}
	features := []string{catalog.FeatureInvoices, catalog.FeatureTickets}
	in := contract.SubmitInput{Effective: []string{"immediately", "next_period"}[r.IntN(2)]}
	switch r.IntN(7) {
	case 0:
		in.Type, in.PlanID = "change_plan", new(plans[r.IntN(len(plans))])
	case 1:
		in.Type, in.Seats = "change_seats", new(1+r.IntN(60))
	case 2:
		in.Type, in.ModuleID = "add_module", new(modules[r.IntN(len(modules))])
	case 3:
		in.Type, in.ModuleID = "remove_module", new(modules[r.IntN(len(modules))])
	case 4:
		f, limit := features[r.IntN(len(features))], int64(2000+r.IntN(1000))
		if err := e.ten.Entitlements.SetLimit(ctx, tenantID, f, &limit); err != nil {
			return "set limit: " + err.Error()
		}
		n := int64(1 + r.IntN(400))
		err := e.ten.Entitlements.Consume(ctx, tenantID, f, n)
		return fmt.Sprintf("use %d %s: %v", n, f, err)
	case 5:
		seats := 1 + r.IntN(40)
		_, err := e.svc.Change(ctx, tenantID, contract.Change{PlanID: plans[r.IntN(len(plans))], Seats: &seats})
		return fmt.Sprintf("operator sets %d seats: %v", seats, err)
	default:
		n := int64(1 + r.IntN(50))
		err := e.ten.Entitlements.Consume(ctx, tenantID, features[r.IntN(len(features))], n)
		return fmt.Sprintf("use %d: %v", n, err)
	}
	req, err := e.svc.Submit(ctx, tenantID, userID, in)
	if err != nil {
		return fmt.Sprintf("%s %s refused: %v", in.Effective, in.Type, err)
	}
	if _, err := e.svc.Approve(ctx, req.ID, ""); err != nil {
		_, _ = e.svc.Reject(ctx, req.ID, "")
		return fmt.Sprintf("%s %s not approved: %v", in.Effective, in.Type, err)
	}
	return fmt.Sprintf("%s %s approved", in.Effective, in.Type)
}

// previewView and invoiceView are what an invoice and its preview must
// share: period, currency, lines and totals.
func previewView(p contract.Preview) string {
	return view(p.PeriodStart, p.PeriodEnd, p.Currency, p.Lines, p.Subtotal, p.Total)
}

func invoiceView(inv contract.Invoice) string {
	return view(inv.PeriodStart, inv.PeriodEnd, inv.Currency, inv.Lines, inv.Subtotal, inv.Total)
}

func view(start, end time.Time, currency string, lines []contract.PreviewLine, subtotal, total int64) string {
	b, _ := json.Marshal(map[string]any{"start": start, "end": end, "currency": currency, "lines": lines,
		"subtotal": subtotal, "total": total})
	return string(b)
}
