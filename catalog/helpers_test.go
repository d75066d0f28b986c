package catalog_test

import (
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
)

// fixture returns a small valid catalog's apps and plans, fresh on each call so
// that a test case can break one rule without affecting the others.
func fixture() ([]catalog.App, []catalog.Plan) {
	apps := []catalog.App{
		{
			ID: "billing", Name: "Billing",
			Modules: []catalog.Module{
				{ID: "billing.core", Name: "Core"},
				{ID: "billing.extra", Name: "Extra", Toggleable: true},
			},
		},
		{
			ID: "help", Name: "Help",
			Modules: []catalog.Module{
				{ID: "help.chat", Name: "Chat", Toggleable: true},
			},
		},
	}
	plans := []catalog.Plan{
		{
			ID: "basic", Name: "Basic", Currency: "EUR", Interval: catalog.IntervalMonth,
			BasePrice: 1000, IncludedSeats: 2, SeatPrice: 500,
			Modules: []string{"billing.core"},
			Limits: map[string]*int64{
				catalog.FeatureInvoices: ptr(10),
				catalog.FeatureTickets:  ptr(5),
				catalog.FeatureSeats:    ptr(4),
			},
			AddOns:  []catalog.AddOn{{Module: "help.chat", Price: 300}},
			Overage: map[string]int64{catalog.FeatureInvoices: 15},
		},
		{
			ID: "max", Name: "Max", Currency: "EUR", Interval: catalog.IntervalYear,
			BasePrice: 100000, IncludedSeats: 20, SeatPrice: 4000,
			Modules: []string{"billing.core", "billing.extra", "help.chat"},
			Limits: map[string]*int64{
				catalog.FeatureInvoices: nil,
				catalog.FeatureTickets:  nil,
				catalog.FeatureSeats:    nil,
			},
		},
	}
	return apps, plans
}

// mustNew builds a catalog from apps and plans or fails the test.
func mustNew(tb testing.TB, apps []catalog.App, plans []catalog.Plan) *catalog.Catalog {
	tb.Helper()
	c, err := catalog.New(apps, plans)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return c
}

// mustParse parses data or fails the test.
func mustParse(tb testing.TB, data string) *catalog.Catalog {
	tb.Helper()
	c, err := catalog.Parse([]byte(data))
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	return c
}

// mustPlan looks up a plan or fails the test.
func mustPlan(tb testing.TB, c *catalog.Catalog, id string) catalog.Plan {
	tb.Helper()
	p, ok := c.Plan(id)
	if !ok {
		tb.Fatalf("Plan(%q) not found", id)
	}
	return p
}

func ptr(n int64) *int64 { return &n }

// mustFixture builds the catalog of fixture or fails the test.
func mustFixture(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	apps, plans := fixture()
	return mustNew(tb, apps, plans)
}
