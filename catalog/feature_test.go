package catalog_test

import (
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
)

func TestFeatures(t *testing.T) {
	want := []string{"collections.invoices", "support.tickets", "seats"}
	if got := catalog.Features(); !slices.Equal(got, want) {
		t.Fatalf("Features() = %q, want %q", got, want)
	}
	catalog.Features()[0] = "changed"
	if got := catalog.Features(); !slices.Equal(got, want) {
		t.Fatalf("Features() after caller modified a result = %q, want %q", got, want)
	}
}

func TestMeteredAndKnownFeature(t *testing.T) {
	for _, tc := range []struct {
		feature        string
		known, metered bool
	}{
		{catalog.FeatureInvoices, true, true},
		{catalog.FeatureTickets, true, true},
		{catalog.FeatureSeats, true, false},
		{"support.sla", false, false},
		{"", false, false},
	} {
		t.Run(tc.feature, func(t *testing.T) {
			if got := catalog.KnownFeature(tc.feature); got != tc.known {
				t.Errorf("KnownFeature(%q) = %v, want %v", tc.feature, got, tc.known)
			}
			if got := catalog.Metered(tc.feature); got != tc.metered {
				t.Errorf("Metered(%q) = %v, want %v", tc.feature, got, tc.metered)
			}
		})
	}
}
