package portal

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

func TestTaxRate(t *testing.T) {
	for bps, want := range map[int]string{0: "0%", 1: "0.01%", 10: "0.1%", 825: "8.25%", 850: "8.5%", 1000: "10%", 10_000: "100%"} {
		if got := taxRate(bps); got != want {
			t.Errorf("taxRate(%d) = %q, want %q", bps, got, want)
		}
	}
}

// TestInvoiceTemplateTaxInPercent: the invoice shows each line's tax rate
// in the unit the form takes it, a percentage.
func TestInvoiceTemplateTaxInPercent(t *testing.T) {
	inv := billing.Invoice{ID: "inv_1", Status: billing.StatusDraft, Currency: "USD",
		LineItems: []billing.LineItem{{Description: "Hosting", Quantity: 1, UnitAmount: 500, TaxRateBps: 825, Amount: 500}}}
	body := renderPageAs(t, "invoice", invoicePage{Invoice: inv}, nil, map[string]bool{"invoices:read": true})
	if !strings.Contains(body, `data-label="Tax">8.25%</td>`) || strings.Contains(body, "bps") {
		t.Errorf("the line's tax is not shown as 8.25%%:\n%s", body)
	}
}

// TestContractsTemplateFollowsPermissions: a member who may read requests
// but not submit them sees the requests, and neither the form nor a
// cancel button (the server refuses both anyway).
func TestContractsTemplateFollowsPermissions(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	d := contractsData{Plans: catalog.Default().Plans, Current: catalog.PlanGrowth,
		Requests: []contract.Request{{ID: "ccr_1", Type: contract.ChangePlan, PlanID: new(catalog.PlanEnterprise),
			Status: contract.RequestPending, Effective: contract.EffectiveNextPeriod, CreatedAt: now}}}

	submitter := renderPageAs(t, "contracts", d, nil, map[string]bool{"contracts:read": true, "contracts:submit": true, "billing:preview": true})
	for _, want := range []string{`<tr id="ccr_1">`, `action="/portal/contracts/ccr_1/cancel"`, `action="/portal/contracts" novalidate`,
		`id="submit-contract"`, `id="preview-contract"`} {
		if !strings.Contains(submitter, want) {
			t.Errorf("a submitter's page lacks %q", want)
		}
	}

	reader := renderPageAs(t, "contracts", d, nil, map[string]bool{"contracts:read": true})
	if !strings.Contains(reader, `<tr id="ccr_1">`) {
		t.Error("a reader does not see the request")
	}
	for _, unwanted := range []string{`/cancel"`, `action="/portal/contracts"`, `id="submit-contract"`, `id="preview-contract"`} {
		if strings.Contains(reader, unwanted) {
			t.Errorf("a reader's page has %q", unwanted)
		}
	}

	// Submitting without billing:preview: the form, without the preview button.
	noPreview := renderPageAs(t, "contracts", d, nil, map[string]bool{"contracts:read": true, "contracts:submit": true})
	if !strings.Contains(noPreview, `id="submit-contract"`) || strings.Contains(noPreview, `id="preview-contract"`) {
		t.Error("without billing:preview the form should have no preview button")
	}
}

// TestEveryPageParses: the pages' template sets are made when first
// shown, so this makes every one of them, and each has the layout.
func TestEveryPageParses(t *testing.T) {
	vs, err := newViews("/portal")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.pages) < 10 {
		t.Fatalf("%d pages: want every templates/*.html but the layout and partials", len(vs.pages))
	}
	// Every page at once, twice: first showings happen concurrently too.
	var wg sync.WaitGroup
	for name := range vs.pages {
		for range 2 {
			wg.Go(func() {
				page, err := vs.page(name)
				if err != nil {
					t.Errorf("page %s: %v", name, err)
					return
				}
				if page.Lookup("layout") == nil {
					t.Errorf("page %s has no layout", name)
				}
			})
		}
	}
	wg.Wait()
	if _, err := vs.page("no-such-page"); err == nil {
		t.Error("an unknown page has a template")
	}
}
