package portal_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TestBrowserContracts previews the invoice of a move to another plan,
// submits the request from the same form, and cancels it.
func TestBrowserContracts(t *testing.T) {
	ctx := browser(t)
	e, app := sqliteEnv(t)
	run := runner(t, ctx)
	var text string

	run("sign in", chromedp.Navigate(e.link(t, "alice@acme.test", "acme")),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery), chromedp.WaitVisible(`meter`, chromedp.ByQuery))
	run("preview", chromedp.Click(`nav a[href="/portal/contracts"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#submit-contract`, chromedp.ByID),
		chromedp.SetValue(`#type`, "change_plan", chromedp.ByID),
		chromedp.SetValue(`#plan_id`, catalog.PlanEnterprise, chromedp.ByID),
		chromedp.SendKeys(`#note`, "We are growing.", chromedp.ByID),
		chromedp.Click(`#preview-contract`, chromedp.ByID),
		chromedp.WaitVisible(`#preview`, chromedp.ByID), chromedp.Text(`#preview`, &text, chromedp.ByID))
	if !strings.Contains(text, "Enterprise plan") || !strings.Contains(text, "Total\n$499.00") {
		t.Fatalf("preview %q, want the Enterprise plan's $499.00", text)
	}
	screenshot(t, ctx, "portal-contracts")

	// The preview keeps the form filled in: submitting sends that change.
	run("submit", chromedp.Click(`#submit-contract`, chromedp.ByID),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "submitted")]`, chromedp.BySearch))
	reqs, _, err := app.Contracts.Requests(context.Background(), e.acme.ID, contract.Filter{})
	if err != nil || len(reqs) != 1 {
		t.Fatalf("requests after submitting: %+v, %v", reqs, err)
	}
	req := reqs[0]
	if req.PlanID == nil || *req.PlanID != catalog.PlanEnterprise || req.Note != "We are growing." {
		t.Fatalf("submitted %+v, want the previewed move to enterprise with its note", req)
	}
	row := `tr[id="` + req.ID + `"]`
	run("row", chromedp.Text(row, &text, chromedp.ByQuery))
	if !strings.Contains(text, "change plan → enterprise") || !strings.Contains(text, "pending") {
		t.Fatalf("request row %q", text)
	}

	run("cancel", chromedp.Click(`#cancel-`+req.ID, chromedp.ByID),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "cancelled")]`, chromedp.BySearch),
		chromedp.Text(row, &text, chromedp.ByQuery))
	if !strings.Contains(text, "cancelled") || strings.Contains(text, "Cancel") {
		t.Fatalf("request row after cancelling %q", text)
	}
	if got, err := app.Contracts.Request(context.Background(), e.acme.ID, req.ID); err != nil || got.Status != contract.RequestCancelled {
		t.Fatalf("request after cancelling: %+v, %v", got, err)
	}

	// At phone width the page with a preview does not scroll sideways.
	var width int
	run("phone width", chromedp.EmulateViewport(375, 812),
		chromedp.Navigate(e.srv.URL+"/portal/contracts?type=change_plan&plan_id=enterprise&effective=immediately&preview=1"),
		chromedp.WaitVisible(`#preview`, chromedp.ByID), chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
	if width > 375 {
		t.Errorf("contracts with a preview at 375 px is %d px wide: it scrolls sideways", width)
	}
	screenshot(t, ctx, "portal-375-contracts")
}
