package portal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestHostedInvoiceInBrowser opens an invoice's hosted page in Chromium
// with JavaScript switched off, as the customer who got its link: the
// amounts are there, and the Pay link leads to the tenant's payment page
// for this invoice.
func TestHostedInvoiceInBrowser(t *testing.T) {
	ctx, _ := launch(t)
	db := dbtest.SQLite(t, tenantkit.Schema()...)
	app, err := tenantkit.New(db, defaultCatalog(), tenantkit.WithSecretKey([]byte(strings.Repeat("k", 32))))
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	tn, err := app.Tenancy.Directory.CreateTenant(bg, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme Corp", PlanID: "growth"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Tenancy.Settings.Update(bg, tn.ID, tenancy.SettingsPatch{
		PaymentLinkTemplate: billing.PatchTo("https://pay.acme.example/checkout?invoice={invoice_id}&amount={amount_due}&currency={currency}"),
		InvoiceFooter:       billing.PatchTo("Acme Corp · 1 Main Street · Springfield"),
	}); err != nil {
		t.Fatal(err)
	}
	inv, err := app.Billing.Create(bg, tn.ID, billing.CreateInvoiceInput{
		Customer: billing.CustomerInput{Name: "Ada Lovelace", Email: "ada@example.com"}, Currency: "USD", DueDate: "2026-12-31",
		LineItems: []billing.LineItemInput{{Description: "Design", Quantity: 2, UnitAmount: 1999, TaxRateBps: 1000},
			{Description: "Hosting", Quantity: 1, UnitAmount: 500}},
	})
	if err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewUnstartedServer(nil)
	cfg := app.HTTPConfig()
	cfg.PublicURL = "http://" + srv.Listener.Addr().String()
	api, err := httpapi.New(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = api.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	tokens, err := app.Hosted.Tokens(bg, tn.ID, inv)
	if err != nil {
		t.Fatal(err)
	}

	var total, due, pay, robots string
	var ok bool
	run := runner(t, ctx)
	run("open the hosted page without JavaScript", emulation.SetScriptExecutionDisabled(true),
		chromedp.Navigate(srv.URL+"/pay/"+tokens[inv.ID]),
		chromedp.WaitVisible(`#total`, chromedp.ByID), chromedp.Text(`#total`, &total, chromedp.ByID),
		chromedp.Text(`#amount-due`, &due, chromedp.ByID),
		chromedp.AttributeValue(`#pay`, "href", &pay, &ok, chromedp.ByID),
		chromedp.AttributeValue(`meta[name=robots]`, "content", &robots, nil, chromedp.ByQuery))
	if total != "$48.98" || due != "$48.98" {
		t.Errorf("total %q, amount due %q; want $48.98 each", total, due)
	}
	want := "https://pay.acme.example/checkout?invoice=" + inv.ID + "&amount=48.98&currency=USD"
	if !ok || pay != want {
		t.Errorf("Pay link %q, want %q", pay, want)
	}
	if !strings.Contains(robots, "noindex") {
		t.Errorf("robots meta %q, want noindex", robots)
	}
	screenshot(t, ctx, "hosted-invoice")
	res, err := http.Get(srv.URL + "/pay/" + tokens[inv.ID] + "x")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a wrong token: %d, want 404", res.StatusCode)
	}
}
