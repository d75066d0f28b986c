// Package catalog holds the platform's public catalog: the apps a tenant can use,
// the modules each app is made of, and the plans that bundle modules with prices
// and entitlement limits.
//
// The catalog is plain data at the bottom of the dependency graph: tenancy reads
// plan limits and toggleable modules from it, billing prices contracts with it,
// and the HTTP edge serves it. A Catalog is built once (Default, Load, Parse or
// New), validated as a whole, and read-only afterwards; lookups return copies so
// that no caller can change what another one sees.
package catalog

import (
	"maps"
	"slices"
)

// Catalog is a validated set of apps and plans, as served by
// GET /api/catalog/public. Build one with Default, Load, Parse or New: the lookup
// indexes and the digest are computed there, so a Catalog written as a literal
// finds nothing. Apps and Plans are exported for encoding; treat them as
// read-only.
type Catalog struct {
	// Apps lists the apps of the platform, each with its modules.
	Apps []App `json:"apps"`
	// Plans lists the plans a tenant can subscribe to.
	Plans []Plan `json:"plans"`

	apps      map[string]int       // app id -> index in Apps
	modules   map[string]moduleRef // module id -> position in Apps
	plans     map[string]int       // plan id -> index in Plans
	canonical []byte               // canonical JSON encoding
	digest    string               // hex SHA-256 of canonical
}

// moduleRef locates a module inside Catalog.Apps.
type moduleRef struct{ app, module int }

// App is a product area of the platform (collections, support) made of modules.
// The validate tags of the catalog's types are the rules of each value (see
// package field); the rules between values, such as unique ids and known
// modules, are checked in validate.go.
type App struct {
	// ID identifies the app ("collections"); it prefixes the ids of its modules.
	// Ids are lower-case letters, digits, '-' or '_', starting with a letter,
	// and at most 64 characters: they travel in URLs, query parameters and
	// metric labels.
	ID string `json:"id" validate:"required,max=64"`
	// Name is the display name.
	Name string `json:"name" validate:"required"`
	// Description says what the app is for, for people choosing a plan.
	Description string `json:"description"`
	// Modules lists the app's modules.
	Modules []Module `json:"modules" validate:"dive"`
}

// Module is a unit of functionality that a plan includes or sells as an add-on,
// and that a tenant may switch on and off when it is toggleable.
type Module struct {
	// ID is "<app id>.<name>", e.g. "support.sla", at most 64 characters.
	ID string `json:"id" validate:"required,max=64"`
	// Name is the display name.
	Name string `json:"name" validate:"required"`
	// Description says what the module does.
	Description string `json:"description"`
	// Toggleable reports whether a tenant may enable and disable the module
	// itself; a module that is not toggleable is always on when the plan has it.
	Toggleable bool `json:"toggleable"`
}

// Interval values of Plan.Interval: how often a plan's prices are charged.
const (
	IntervalMonth = "month"
	IntervalYear  = "year"
)

// Plan is what a tenant subscribes to: a recurring price, a number of seats,
// the modules it includes, the add-ons it sells, and the limits of each feature.
// All amounts are integers in the minor unit of Currency.
type Plan struct {
	// ID identifies the plan ("starter"), in the form of an app's id.
	ID string `json:"id" validate:"required,max=64"`
	// Name is the display name.
	Name string `json:"name" validate:"required"`
	// Currency is the ISO 4217 code of every amount in the plan ("USD"): an
	// active currency with a minor unit, or the plan could never be invoiced.
	Currency string `json:"currency" validate:"required,currency"`
	// Interval is the billing period: IntervalMonth or IntervalYear.
	Interval string `json:"interval" validate:"required,oneof=month year"`
	// BasePrice is charged every interval and covers IncludedSeats.
	BasePrice int64 `json:"base_price" validate:"min=0"`
	// IncludedSeats is the number of members covered by BasePrice.
	IncludedSeats int `json:"included_seats" validate:"min=0"`
	// SeatPrice is charged every interval for each member beyond IncludedSeats.
	SeatPrice int64 `json:"seat_price" validate:"min=0"`
	// Modules lists the ids of the modules included in the plan and enabled by
	// default.
	Modules []string `json:"modules" validate:"dive,required"`
	// Limits maps every feature (see Features) to its limit: per calendar month
	// for metered features, at any time for seats. A nil value means unlimited.
	Limits map[string]*int64 `json:"limits"`
	// AddOns lists the modules, not included in the plan, that a tenant may add
	// for a price.
	AddOns []AddOn `json:"add_ons,omitempty" validate:"dive"`
	// Overage maps a metered feature to the unit price billed for each unit used
	// beyond the plan's limit. Limits are always enforced as caps; a tenant can
	// only use more than its plan includes when an operator raises its limit
	// (`server limit set`), and the invoice preview bills that excess here.
	Overage map[string]int64 `json:"overage,omitempty"`
	// PaymentTermsDays is how many days after its period's end the
	// platform's invoice to a tenant on the plan is due; 0 means 14.
	PaymentTermsDays int `json:"payment_terms_days,omitempty" validate:"min=0,max=365"`
}

// AddOn is a module a plan sells on top of what it includes.
type AddOn struct {
	// Module is the id of the module sold.
	Module string `json:"module" validate:"required"`
	// Price is charged every plan interval while the add-on is on the contract.
	Price int64 `json:"price" validate:"min=0"`
}

// Digest returns the hex SHA-256 of the catalog's canonical JSON encoding
// (see JSON). It changes whenever the content does, so the edge uses it, quoted,
// as a strong ETag.
func (c *Catalog) Digest() string { return c.digest }

// JSON returns the canonical JSON encoding of the catalog, the bytes whose
// SHA-256 is Digest. Serving exactly these bytes keeps the body and its ETag in
// agreement. The caller owns the returned slice.
func (c *Catalog) JSON() []byte { return slices.Clone(c.canonical) }

// Plan returns a copy of the plan with the given id, and whether it exists.
func (c *Catalog) Plan(id string) (Plan, bool) {
	i, ok := c.plans[id]
	if !ok {
		return Plan{}, false
	}
	return c.Plans[i].clone(), true
}

// App returns a copy of the app with the given id, and whether it exists.
func (c *Catalog) App(id string) (App, bool) {
	i, ok := c.apps[id]
	if !ok {
		return App{}, false
	}
	return c.Apps[i].clone(), true
}

// Module returns the module with the given id, and whether it exists.
func (c *Catalog) Module(id string) (Module, bool) {
	ref, ok := c.modules[id]
	if !ok {
		return Module{}, false
	}
	return c.Apps[ref.app].Modules[ref.module], true
}

// Toggleable reports whether a tenant on plan may enable and disable moduleID
// itself: the module is toggleable, and plan includes it or sells it as an
// add-on.
func (c *Catalog) Toggleable(plan Plan, moduleID string) bool {
	m, ok := c.Module(moduleID)
	if !ok || !m.Toggleable {
		return false
	}
	if plan.Includes(moduleID) {
		return true
	}
	_, ok = plan.AddOn(moduleID)
	return ok
}

// Includes reports whether the plan includes moduleID (add-ons excluded).
func (p Plan) Includes(moduleID string) bool {
	return slices.Contains(p.Modules, moduleID)
}

// AddOn returns the add-on of the plan that sells moduleID, and whether the plan
// sells it.
func (p Plan) AddOn(moduleID string) (AddOn, bool) {
	i := slices.IndexFunc(p.AddOns, func(a AddOn) bool { return a.Module == moduleID })
	if i < 0 {
		return AddOn{}, false
	}
	return p.AddOns[i], true
}

// Limit returns the plan's limit for feature. unlimited is true when the plan
// sets no limit (limit is then 0); ok is false when the plan does not know the
// feature at all.
func (p Plan) Limit(feature string) (limit int64, unlimited bool, ok bool) {
	v, ok := p.Limits[feature]
	switch {
	case !ok:
		return 0, false, false
	case v == nil:
		return 0, true, true
	default:
		return *v, false, true
	}
}

// OveragePrice returns the unit price billed for each unit of feature used
// beyond the plan's limit, and whether the plan bills overage for it at all.
func (p Plan) OveragePrice(feature string) (price int64, ok bool) {
	price, ok = p.Overage[feature]
	return price, ok
}

// clone returns a deep copy of the app whose Modules is never nil.
func (a App) clone() App {
	a.Modules = append([]Module{}, a.Modules...)
	return a
}

// clone returns a deep copy of the plan in canonical form: Modules and Limits
// are never nil, and empty AddOns and Overage are nil so they are omitted.
func (p Plan) clone() Plan {
	p.Modules = append([]string{}, p.Modules...)
	limits := make(map[string]*int64, len(p.Limits))
	for f, v := range p.Limits {
		if v != nil {
			n := *v
			v = &n
		}
		limits[f] = v
	}
	p.Limits = limits
	if len(p.AddOns) == 0 {
		p.AddOns = nil
	} else {
		p.AddOns = slices.Clone(p.AddOns)
	}
	if len(p.Overage) == 0 {
		p.Overage = nil
	} else {
		p.Overage = maps.Clone(p.Overage)
	}
	return p
}
