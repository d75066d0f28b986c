package catalog_test

import (
	"fmt"

	"github.com/tenantkit/tenantkit/catalog"
)

func Example() {
	c := catalog.Default()
	starter, _ := c.Plan(catalog.PlanStarter)

	limit, unlimited, _ := starter.Limit(catalog.FeatureTickets)
	fmt.Printf("%s: %d %s/%s, tickets limit %d (unlimited %v)\n",
		starter.Name, starter.BasePrice, starter.Currency, starter.Interval, limit, unlimited)
	fmt.Println("sla toggleable:", c.Toggleable(starter, catalog.ModuleSLA))
	fmt.Println("invoices toggleable:", c.Toggleable(starter, catalog.ModuleInvoices))
	// Output:
	// Starter: 2900 USD/month, tickets limit 25 (unlimited false)
	// sla toggleable: true
	// invoices toggleable: false
}
