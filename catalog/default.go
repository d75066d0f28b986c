package catalog

import (
	_ "embed"
	"fmt"
)

// defaultJSON is the catalog served when the operator supplies none. It is a
// string so that nothing can modify it.
//
//go:embed default.json
var defaultJSON string

// App ids of the default catalog.
const (
	AppCollections = "collections"
	AppSupport     = "support"
)

// Module ids of the default catalog.
const (
	// ModuleInvoices creates and lists invoices; always on where included.
	ModuleInvoices = "collections.invoices"
	// ModuleReminders notifies the tenant of unpaid invoices 1, 7 and 14 days
	// after they become overdue (billing.Schedule).
	ModuleReminders = "collections.reminders"
	// ModuleDunning marks invoices still unpaid 21 days after they became
	// overdue uncollectible (billing.Schedule).
	ModuleDunning = "collections.dunning"
	// ModuleTickets lets the tenant open support tickets with the platform.
	ModuleTickets = "support.tickets"
	// ModuleSLA adds response-time targets and escalation to tickets.
	ModuleSLA = "support.sla"
	// ModuleCSAT surveys satisfaction when a ticket is solved.
	ModuleCSAT = "support.csat"
)

// Plan ids of the default catalog.
const (
	PlanFree       = "free"
	PlanStarter    = "starter"
	PlanGrowth     = "growth"
	PlanEnterprise = "enterprise"
)

// Default returns the built-in catalog, parsed afresh on each call so that
// callers share nothing. It panics only if the embedded default.json is
// invalid, which the package's tests rule out.
func Default() *Catalog {
	c, err := Parse([]byte(defaultJSON))
	if err != nil {
		panic(fmt.Sprintf("catalog: embedded default.json: %v", err))
	}
	return c
}
