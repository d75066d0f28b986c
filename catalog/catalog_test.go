package catalog_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
)

func TestCatalog_Plan(t *testing.T) {
	c := mustFixture(t)
	for _, tc := range []struct {
		id     string
		wantOK bool
	}{
		{"basic", true},
		{"max", true},
		{"missing", false},
		{"", false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			p, ok := c.Plan(tc.id)
			if ok != tc.wantOK {
				t.Fatalf("Plan(%q) ok = %v, want %v", tc.id, ok, tc.wantOK)
			}
			if ok && p.ID != tc.id {
				t.Errorf("Plan(%q).ID = %q", tc.id, p.ID)
			}
		})
	}
}

func TestCatalog_AppAndModule(t *testing.T) {
	c := mustFixture(t)

	t.Run("App", func(t *testing.T) {
		a, ok := c.App("help")
		if !ok {
			t.Fatal(`App("help") not found`)
		}
		if got, want := len(a.Modules), 1; got != want {
			t.Errorf("len(Modules) = %d, want %d", got, want)
		}
		if _, ok := c.App("help.chat"); ok {
			t.Error(`App("help.chat") found, want not found`)
		}
	})

	t.Run("Module", func(t *testing.T) {
		m, ok := c.Module("billing.extra")
		if !ok {
			t.Fatal(`Module("billing.extra") not found`)
		}
		if want := (catalog.Module{ID: "billing.extra", Name: "Extra", Toggleable: true}); m != want {
			t.Errorf("Module() = %+v, want %+v", m, want)
		}
		if _, ok := c.Module("billing"); ok {
			t.Error(`Module("billing") found, want not found`)
		}
	})

	t.Run("ZeroCatalog", func(t *testing.T) {
		var zero catalog.Catalog
		if _, ok := zero.Plan("basic"); ok {
			t.Error("zero Catalog found a plan")
		}
		if _, ok := zero.Module("billing.core"); ok {
			t.Error("zero Catalog found a module")
		}
	})
}

func TestCatalog_LookupsReturnCopies(t *testing.T) {
	c := mustFixture(t)

	p := mustPlan(t, c, "basic")
	p.Modules[0] = "changed"
	*p.Limits[catalog.FeatureInvoices] = 999
	p.AddOns[0].Price = 0
	p.Overage[catalog.FeatureInvoices] = 0
	a, _ := c.App("billing")
	a.Modules[0].Name = "changed"

	again := mustPlan(t, c, "basic")
	if got, want := again.Modules[0], "billing.core"; got != want {
		t.Errorf("Modules[0] = %q after a caller modified its copy, want %q", got, want)
	}
	if got, _, _ := again.Limit(catalog.FeatureInvoices); got != 10 {
		t.Errorf("invoices limit = %d after a caller modified its copy, want 10", got)
	}
	if got := again.AddOns[0].Price; got != 300 {
		t.Errorf("add-on price = %d after a caller modified its copy, want 300", got)
	}
	if got, _ := again.OveragePrice(catalog.FeatureInvoices); got != 15 {
		t.Errorf("overage = %d after a caller modified its copy, want 15", got)
	}
	if m, _ := c.Module("billing.core"); m.Name != "Core" {
		t.Errorf("module name = %q after a caller modified its copy, want %q", m.Name, "Core")
	}
}

func TestNew_CopiesInput(t *testing.T) {
	apps, plans := fixture()
	c := mustNew(t, apps, plans)
	before := c.Digest()
	plans[0].BasePrice = 1
	plans[0].Modules[0] = "help.chat"
	*plans[0].Limits[catalog.FeatureSeats] = 0
	apps[0].Modules[0].Toggleable = true
	if p := mustPlan(t, c, "basic"); p.BasePrice != 1000 || p.Modules[0] != "billing.core" {
		t.Errorf("plan = %+v, changed with the caller's input", p)
	}
	if m, _ := c.Module("billing.core"); m.Toggleable {
		t.Error("module changed with the caller's input")
	}
	if got := c.Digest(); got != before {
		t.Errorf("Digest() = %s, changed from %s with the caller's input", got, before)
	}
}

func TestPlan_Includes(t *testing.T) {
	p := mustPlan(t, mustFixture(t), "basic")
	for _, tc := range []struct {
		module string
		want   bool
	}{
		{"billing.core", true},
		{"help.chat", false}, // an add-on, not included
		{"billing.extra", false},
		{"unknown.module", false},
	} {
		t.Run(tc.module, func(t *testing.T) {
			if got := p.Includes(tc.module); got != tc.want {
				t.Errorf("Includes(%q) = %v, want %v", tc.module, got, tc.want)
			}
		})
	}
}

func TestPlan_Limit(t *testing.T) {
	c := mustFixture(t)
	for _, tc := range []struct {
		plan, feature string
		limit         int64
		unlimited, ok bool
	}{
		{"basic", catalog.FeatureInvoices, 10, false, true},
		{"basic", catalog.FeatureTickets, 5, false, true},
		{"basic", catalog.FeatureSeats, 4, false, true},
		{"max", catalog.FeatureInvoices, 0, true, true},
		{"max", catalog.FeatureSeats, 0, true, true},
		{"basic", "support.sla", 0, false, false},
	} {
		t.Run(tc.plan+"/"+tc.feature, func(t *testing.T) {
			limit, unlimited, ok := mustPlan(t, c, tc.plan).Limit(tc.feature)
			if limit != tc.limit || unlimited != tc.unlimited || ok != tc.ok {
				t.Errorf("Limit(%q) = %d, %v, %v; want %d, %v, %v",
					tc.feature, limit, unlimited, ok, tc.limit, tc.unlimited, tc.ok)
			}
		})
	}
}

func TestPlan_AddOnAndOverage(t *testing.T) {
	c := mustFixture(t)
	basic, maxPlan := mustPlan(t, c, "basic"), mustPlan(t, c, "max")

	t.Run("AddOn", func(t *testing.T) {
		a, ok := basic.AddOn("help.chat")
		if want := (catalog.AddOn{Module: "help.chat", Price: 300}); !ok || a != want {
			t.Errorf(`AddOn("help.chat") = %+v, %v; want %+v, true`, a, ok, want)
		}
		if _, ok := basic.AddOn("billing.core"); ok {
			t.Error(`AddOn("billing.core") found; it is included, not an add-on`)
		}
		if _, ok := maxPlan.AddOn("help.chat"); ok {
			t.Error(`maxPlan.AddOn("help.chat") found, want not found`)
		}
	})

	t.Run("OveragePrice", func(t *testing.T) {
		if price, ok := basic.OveragePrice(catalog.FeatureInvoices); !ok || price != 15 {
			t.Errorf("OveragePrice(invoices) = %d, %v; want 15, true", price, ok)
		}
		if _, ok := basic.OveragePrice(catalog.FeatureTickets); ok {
			t.Error("OveragePrice(tickets) found, want none (a hard limit)")
		}
	})
}

func TestCatalog_Toggleable(t *testing.T) {
	c := mustFixture(t)
	for _, tc := range []struct {
		plan, module string
		want         bool
	}{
		{"basic", "billing.core", false},  // included, not toggleable
		{"basic", "help.chat", true},      // toggleable add-on
		{"basic", "billing.extra", false}, // toggleable, neither included nor sold
		{"max", "billing.extra", true},    // toggleable, included
		{"max", "billing.core", false},
		{"max", "nope.nope", false},
	} {
		t.Run(tc.plan+"/"+tc.module, func(t *testing.T) {
			if got := c.Toggleable(mustPlan(t, c, tc.plan), tc.module); got != tc.want {
				t.Errorf("Toggleable(%s, %q) = %v, want %v", tc.plan, tc.module, got, tc.want)
			}
		})
	}
}

func TestCatalog_Digest(t *testing.T) {
	t.Run("HexSHA256OfJSON", func(t *testing.T) {
		c := mustFixture(t)
		sum := sha256.Sum256(c.JSON())
		if got, want := c.Digest(), hex.EncodeToString(sum[:]); got != want {
			t.Errorf("Digest() = %s, want %s", got, want)
		}
		if len(c.Digest()) != 64 {
			t.Errorf("len(Digest()) = %d, want 64", len(c.Digest()))
		}
	})

	t.Run("StableAcrossLoads", func(t *testing.T) {
		first := catalog.Default().Digest()
		for range 5 {
			if got := catalog.Default().Digest(); got != first {
				t.Fatalf("Digest() = %s, want %s as on the first load", got, first)
			}
		}
		if got, want := mustFixture(t).Digest(), mustFixture(t).Digest(); got != want {
			t.Errorf("Digest() = %s, want %s for the same content", got, want)
		}
	})

	t.Run("IgnoresFormatting", func(t *testing.T) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(minimal)); err != nil {
			t.Fatal(err)
		}
		if got, want := mustParse(t, compact.String()).Digest(), mustParse(t, minimal).Digest(); got != want {
			t.Errorf("Digest() of compacted document = %s, want %s", got, want)
		}
	})

	t.Run("ChangesWithContent", func(t *testing.T) {
		base := mustFixture(t).Digest()
		for name, mutate := range map[string]func(d *doc){
			"price":       func(d *doc) { d.plans[0].BasePrice++ },
			"limit":       func(d *doc) { *d.plans[0].Limits[catalog.FeatureTickets] = 6 },
			"unlimited":   func(d *doc) { d.plans[0].Limits[catalog.FeatureTickets] = nil },
			"toggleable":  func(d *doc) { d.apps[0].Modules[0].Toggleable = true },
			"description": func(d *doc) { d.apps[1].Description = "Talk to us." },
			"order":       func(d *doc) { d.plans[0], d.plans[1] = d.plans[1], d.plans[0] },
		} {
			t.Run(name, func(t *testing.T) {
				apps, plans := fixture()
				d := &doc{apps: apps, plans: plans}
				mutate(d)
				if got := mustNew(t, d.apps, d.plans).Digest(); got == base {
					t.Errorf("Digest() = %s, unchanged after changing the %s", got, name)
				}
			})
		}
	})
}

func TestCatalog_JSON(t *testing.T) {
	c := mustFixture(t)
	b := c.JSON()
	b[0] = 'x'
	if got := c.JSON(); got[0] != '{' {
		t.Fatalf("JSON() changed after a caller modified its result: %q", got[:10])
	}
	again := mustParse(t, string(c.JSON()))
	if got, want := again.Digest(), c.Digest(); got != want {
		t.Errorf("Digest() of re-parsed JSON() = %s, want %s", got, want)
	}
	var decoded map[string]any
	if err := json.Unmarshal(c.JSON(), &decoded); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(decoded))
	for k := range decoded {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"apps", "plans"}; !slices.Equal(keys, want) {
		t.Errorf("JSON() keys = %q, want %q", keys, want)
	}
	// A plan with nothing to sell omits add_ons and overage but always lists
	// modules and limits.
	plan := decoded["plans"].([]any)[1].(map[string]any)
	for _, k := range []string{"add_ons", "overage"} {
		if _, ok := plan[k]; ok {
			t.Errorf("plans[1] has %q, want it omitted when empty", k)
		}
	}
	if limits := plan["limits"].(map[string]any); limits[catalog.FeatureSeats] != nil {
		t.Errorf("plans[1].limits.seats = %v, want null", limits[catalog.FeatureSeats])
	}
}
