package portal

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/support"
)

func TestAgingBucket(t *testing.T) {
	for _, tc := range []struct {
		days int
		want string
	}{{0, "0–30 days"}, {1, "0–30 days"}, {30, "0–30 days"}, {31, "31–60 days"}, {60, "31–60 days"},
		{61, "61–90 days"}, {90, "61–90 days"}, {91, "90+ days"}, {4000, "90+ days"}} {
		if got := agingBuckets[agingBucket(tc.days)].Label; got != tc.want {
			t.Errorf("%d days past due: bucket %q, want %q", tc.days, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	open := func(cur string, due int64, dueDate string) billing.Invoice {
		return billing.Invoice{Status: billing.StatusOpen, Currency: cur, AmountDue: due, DueDate: dueDate}
	}
	pay := func(cur string, amt int64, at time.Time, kind billing.PaymentKind) billing.Payment {
		return billing.Payment{Currency: cur, Amount: amt, ReceivedAt: at, Kind: kind}
	}
	s := summarize(now, []billing.Invoice{
		open("USD", 1000, "2026-12-31"), // not yet due
		open("USD", 200, "2026-11-20"),  // 9 days late
		open("USD", 300, "2026-08-01"),  // 120 days late
		open("EUR", 50, ""),             // no due date
		{Status: billing.StatusPaid, Currency: "USD", AmountDue: 0},
	}, []billing.Payment{
		pay("USD", 500, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), billing.KindPayment),
		pay("USD", 100, time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), billing.KindRefund),
		pay("USD", 700, time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), billing.KindPayment),  // first month of the chart
		pay("USD", 900, time.Date(2025, 11, 30, 0, 0, 0, 0, time.UTC), billing.KindPayment), // before it
	})
	wantSums := func(name string, got []amount, want ...amount) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	wantSums("Outstanding", s.Outstanding, amount{"EUR", 50}, amount{"USD", 1500})
	wantSums("Overdue", s.Overdue, amount{"USD", 500})
	wantSums("Collected", s.Collected, amount{"USD", 400})
	if len(s.Aging) != 1 || !slices.Equal(s.Aging[0].Values, []int64{200, 0, 0, 300}) {
		t.Errorf("Aging = %+v, want USD 200 in 0–30 and 300 in 90+", s.Aging)
	}
	if len(s.Monthly) != 1 || len(s.Monthly[0].Values) != chartMonths {
		t.Fatalf("Monthly = %+v, want 12 months of USD", s.Monthly)
	}
	m := s.Monthly[0]
	if m.Labels[0] != "Dec 2025" || m.Labels[11] != "Nov 2026" || m.Values[0] != 700 || m.Values[11] != 400 {
		t.Errorf("Monthly = %v %v, want Dec 2025 (700) to Nov 2026 (400)", m.Labels, m.Values)
	}
}

func TestAtRisk(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	yes, no := true, false
	for _, tc := range []struct {
		name string
		t    support.Ticket
		want bool
	}{
		{"NoTargets", support.Ticket{}, false},
		{"Breached", support.Ticket{SLABreached: &yes, ResolutionDueAt: at(72 * time.Hour)}, true},
		{"FirstResponseSoon", support.Ticket{SLABreached: &no, FirstResponseDueAt: at(2 * time.Hour), ResolutionDueAt: at(72 * time.Hour)}, true},
		{"RespondedResolutionFar", support.Ticket{SLABreached: &no, FirstRespondedAt: at(-time.Hour),
			FirstResponseDueAt: at(2 * time.Hour), ResolutionDueAt: at(72 * time.Hour)}, false},
		{"ResolutionSoon", support.Ticket{SLABreached: &no, FirstRespondedAt: at(-time.Hour), ResolutionDueAt: at(3 * time.Hour)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := atRisk(tc.t, now.Add(slaHorizon)); got != tc.want {
				t.Errorf("atRisk = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBarChart(t *testing.T) {
	s := series{Currency: "USD", Labels: []string{"0–30 days", "31–60 days", "61–90 days", "90+ days"}, Values: []int64{100, 0, -5, 50}}
	c := barChart("aging", "Overdue by age, USD", s, func(v int64) string { return money("en", v, "USD") })
	if c.ID != "aging-usd" || len(c.Bars) != 4 || !c.ShowValues {
		t.Fatalf("chart %+v", c)
	}
	top := float64(chartTop)
	if c.Bars[0].Y != top || c.Bars[0].H != float64(c.Baseline-chartTop) {
		t.Errorf("the largest bar is %v high from %v, want the whole plot", c.Bars[0].H, c.Bars[0].Y)
	}
	if c.Bars[1].H != 0 || c.Bars[2].H != 0 || c.Bars[3].H != c.Bars[0].H/2 {
		t.Errorf("bar heights %v %v %v, want 0, 0 (negative) and half", c.Bars[1].H, c.Bars[2].H, c.Bars[3].H)
	}
	if c.Bars[0].Label != "0–30" || c.Bars[0].Sub != "days" || !strings.Contains(c.Desc, "90+ days: $0.50") {
		t.Errorf("labels %q %q, description %q", c.Bars[0].Label, c.Bars[0].Sub, c.Desc)
	}
	for i := 1; i < len(c.Bars); i++ {
		if c.Bars[i].X <= c.Bars[i-1].X+c.Bars[i-1].W {
			t.Errorf("bar %d overlaps the one before", i)
		}
	}
	if c := barChart("none", "Empty", series{Currency: "EUR"}, nil); len(c.Bars) != 0 {
		t.Errorf("an empty series draws %d bars", len(c.Bars))
	}
}
