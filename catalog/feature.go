package catalog

// Features are the quantities a plan limits (the keys of Plan.Limits). The
// metered ones count usage per calendar month (UTC) and share their name with
// the module they meter; seats counts the members of a tenant at any time.
const (
	// FeatureInvoices counts invoices created in the month.
	FeatureInvoices = "collections.invoices"
	// FeatureTickets counts support tickets opened in the month.
	FeatureTickets = "support.tickets"
	// FeatureSeats counts the members of the tenant.
	FeatureSeats = "seats"
)

// Features returns every feature a plan limits, in a stable order: the metered
// features first, then seats. The caller owns the returned slice.
func Features() []string {
	return []string{FeatureInvoices, FeatureTickets, FeatureSeats}
}

// KnownFeature reports whether name is one of Features, e.g. to validate a
// ?feature= query parameter.
func KnownFeature(name string) bool {
	switch name {
	case FeatureInvoices, FeatureTickets, FeatureSeats:
		return true
	}
	return false
}

// Metered reports whether feature counts usage per calendar month (and may
// therefore carry an overage price) rather than a level such as seats.
func Metered(feature string) bool {
	switch feature {
	case FeatureInvoices, FeatureTickets:
		return true
	}
	return false
}
