package catalog_test

import (
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
)

func TestDefault(t *testing.T) {
	c := catalog.Default() // panics if the embedded default.json is invalid

	t.Run("Apps", func(t *testing.T) {
		for app, modules := range map[string][]string{
			catalog.AppCollections: {catalog.ModuleInvoices, catalog.ModuleReminders, catalog.ModuleDunning},
			catalog.AppSupport:     {catalog.ModuleTickets, catalog.ModuleSLA, catalog.ModuleCSAT},
		} {
			a, ok := c.App(app)
			if !ok {
				t.Errorf("App(%q) not found", app)
				continue
			}
			var got []string
			for _, m := range a.Modules {
				got = append(got, m.ID)
			}
			if !slices.Equal(got, modules) {
				t.Errorf("App(%q) modules = %q, want %q", app, got, modules)
			}
		}
	})

	t.Run("Toggleable", func(t *testing.T) {
		for id, want := range map[string]bool{
			catalog.ModuleInvoices:  false,
			catalog.ModuleReminders: true,
			catalog.ModuleDunning:   true,
			catalog.ModuleTickets:   true,
			catalog.ModuleSLA:       true,
			catalog.ModuleCSAT:      true,
		} {
			m, ok := c.Module(id)
			if !ok || m.Toggleable != want {
				t.Errorf("Module(%q) = %+v, %v; want toggleable %v", id, m, ok, want)
			}
		}
	})

	t.Run("FeaturesAreModules", func(t *testing.T) {
		for _, f := range catalog.Features() {
			if _, ok := c.Module(f); catalog.Metered(f) && !ok {
				t.Errorf("metered feature %q names no module", f)
			}
		}
	})

	t.Run("Plans", func(t *testing.T) {
		var ids []string
		for _, p := range c.Plans {
			ids = append(ids, p.ID)
		}
		want := []string{catalog.PlanFree, catalog.PlanStarter, catalog.PlanGrowth, catalog.PlanEnterprise}
		if !slices.Equal(ids, want) {
			t.Fatalf("plan ids = %q, want %q", ids, want)
		}
		ticketsToggleable := false
		for _, p := range c.Plans {
			if p.Currency != "USD" || p.Interval != catalog.IntervalMonth {
				t.Errorf("plan %s: %s per %s, want USD per month", p.ID, p.Currency, p.Interval)
			}
			if !p.Includes(catalog.ModuleInvoices) || !p.Includes(catalog.ModuleTickets) {
				t.Errorf("plan %s modules = %q, want invoices and tickets included", p.ID, p.Modules)
			}
			if !slices.ContainsFunc(p.Modules, func(m string) bool { return c.Toggleable(p, m) }) {
				t.Errorf("plan %s includes no toggleable module", p.ID)
			}
			ticketsToggleable = ticketsToggleable || c.Toggleable(p, catalog.ModuleTickets)
			for _, f := range catalog.Features() {
				if _, _, ok := p.Limit(f); !ok {
					t.Errorf("plan %s has no limit for %q", p.ID, f)
				}
			}
		}
		if !ticketsToggleable {
			t.Errorf("%q is toggleable on no plan", catalog.ModuleTickets)
		}
	})

	t.Run("Starter", func(t *testing.T) {
		p := mustPlan(t, c, catalog.PlanStarter)
		if p.BasePrice != 2900 || p.IncludedSeats != 3 || p.SeatPrice != 900 {
			t.Errorf("starter = base %d, %d seats, seat %d; want 2900, 3, 900", p.BasePrice, p.IncludedSeats, p.SeatPrice)
		}
		for _, tc := range []struct {
			feature   string
			limit     int64
			unlimited bool
		}{
			{catalog.FeatureInvoices, 100, false},
			{catalog.FeatureTickets, 25, false},
			{catalog.FeatureSeats, 0, true},
		} {
			if limit, unlimited, _ := p.Limit(tc.feature); limit != tc.limit || unlimited != tc.unlimited {
				t.Errorf("starter Limit(%q) = %d, %v; want %d, %v", tc.feature, limit, unlimited, tc.limit, tc.unlimited)
			}
		}
		if a, ok := p.AddOn(catalog.ModuleSLA); !ok || a.Price != 1900 {
			t.Errorf("starter AddOn(sla) = %+v, %v; want price 1900", a, ok)
		}
		if price, _ := p.OveragePrice(catalog.FeatureInvoices); price != 20 {
			t.Errorf("starter invoice overage = %d, want 20", price)
		}
		if price, _ := p.OveragePrice(catalog.FeatureTickets); price != 50 {
			t.Errorf("starter ticket overage = %d, want 50", price)
		}
		if !c.Toggleable(p, catalog.ModuleSLA) || c.Toggleable(p, catalog.ModuleInvoices) || c.Toggleable(p, catalog.ModuleCSAT) {
			t.Error("starter toggleable: want sla (add-on) yes, invoices (fixed) no, csat (not offered) no")
		}
	})

	t.Run("Enterprise", func(t *testing.T) {
		p := mustPlan(t, c, catalog.PlanEnterprise)
		for _, f := range catalog.Features() {
			if _, unlimited, _ := p.Limit(f); !unlimited {
				t.Errorf("enterprise Limit(%q) not unlimited", f)
			}
		}
	})

	t.Run("FreshPerCall", func(t *testing.T) {
		other := catalog.Default()
		other.Plans[0].BasePrice = 123456
		if got := catalog.Default().Plans[0].BasePrice; got == 123456 {
			t.Error("Default() shares state between calls")
		}
	})
}
