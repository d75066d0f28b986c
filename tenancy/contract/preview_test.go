package contract_test

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// previewCatalog has prices chosen so that halves round: basic's base
// price and SLA add-on are odd.
const previewCatalog = `{
  "apps": [
    {"id": "collections", "name": "Collections", "description": "d", "modules": [
      {"id": "collections.invoices", "name": "Invoices", "description": "d", "toggleable": false},
      {"id": "collections.reminders", "name": "Reminders", "description": "d", "toggleable": true},
      {"id": "collections.dunning", "name": "Dunning", "description": "d", "toggleable": true}]},
    {"id": "support", "name": "Support", "description": "d", "modules": [
      {"id": "support.tickets", "name": "Tickets", "description": "d", "toggleable": true},
      {"id": "support.sla", "name": "SLA", "description": "d", "toggleable": true}]}
  ],
  "plans": [
    {"id": "basic", "name": "Basic", "currency": "USD", "interval": "month", "base_price": 2901,
     "included_seats": 3, "seat_price": 1001, "modules": ["collections.invoices", "support.tickets"],
     "limits": {"collections.invoices": 100, "support.tickets": 10, "seats": null},
     "add_ons": [{"module": "collections.reminders", "price": 501}, {"module": "support.sla", "price": 1999}],
     "overage": {"collections.invoices": 20, "support.tickets": 50}},
    {"id": "pro", "name": "Pro", "currency": "USD", "interval": "month", "base_price": 9900,
     "included_seats": 10, "seat_price": 800,
     "modules": ["collections.invoices", "collections.reminders", "support.tickets", "support.sla"],
     "limits": {"collections.invoices": 1000, "support.tickets": null, "seats": null},
     "add_ons": [{"module": "collections.dunning", "price": 4900}]},
    {"id": "euro", "name": "Euro", "currency": "EUR", "interval": "month", "base_price": 1000,
     "included_seats": 5, "seat_price": 100, "modules": ["collections.invoices"],
     "limits": {"collections.invoices": 10, "support.tickets": 0, "seats": 5}},
    {"id": "yearly", "name": "Yearly", "currency": "USD", "interval": "year", "base_price": 100000,
     "included_seats": 5, "seat_price": 100, "modules": ["collections.invoices"],
     "limits": {"collections.invoices": 10, "support.tickets": 0, "seats": null}}
  ]
}`

func mustCatalog(tb testing.TB, js string) *catalog.Catalog {
	tb.Helper()
	c, err := catalog.Parse([]byte(js))
	if err != nil {
		tb.Fatalf("catalog.Parse: %v", err)
	}
	return c
}

// line is a PreviewLine in short, for tables.
func line(kind contract.LineKind, desc string, qty, unit int64) contract.PreviewLine {
	return contract.PreviewLine{Kind: kind, Description: desc, Quantity: qty, UnitAmount: unit, Amount: qty * unit}
}

func TestComputePreview(t *testing.T) {
	cat := mustCatalog(t, previewCatalog)
	// Mid-November 2026: the rest of the 30-day month is exactly half.
	half := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	nov, dec, jan := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	terms := contract.Terms{TenantID: tenantA, PlanID: "basic", Seats: 5, AddOns: []string{"support.sla"}}
	usage := map[string]int64{catalog.FeatureInvoices: 130, catalog.FeatureTickets: 4, catalog.FeatureSeats: 4}
	within := map[string]int64{catalog.FeatureInvoices: 100, catalog.FeatureTickets: 10, catalog.FeatureSeats: 4}

	basicPlan := line(contract.LinePlan, "Basic plan", 1, 2901)
	basicSeats := line(contract.LineSeats, "Seats beyond the 3 included", 2, 1001)
	sla := line(contract.LineAddOn, "SLA add-on", 1, 1999)
	invoiceOverage := line(contract.LineOverage, "Invoices beyond the 100 included", 30, 20)
	proration := func(desc string, amount int64) contract.PreviewLine {
		return contract.PreviewLine{Kind: contract.LineProration, Description: desc, Quantity: 1, UnitAmount: amount, Amount: amount}
	}
	const fromHalf = " from 16 Nov 2026 00:00:00 UTC"

	tests := []struct {
		name       string
		usage      map[string]int64
		change     *contract.PreviewChange
		now        time.Time
		wantStart  time.Time
		wantEnd    time.Time
		wantCur    string
		wantLines  []contract.PreviewLine
		wantTotal  int64
		wantFields []string // an *InvalidError on these fields instead
	}{
		{name: "CurrentWithOverage", usage: usage, now: half, wantStart: nov, wantEnd: dec, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, basicSeats, sla, invoiceOverage}, wantTotal: 2901 + 2002 + 1999 + 600},
		{name: "CurrentWithinLimits", usage: within, now: half, wantStart: nov, wantEnd: dec, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, basicSeats, sla}, wantTotal: 6902},
		{name: "NextPeriodUpgrade", usage: usage, change: &contract.PreviewChange{PlanID: "pro"}, now: half,
			wantStart: dec, wantEnd: jan, wantCur: "USD",
			// Seats rise to the 10 included; SLA is included in Pro.
			wantLines: []contract.PreviewLine{line(contract.LinePlan, "Pro plan", 1, 9900)}, wantTotal: 9900},
		{name: "NextPeriodModules", usage: usage, change: &contract.PreviewChange{Modules: []string{"collections.reminders", "support.tickets"}}, now: half,
			wantStart: dec, wantEnd: jan, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, basicSeats, line(contract.LineAddOn, "Reminders add-on", 1, 501)}, wantTotal: 5404},
		{name: "NextPeriodNoModules", usage: usage, change: &contract.PreviewChange{Modules: []string{}}, now: half,
			wantStart: dec, wantEnd: jan, wantCur: "USD", wantLines: []contract.PreviewLine{basicPlan, basicSeats}, wantTotal: 4903},
		{name: "NextPeriodSeats", usage: usage, change: &contract.PreviewChange{Seats: intPtr(8), Effective: contract.EffectiveNextPeriod}, now: half,
			wantStart: dec, wantEnd: jan, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, line(contract.LineSeats, "Seats beyond the 3 included", 5, 1001), sla}, wantTotal: 9905},
		{name: "NextPeriodOtherCurrency", usage: usage, change: &contract.PreviewChange{PlanID: "euro", Modules: []string{}}, now: half,
			wantStart: dec, wantEnd: jan, wantCur: "EUR", wantLines: []contract.PreviewLine{line(contract.LinePlan, "Euro plan", 1, 1000)}, wantTotal: 1000},
		{name: "ImmediateWithoutChange", usage: usage, change: &contract.PreviewChange{Effective: contract.EffectiveImmediately}, now: half,
			wantStart: nov, wantEnd: dec, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, basicSeats, sla, invoiceOverage}, wantTotal: 7502},
		// Half of 2901 is 1450.5 and half of 1999 is 999.5: both round
		// away from zero.
		{name: "ImmediateUpgradeProrated", usage: usage, change: &contract.PreviewChange{PlanID: "pro", Effective: contract.EffectiveImmediately}, now: half,
			wantStart: nov, wantEnd: dec, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, basicSeats, sla,
				proration("Unused time on Basic plan"+fromHalf, -1451),
				proration("Remaining time on Pro plan"+fromHalf, 4950),
				proration("Unused time on Seats beyond the 3 included"+fromHalf, -1001),
				proration("Unused time on SLA add-on"+fromHalf, -1000),
				invoiceOverage},
			wantTotal: 6902 - 1451 + 4950 - 1001 - 1000 + 600},
		// Only the changed line is prorated: 501 × 1 296 000 / 2 592 000 = 250.5 → 251.
		{name: "ImmediateAddOnProrated", usage: within, change: &contract.PreviewChange{Modules: []string{"support.sla", "collections.reminders"}, Effective: contract.EffectiveImmediately},
			now: half, wantStart: nov, wantEnd: dec, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, basicSeats, sla, proration("Remaining time on Reminders add-on"+fromHalf, 251)},
			wantTotal: 6902 + 251},
		// 21 Nov 09:30:00.9: 829 799 whole seconds remain of 2 592 000;
		// the old seats line 2002 × 829 799 / 2 592 000 = 640.88… → 641 is
		// credited, the new one 4004 × … = 1281.76… → 1282 charged.
		{name: "ImmediateSeatsBySecond", usage: within, change: &contract.PreviewChange{Seats: intPtr(7), Effective: contract.EffectiveImmediately},
			now: time.Date(2026, 11, 21, 9, 30, 0, 900_000_000, time.UTC), wantStart: nov, wantEnd: dec, wantCur: "USD",
			wantLines: []contract.PreviewLine{basicPlan, basicSeats, sla,
				proration("Unused time on Seats beyond the 3 included from 21 Nov 2026 09:30:00 UTC", -641),
				proration("Remaining time on Seats beyond the 3 included from 21 Nov 2026 09:30:00 UTC", 1282)},
			wantTotal: 6902 - 641 + 1282},
		{name: "ErrUnknownPlan", usage: usage, change: &contract.PreviewChange{PlanID: "gold"}, now: half, wantFields: []string{"plan_id"}},
		{name: "ErrYearlyPlan", usage: usage, change: &contract.PreviewChange{PlanID: "yearly"}, now: half, wantFields: []string{"plan_id"}},
		{name: "ErrImmediateOtherCurrency", usage: usage, change: &contract.PreviewChange{PlanID: "euro", Modules: []string{}, Effective: contract.EffectiveImmediately},
			now: half, wantFields: []string{"plan_id"}},
		{name: "ErrModuleNotOffered", usage: usage, change: &contract.PreviewChange{Modules: []string{"collections.dunning"}}, now: half, wantFields: []string{"modules"}},
		{name: "ErrUnknownModule", usage: usage, change: &contract.PreviewChange{Modules: []string{"support.chat"}}, now: half, wantFields: []string{"modules"}},
		{name: "ErrKeptAddOnNotSoldByNewPlan", usage: usage, change: &contract.PreviewChange{PlanID: "euro", Modules: []string{"support.sla"}}, now: half, wantFields: []string{"modules"}},
		{name: "ErrSeatsBelowMembers", usage: usage, change: &contract.PreviewChange{Seats: intPtr(3)}, now: half, wantFields: []string{"seats"}},
		{name: "ErrPlanBelowMembers", usage: map[string]int64{catalog.FeatureSeats: 6}, change: &contract.PreviewChange{PlanID: "euro", Modules: []string{}}, now: half, wantFields: []string{"plan_id"}},
		{name: "ErrEffective", usage: usage, change: &contract.PreviewChange{Effective: "tomorrow"}, now: half, wantFields: []string{"effective"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(terms.AddOns)
			plansBefore := jsonString(cat.Plans)
			got, err := contract.ComputePreview(cat, terms, contract.Period{}, tc.usage, tc.change, tc.now)
			if !slices.Equal(terms.AddOns, before) {
				t.Fatalf("ComputePreview changed the contract's add-ons: got %v, want %v", terms.AddOns, before)
			}
			// The catalog's plans must come out unchanged.
			if after := jsonString(cat.Plans); after != plansBefore {
				t.Fatalf("ComputePreview changed the catalog's plans:\n got %s\nwant %s", after, plansBefore)
			}
			if tc.wantFields != nil {
				fields := fieldErrors(t, err)
				if got := slices.Sorted(maps.Keys(fields)); !slices.Equal(got, tc.wantFields) {
					t.Fatalf("invalid fields: got %v (%v), want %v", got, fields, tc.wantFields)
				}
				return
			}
			if err != nil {
				t.Fatalf("ComputePreview: %v", err)
			}
			if !slices.Equal(got.Lines, tc.wantLines) {
				t.Fatalf("lines:\n got %s\nwant %s", jsonString(got.Lines), jsonString(tc.wantLines))
			}
			if got.Subtotal != tc.wantTotal || got.Total != tc.wantTotal {
				t.Fatalf("subtotal/total: got %d/%d, want %d", got.Subtotal, got.Total, tc.wantTotal)
			}
			if got.Currency != tc.wantCur || !got.PeriodStart.Equal(tc.wantStart) || !got.PeriodEnd.Equal(tc.wantEnd) {
				t.Fatalf("currency and period: got %s %v–%v, want %s %v–%v",
					got.Currency, got.PeriodStart, got.PeriodEnd, tc.wantCur, tc.wantStart, tc.wantEnd)
			}
		})
	}
}

// TestComputePreviewProrationRule checks the proration arithmetic alone on
// one changed line, at instants across the period.
func TestComputePreviewProrationRule(t *testing.T) {
	cat := mustCatalog(t, previewCatalog)
	terms := contract.Terms{PlanID: "basic", Seats: 3}
	change := &contract.PreviewChange{Modules: []string{"support.sla"}, Effective: contract.EffectiveImmediately}
	tests := []struct {
		name string
		now  time.Time
		want int64 // the SLA charge: 1999 × whole seconds left / 2 592 000
	}{
		{"PeriodStart", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), 1999},
		{"Half", time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC), 1000},       // 999.5
		{"TenDaysLeft", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), 666}, // 666.33…
		{"FractionalSecondDropped", time.Date(2026, 11, 21, 0, 0, 0, 999_999_999, time.UTC), 666},
		{"LastHour", time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC), 3}, // 2.776…
		{"LastSecondRoundsToNothing", time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := contract.ComputePreview(cat, terms, contract.Period{}, nil, change, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			for _, l := range p.Lines {
				if l.Kind == contract.LineProration {
					got += l.Amount
				}
			}
			if got != tc.want {
				t.Fatalf("proration at %v: got %d, want %d (lines %s)", tc.now, got, tc.want, jsonString(p.Lines))
			}
			if p.Total != 2901+tc.want {
				t.Fatalf("total: got %d, want %d", p.Total, 2901+tc.want)
			}
		})
	}
}

func TestComputePreviewUnknownContractPlan(t *testing.T) {
	_, err := contract.ComputePreview(catalog.Default(), contract.Terms{PlanID: "gone", Seats: 1}, contract.Period{}, nil, nil, now())
	if !errors.Is(err, tenancy.ErrInvalid) {
		t.Fatalf("ComputePreview for a plan the catalog lacks: got %v, want ErrInvalid", err)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func intPtr(n int) *int { return &n }
