package portal

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/support"
)

// The dashboard's figures are sums the portal makes from the services'
// lists, bounded so that a page never reads without limit: at most
// maxScanPages pages of each list. A tenant with more is told the figures
// cover its newest ones (summary.Partial).
const (
	maxScanPages = 10
	scanPage     = billing.MaxListLimit
	// chartMonths is how many months the collected chart shows.
	chartMonths = 12
	// slaHorizon is how soon a target must fall due for its open ticket
	// to be "at risk".
	slaHorizon = 24 * time.Hour
)

// amount is a sum in one currency.
type amount struct {
	Currency string
	Amount   int64
}

// sums adds amounts per currency.
type sums map[string]int64

// list is the sums sorted by currency, without zeroes.
func (s sums) list() []amount {
	out := []amount{}
	for c, a := range s {
		if a != 0 {
			out = append(out, amount{c, a})
		}
	}
	slices.SortFunc(out, func(a, b amount) int { return cmp.Compare(a.Currency, b.Currency) })
	return out
}

// agingBuckets are the aging chart's columns: days past the due date.
var agingBuckets = []struct {
	Label    string
	From, To int // inclusive; To 0 is open-ended
}{{"0–30 days", 0, 30}, {"31–60 days", 31, 60}, {"61–90 days", 61, 90}, {"90+ days", 91, 0}}

// agingBucket is the index in agingBuckets of an invoice days past due.
func agingBucket(days int) int {
	for i, b := range agingBuckets {
		if days >= b.From && (b.To == 0 || days <= b.To) {
			return i
		}
	}
	return 0
}

// summary is what the dashboard shows of the tenant's receivables.
type summary struct {
	// Outstanding is what open invoices still ask for; Overdue the part
	// of it past its due date; Collected what came in (payments less
	// refunds) this calendar month (UTC). One entry per currency.
	Outstanding, Overdue, Collected []amount
	// Monthly is, per currency, what was collected in each of the last
	// chartMonths months, oldest first; Aging, per currency, the overdue
	// amounts by agingBuckets.
	Monthly []series
	Aging   []series
	// Partial says the tenant has more invoices than the sums read.
	Partial bool
}

// series is one chart's values in one currency, with their labels.
type series struct {
	Currency string
	Labels   []string
	Values   []int64
}

// summarize computes the summary at now from the tenant's open invoices
// and the ledger entries of its invoices (payments and refunds).
func summarize(now time.Time, open []billing.Invoice, ledger []billing.Payment) summary {
	now = now.UTC()
	today := now.Format(time.DateOnly)
	outstanding, overdue := sums{}, sums{}
	aging := map[string][]int64{}
	for _, inv := range open {
		if inv.Status != billing.StatusOpen {
			continue
		}
		outstanding[inv.Currency] += inv.AmountDue
		if inv.DueDate == "" || inv.DueDate >= today {
			continue
		}
		overdue[inv.Currency] += inv.AmountDue
		due, err := time.Parse(time.DateOnly, inv.DueDate)
		if err != nil {
			continue
		}
		days := int(now.Sub(due).Hours() / 24)
		if aging[inv.Currency] == nil {
			aging[inv.Currency] = make([]int64, len(agingBuckets))
		}
		aging[inv.Currency][agingBucket(days)] += inv.AmountDue
	}

	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	first := thisMonth.AddDate(0, -(chartMonths - 1), 0)
	collected := sums{}
	monthly := map[string][]int64{}
	for _, p := range ledger {
		at := p.ReceivedAt.UTC()
		if at.Before(first) || !at.Before(thisMonth.AddDate(0, 1, 0)) {
			continue
		}
		amt := p.Amount
		if p.Kind == billing.KindRefund {
			amt = -amt
		}
		if !at.Before(thisMonth) {
			collected[p.Currency] += amt
		}
		if monthly[p.Currency] == nil {
			monthly[p.Currency] = make([]int64, chartMonths)
		}
		i := (at.Year()-first.Year())*12 + int(at.Month()) - int(first.Month())
		monthly[p.Currency][i] += amt
	}

	s := summary{Outstanding: outstanding.list(), Overdue: overdue.list(), Collected: collected.list()}
	months := make([]string, chartMonths)
	for i := range months {
		months[i] = first.AddDate(0, i, 0).Format("Jan 2006")
	}
	for _, c := range sortedKeys(monthly) {
		s.Monthly = append(s.Monthly, series{Currency: c, Labels: months, Values: monthly[c]})
	}
	labels := make([]string, len(agingBuckets))
	for i, b := range agingBuckets {
		labels[i] = b.Label
	}
	for _, c := range sortedKeys(aging) {
		s.Aging = append(s.Aging, series{Currency: c, Labels: labels, Values: aging[c]})
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ticketSummary is what the dashboard shows of the tenant's tickets.
type ticketSummary struct {
	// Open counts the tickets waiting on someone (open, pending, on
	// hold); AtRisk those of them whose service level target is due
	// within slaHorizon or already missed.
	Open, AtRisk int64
	Partial      bool
}

// unresolved are the ticket statuses that still wait on someone.
var unresolved = []support.Status{support.StatusOpen, support.StatusPending, support.StatusOnHold}

// atRisk reports whether t's next target is due before horizon or was
// missed.
func atRisk(t support.Ticket, horizon time.Time) bool {
	if t.SLABreached != nil && *t.SLABreached {
		return true
	}
	due := t.ResolutionDueAt
	if t.FirstRespondedAt == nil && t.FirstResponseDueAt != nil {
		due = t.FirstResponseDueAt
	}
	return due != nil && due.Before(horizon)
}

// scanInvoices reads the tenant's invoices that f keeps, newest first, up
// to maxScanPages pages, and whether there are more.
func (h *Handler) scanInvoices(ctx context.Context, tenantID string, f billing.ListFilter) ([]billing.Invoice, bool, error) {
	var out []billing.Invoice
	f.Limit = scanPage
	for range maxScanPages {
		page, more, err := h.cfg.Invoices.List(ctx, tenantID, f)
		if err != nil {
			return nil, false, err
		}
		out = append(out, page...)
		if !more || len(page) == 0 {
			return out, false, nil
		}
		f.Before = page[len(page)-1].ID
	}
	return out, true, nil
}

// receivables reads what the summary needs: the open invoices, and the
// ledger of every invoice with money on it among the newest.
func (h *Handler) receivables(ctx context.Context, tenantID string, now time.Time) (summary, error) {
	open, partialOpen, err := h.scanInvoices(ctx, tenantID, billing.ListFilter{Status: string(billing.StatusOpen)})
	if err != nil {
		return summary{}, err
	}
	all, partialAll, err := h.scanInvoices(ctx, tenantID, billing.ListFilter{})
	if err != nil {
		return summary{}, err
	}
	since := now.AddDate(0, -2*chartMonths, 0)
	var ledger []billing.Payment
	for _, inv := range all {
		if inv.AmountPaid == 0 && inv.Status != billing.StatusPaid || inv.CreatedAt.Before(since) {
			continue
		}
		ps, _, err := h.cfg.Payments.Payments(ctx, tenantID, inv.ID, billing.PaymentFilter{Limit: billing.MaxListLimit})
		if err != nil {
			return summary{}, err
		}
		ledger = append(ledger, ps...)
	}
	s := summarize(now, open, ledger)
	s.Partial = partialOpen || partialAll
	return s, nil
}

// ticketFigures counts the tenant's unresolved tickets and those at risk.
func (h *Handler) ticketFigures(ctx context.Context, tenantID string, now time.Time) (ticketSummary, error) {
	var ts ticketSummary
	horizon := now.Add(slaHorizon)
	for _, st := range unresolved {
		f := support.ListFilter{Status: string(st), Limit: support.MaxListLimit}
		for page := 0; ; page++ {
			if page == maxScanPages {
				ts.Partial = true
				break
			}
			list, more, err := h.cfg.Tickets.List(ctx, tenantID, f)
			if err != nil {
				return ts, err
			}
			for _, t := range list {
				ts.Open++
				if atRisk(t, horizon) {
					ts.AtRisk++
				}
			}
			if !more || len(list) == 0 {
				break
			}
			f.Before = list[len(list)-1].ID
		}
	}
	return ts, nil
}
