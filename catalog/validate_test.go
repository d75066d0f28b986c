package catalog_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
)

// doc is a catalog under construction, for breaking one rule at a time.
type doc struct {
	apps  []catalog.App
	plans []catalog.Plan
}

func TestNew_Validation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(d *doc)
		want   []catalog.Problem
	}{
		{
			name:   "ErrAppIDRequired",
			mutate: func(d *doc) { d.apps = append(d.apps, catalog.App{Name: "Nameless"}) },
			want:   []catalog.Problem{{Path: "apps[2].id", Message: "is required"}},
		},
		{
			name:   "ErrAppIDInvalid",
			mutate: func(d *doc) { d.apps = append(d.apps, catalog.App{ID: "Help", Name: "Help"}) },
			want: []catalog.Problem{{Path: "apps[2].id", Message: `"Help" must be lower-case letters, digits, '-' or '_', ` +
				"starting with a letter"}},
		},
		{
			name:   "ErrAppIDDuplicate",
			mutate: func(d *doc) { d.apps = append(d.apps, catalog.App{ID: "billing", Name: "Again"}) },
			want:   []catalog.Problem{{Path: "apps[2].id", Message: `duplicate app id "billing" (first at apps[0].id)`}},
		},
		{
			name:   "ErrAppNameRequired",
			mutate: func(d *doc) { d.apps[0].Name = " " },
			want:   []catalog.Problem{{Path: "apps[0].name", Message: "is required"}},
		},
		{
			name:   "ErrModuleIDRequired",
			mutate: func(d *doc) { d.apps[0].Modules = append(d.apps[0].Modules, catalog.Module{Name: "Nameless"}) },
			want:   []catalog.Problem{{Path: "apps[0].modules[2].id", Message: "is required"}},
		},
		{
			name: "ErrModuleIDPrefix",
			mutate: func(d *doc) {
				d.apps[0].Modules = append(d.apps[0].Modules, catalog.Module{ID: "help.more", Name: "More"})
			},
			want: []catalog.Problem{{Path: "apps[0].modules[2].id", Message: `"help.more" must start with its app id "billing."`}},
		},
		{
			name: "ErrModuleIDNameMissing",
			mutate: func(d *doc) {
				d.apps[0].Modules = append(d.apps[0].Modules, catalog.Module{ID: "billing.", Name: "Empty"})
			},
			want: []catalog.Problem{{Path: "apps[0].modules[2].id", Message: `"billing." must be "billing." followed by ` +
				"lower-case letters, digits, '-' or '_', starting with a letter"}},
		},
		{
			name: "ErrModuleIDDuplicate",
			mutate: func(d *doc) {
				d.apps[0].Modules = append(d.apps[0].Modules, catalog.Module{ID: "billing.core", Name: "Again"})
			},
			want: []catalog.Problem{{Path: "apps[0].modules[2].id", Message: `duplicate module id "billing.core" (first at apps[0].modules[0])`}},
		},
		{
			name:   "ErrModuleNameRequired",
			mutate: func(d *doc) { d.apps[1].Modules[0].Name = "" },
			want:   []catalog.Problem{{Path: "apps[1].modules[0].name", Message: "is required"}},
		},
		{
			name:   "ErrNoPlans",
			mutate: func(d *doc) { d.plans = nil },
			want:   []catalog.Problem{{Path: "plans", Message: "must have at least 1 item"}},
		},
		{
			name:   "ErrPlanIDRequired",
			mutate: func(d *doc) { d.plans[0].ID = "" },
			want:   []catalog.Problem{{Path: "plans[0].id", Message: "is required"}},
		},
		{
			name:   "ErrPlanIDInvalid",
			mutate: func(d *doc) { d.plans[0].ID = "pro plan" },
			want: []catalog.Problem{{Path: "plans[0].id", Message: `"pro plan" must be lower-case letters, digits, '-' or '_', ` +
				"starting with a letter"}},
		},
		{
			name:   "ErrPlanIDTooLong",
			mutate: func(d *doc) { d.plans[0].ID = strings.Repeat("p", 65) },
			want:   []catalog.Problem{{Path: "plans[0].id", Message: "must have at most 64 characters"}},
		},
		{
			name:   "ErrPlanIDDuplicate",
			mutate: func(d *doc) { d.plans[1].ID = "basic" },
			want:   []catalog.Problem{{Path: "plans[1].id", Message: `duplicate plan id "basic" (first at plans[0].id)`}},
		},
		{
			name:   "ErrPlanNameRequired",
			mutate: func(d *doc) { d.plans[1].Name = "" },
			want:   []catalog.Problem{{Path: "plans[1].name", Message: "is required"}},
		},
		{
			name:   "ErrCurrencyLowerCase",
			mutate: func(d *doc) { d.plans[0].Currency = "eur" },
			want:   []catalog.Problem{{Path: "plans[0].currency", Message: "currency codes are upper case: EUR"}},
		},
		{
			name:   "ErrCurrencyLength",
			mutate: func(d *doc) { d.plans[0].Currency = "EURO" },
			want:   []catalog.Problem{{Path: "plans[0].currency", Message: "must be a three-letter ISO 4217 currency code such as USD"}},
		},
		{
			name:   "ErrCurrencyRetired",
			mutate: func(d *doc) { d.plans[0].Currency = "HRK" },
			want:   []catalog.Problem{{Path: "plans[0].currency", Message: "HRK is not an active ISO 4217 currency (ISO 4217 list one, published 2024-06-25)"}},
		},
		{
			name:   "ErrCurrencyNoMinorUnit",
			mutate: func(d *doc) { d.plans[0].Currency = "XAU" },
			want:   []catalog.Problem{{Path: "plans[0].currency", Message: "XAU (Gold) has no minor unit in ISO 4217, so no amount can be counted in it"}},
		},
		{
			name:   "ErrInterval",
			mutate: func(d *doc) { d.plans[1].Interval = "week" },
			want:   []catalog.Problem{{Path: "plans[1].interval", Message: "must be one of: month, year"}},
		},
		{
			name:   "ErrBasePriceNegative",
			mutate: func(d *doc) { d.plans[0].BasePrice = -1 },
			want:   []catalog.Problem{{Path: "plans[0].base_price", Message: "must be at least 0"}},
		},
		{
			name:   "ErrIncludedSeatsNegative",
			mutate: func(d *doc) { d.plans[1].IncludedSeats = -2 },
			want:   []catalog.Problem{{Path: "plans[1].included_seats", Message: "must be at least 0"}},
		},
		{
			name:   "ErrSeatPriceNegative",
			mutate: func(d *doc) { d.plans[0].SeatPrice = -3 },
			want:   []catalog.Problem{{Path: "plans[0].seat_price", Message: "must be at least 0"}},
		},
		{
			name:   "ErrPlanModuleUnknown",
			mutate: func(d *doc) { d.plans[1].Modules[0] = "support.foo" },
			want:   []catalog.Problem{{Path: "plans[1].modules[0]", Message: `unknown module "support.foo"`}},
		},
		{
			name:   "ErrPlanModuleEmpty",
			mutate: func(d *doc) { d.plans[0].Modules[0] = "" },
			want:   []catalog.Problem{{Path: "plans[0].modules[0]", Message: "is required"}},
		},
		{
			name:   "ErrPlanModuleTwice",
			mutate: func(d *doc) { d.plans[0].Modules = append(d.plans[0].Modules, "billing.core") },
			want:   []catalog.Problem{{Path: "plans[0].modules[1]", Message: `module "billing.core" listed twice`}},
		},
		{
			name:   "ErrAddOnUnknown",
			mutate: func(d *doc) { d.plans[0].AddOns[0].Module = "help.phone" },
			want:   []catalog.Problem{{Path: "plans[0].add_ons[0].module", Message: `unknown module "help.phone"`}},
		},
		{
			name:   "ErrAddOnIncluded",
			mutate: func(d *doc) { d.plans[0].AddOns[0].Module = "billing.core" },
			want:   []catalog.Problem{{Path: "plans[0].add_ons[0].module", Message: `module "billing.core" is already included in the plan`}},
		},
		{
			name: "ErrAddOnTwice",
			mutate: func(d *doc) {
				d.plans[0].AddOns = append(d.plans[0].AddOns, catalog.AddOn{Module: "help.chat", Price: 1})
			},
			want: []catalog.Problem{{Path: "plans[0].add_ons[1].module", Message: `module "help.chat" offered twice`}},
		},
		{
			name:   "ErrAddOnPriceNegative",
			mutate: func(d *doc) { d.plans[0].AddOns[0].Price = -300 },
			want:   []catalog.Problem{{Path: "plans[0].add_ons[0].price", Message: "must be at least 0"}},
		},
		{
			name:   "ErrLimitUnknownFeature",
			mutate: func(d *doc) { d.plans[0].Limits["support.foo"] = ptr(1) },
			want: []catalog.Problem{{Path: `plans[0].limits["support.foo"]`,
				Message: "unknown feature (want one of collections.invoices, support.tickets, seats)"}},
		},
		{
			name:   "ErrLimitNegative",
			mutate: func(d *doc) { d.plans[0].Limits[catalog.FeatureTickets] = ptr(-1) },
			want:   []catalog.Problem{{Path: `plans[0].limits["support.tickets"]`, Message: "must be at least 0"}},
		},
		{
			name:   "ErrLimitMissing",
			mutate: func(d *doc) { delete(d.plans[1].Limits, catalog.FeatureSeats) },
			want:   []catalog.Problem{{Path: "plans[1].limits", Message: `missing feature "seats" (use null for unlimited)`}},
		},
		{
			name:   "ErrSeatLimitBelowIncluded",
			mutate: func(d *doc) { d.plans[0].Limits[catalog.FeatureSeats] = ptr(1) },
			want:   []catalog.Problem{{Path: `plans[0].limits["seats"]`, Message: "1 is below included_seats 2"}},
		},
		{
			name:   "ErrOverageNotMetered",
			mutate: func(d *doc) { d.plans[0].Overage[catalog.FeatureSeats] = 100 },
			want: []catalog.Problem{{Path: `plans[0].overage["seats"]`,
				Message: "not a metered feature (want collections.invoices or support.tickets)"}},
		},
		{
			name:   "ErrOverageUnknownFeature",
			mutate: func(d *doc) { d.plans[0].Overage["support.sla"] = 100 },
			want: []catalog.Problem{{Path: `plans[0].overage["support.sla"]`,
				Message: "not a metered feature (want collections.invoices or support.tickets)"}},
		},
		{
			name:   "ErrOverageNegative",
			mutate: func(d *doc) { d.plans[0].Overage[catalog.FeatureInvoices] = -15 },
			want:   []catalog.Problem{{Path: `plans[0].overage["collections.invoices"]`, Message: "must be at least 0"}},
		},
		{
			name:   "ErrOverageUnlimited",
			mutate: func(d *doc) { d.plans[1].Overage = map[string]int64{catalog.FeatureTickets: 5} },
			want: []catalog.Problem{{Path: `plans[1].overage["support.tickets"]`,
				Message: "feature is unlimited in this plan, so overage never applies"}},
		},
		{
			name:   "ErrModuleNameBlank",
			mutate: func(d *doc) { d.apps[1].Modules[0].Name = " \t" },
			want:   []catalog.Problem{{Path: "apps[1].modules[0].name", Message: "is required"}},
		},
		{
			name: "ErrModuleIDTooLong",
			mutate: func(d *doc) {
				d.apps[0].Modules[1].ID = "billing." + strings.Repeat("x", 57)
				d.plans[1].Modules[1] = d.apps[0].Modules[1].ID
			},
			want: []catalog.Problem{{Path: "apps[0].modules[1].id", Message: "must have at most 64 characters"}},
		},
		{
			name: "ErrAppIDTooLong",
			mutate: func(d *doc) {
				d.apps = append(d.apps, catalog.App{ID: strings.Repeat("a", 65), Name: "Long",
					Modules: []catalog.Module{{ID: "other.module", Name: "Other"}}})
			},
			want: []catalog.Problem{{Path: "apps[2].id", Message: "must have at most 64 characters"}},
		},
		{
			name:   "ErrLimitsMissingTwo",
			mutate: func(d *doc) { d.plans[1].Limits = map[string]*int64{catalog.FeatureTickets: nil} },
			want: []catalog.Problem{
				{Path: "plans[1].limits", Message: `missing feature "collections.invoices" (use null for unlimited)`},
				{Path: "plans[1].limits", Message: `missing feature "seats" (use null for unlimited)`},
			},
		},
		{
			name:   "ErrLimitUnknownAndNegative",
			mutate: func(d *doc) { d.plans[0].Limits[`a"b`] = ptr(-1) },
			want: []catalog.Problem{{Path: `plans[0].limits["a\"b"]`,
				Message: "unknown feature (want one of collections.invoices, support.tickets, seats)"}},
		},
		{
			name:   "ErrSeatLimitNegative",
			mutate: func(d *doc) { d.plans[0].Limits[catalog.FeatureSeats] = ptr(-1) },
			want:   []catalog.Problem{{Path: `plans[0].limits["seats"]`, Message: "must be at least 0"}},
		},
		{
			name:   "ErrOverageNegativeNotMetered",
			mutate: func(d *doc) { d.plans[0].Overage[catalog.FeatureSeats] = -1 },
			want: []catalog.Problem{{Path: `plans[0].overage["seats"]`,
				Message: "not a metered feature (want collections.invoices or support.tickets)"}},
		},
		{
			name: "ErrOnePlanInOrder",
			mutate: func(d *doc) {
				d.plans[0].ID, d.plans[0].BasePrice = "Basic", -1
				d.plans[0].Modules = []string{"", "billing.nope"}
				d.plans[0].AddOns[0] = catalog.AddOn{Price: -1}
			},
			want: []catalog.Problem{ // its values' own rules, then its references
				{Path: "plans[0].base_price", Message: "must be at least 0"},
				{Path: "plans[0].modules[0]", Message: "is required"},
				{Path: "plans[0].add_ons[0].module", Message: "is required"},
				{Path: "plans[0].add_ons[0].price", Message: "must be at least 0"},
				{Path: "plans[0].id", Message: `"Basic" must be lower-case letters, digits, '-' or '_', starting with a letter`},
				{Path: "plans[0].modules[1]", Message: `unknown module "billing.nope"`},
			},
		},
		{
			name: "ErrMapEntriesInKeyOrder",
			mutate: func(d *doc) {
				d.plans[0].Overage = map[string]int64{catalog.FeatureTickets: -2, catalog.FeatureInvoices: -1}
				d.plans[0].Limits[catalog.FeatureTickets] = ptr(-1)
				d.plans[0].Limits["support.zzz"] = ptr(1)
				d.plans[0].Limits[catalog.FeatureInvoices] = ptr(-1)
				delete(d.plans[0].Limits, catalog.FeatureSeats)
			},
			want: []catalog.Problem{
				{Path: `plans[0].limits["collections.invoices"]`, Message: "must be at least 0"},
				{Path: `plans[0].limits["support.tickets"]`, Message: "must be at least 0"},
				{Path: `plans[0].limits["support.zzz"]`, Message: "unknown feature (want one of collections.invoices, support.tickets, seats)"},
				{Path: "plans[0].limits", Message: `missing feature "seats" (use null for unlimited)`},
				{Path: `plans[0].overage["collections.invoices"]`, Message: "must be at least 0"},
				{Path: `plans[0].overage["support.tickets"]`, Message: "must be at least 0"},
			},
		},
		{
			name: "ErrSeveral",
			mutate: func(d *doc) {
				d.plans[0].Currency = "usd"
				d.plans[1].Interval = ""
				d.plans[1].Modules[2] = "support.foo"
			},
			want: []catalog.Problem{
				{Path: "plans[0].currency", Message: "currency codes are upper case: USD"},
				{Path: "plans[1].interval", Message: "is required"},
				{Path: "plans[1].modules[2]", Message: `unknown module "support.foo"`},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apps, plans := fixture()
			d := &doc{apps: apps, plans: plans}
			tc.mutate(d)

			c, err := catalog.New(d.apps, d.plans)
			if err == nil {
				t.Fatalf("New() = %v, nil; want a validation error", c)
			}
			var verr *catalog.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("New() error = %v (%T), want a *ValidationError", err, err)
			}
			if !slices.Equal(verr.Problems, tc.want) {
				t.Errorf("problems:\n got %q\nwant %q", verr.Problems, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "catalog: invalid catalog") {
				t.Errorf("error = %q, want it to start with %q", err, "catalog: invalid catalog")
			}
			for _, p := range tc.want {
				if !strings.Contains(err.Error(), p.String()) {
					t.Errorf("error = %q, want it to contain %q", err, p.String())
				}
			}
		})
	}
}

func TestNew_OK(t *testing.T) {
	apps, plans := fixture()
	c := mustNew(t, apps, plans)
	if got, want := len(c.Plans), 2; got != want {
		t.Fatalf("len(Plans) = %d, want %d", got, want)
	}
}

func TestValidationError_Error(t *testing.T) {
	for _, tc := range []struct {
		name     string
		problems []catalog.Problem
		want     string
	}{
		{
			name:     "One",
			problems: []catalog.Problem{{Path: "plans[0].id", Message: "is required"}},
			want:     "invalid catalog: plans[0].id: is required",
		},
		{
			name: "Two",
			problems: []catalog.Problem{
				{Path: "plans[0].id", Message: "is required"},
				{Path: "plans[1].name", Message: "is required"},
			},
			want: "invalid catalog (2 problems): plans[0].id: is required; plans[1].name: is required",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := &catalog.ValidationError{Problems: tc.problems}
			if got := err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}
