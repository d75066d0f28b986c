package portal_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// TestBrowserWebhooks registers an endpoint on a receiver on 127.0.0.1,
// reads its secret once, sends a test event, has it delivered and sees
// the attempt on the endpoint's page.
func TestBrowserWebhooks(t *testing.T) {
	ctx := browser(t)
	db := dbtest.SQLite(t, tenantkit.Schema()...)
	app := webhookApp(t, db, true)
	e := newEnv(t, db, app)
	rc := newReceiver(t)
	run := runner(t, ctx)
	var text, html string

	run("sign in", chromedp.Navigate(e.link(t, "alice@acme.test", "acme")),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery), chromedp.WaitVisible(`meter`, chromedp.ByQuery))
	run("new endpoint", chromedp.Click(`nav a[href="/portal/webhooks"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#new-endpoint`, chromedp.ByQuery), chromedp.Click(`#new-endpoint`, chromedp.ByQuery),
		chromedp.WaitVisible(`#url`, chromedp.ByQuery),
		chromedp.SendKeys(`#url`, rc.srv.URL+"/hook", chromedp.ByQuery),
		chromedp.SendKeys(`#description`, "Billing sync", chromedp.ByQuery),
		chromedp.Click(`#type-invoice-paid`, chromedp.ByQuery),
		chromedp.Click(`#type-invoice-created`, chromedp.ByQuery),
		chromedp.Click(`#create-endpoint`, chromedp.ByQuery),
		chromedp.WaitVisible(`#secret`, chromedp.ByQuery), chromedp.Text(`#secret`, &text, chromedp.ByQuery))
	secret := strings.TrimSpace(text)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown %q", secret)
	}
	run("warning", chromedp.Text(`.secret-box`, &text, chromedp.ByQuery))
	if !strings.Contains(text, "it will not be shown again") {
		t.Fatalf("the secret's box says %q", text)
	}
	screenshot(t, ctx, "portal-webhook-secret")

	run("endpoint page, reloaded", chromedp.Click(`#continue`, chromedp.ByQuery), chromedp.WaitVisible(`#send-test`, chromedp.ByQuery),
		chromedp.Reload(), chromedp.WaitVisible(`#send-test`, chromedp.ByQuery), chromedp.OuterHTML(`html`, &html, chromedp.ByQuery))
	if strings.Contains(html, secret) || strings.Contains(html, "whsec_") {
		t.Fatal("the endpoint's page shows the secret again")
	}
	if !strings.Contains(html, "invoice.created, invoice.paid") {
		t.Fatalf("the endpoint's page does not list the chosen event types:\n%s", html)
	}
	var detailURL string
	run("send test", chromedp.Location(&detailURL), chromedp.Click(`#send-test`, chromedp.ByQuery),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "test event")]`, chromedp.BySearch),
		chromedp.Text(`table.deliveries tbody tr`, &text, chromedp.ByQuery))
	if !strings.Contains(text, "webhook.test") || !strings.Contains(text, "pending") {
		t.Fatalf("delivery row after the test %q", text)
	}

	// Deliver it, as the queue would.
	bg := context.Background()
	eps, _, err := app.Outbound.Endpoints(bg, e.acme.ID, 1, "")
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints %v, %v", eps, err)
	}
	ds, _, err := app.Outbound.Deliveries(bg, e.acme.ID, eps[0].ID, 1, "")
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries %v, %v", ds, err)
	}
	if out, err := app.Outbound.Attempt(bg, ds[0].ID); err != nil || !out.Done {
		t.Fatalf("attempt: %+v, %v", out, err)
	}
	hdr, body := rc.last()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(body, hdr); err != nil {
		t.Fatalf("the delivery does not verify with the secret the page showed: %v", err)
	}

	row := `tr[id="` + ds[0].ID + `"]`
	run("attempt", chromedp.Navigate(strings.Split(detailURL, "?")[0]), chromedp.WaitVisible(row, chromedp.ByQuery),
		chromedp.Click(row+` details summary`, chromedp.ByQuery), chromedp.WaitVisible(row+` details pre`, chromedp.ByQuery),
		chromedp.Text(row, &text, chromedp.ByQuery))
	for _, want := range []string{"succeeded", "200", "#1 succeeded · HTTP 200", "ok"} {
		if !strings.Contains(text, want) {
			t.Errorf("delivery row lacks %q: %q", want, text)
		}
	}
	if strings.Contains(text, "Retry") {
		t.Errorf("a succeeded delivery's row offers a retry: %q", text)
	}
	screenshot(t, ctx, "portal-webhooks")

	// At phone width (375 px) the pages do not scroll sideways.
	run("phone width", chromedp.EmulateViewport(375, 812))
	for _, p := range []struct{ name, url string }{
		{"webhooks", e.srv.URL + "/portal/webhooks"},
		{"webhook-new", e.srv.URL + "/portal/webhooks/new"},
		{"webhook", strings.Split(detailURL, "?")[0]},
	} {
		var width int
		run(p.name+" at 375 px", chromedp.Navigate(p.url), chromedp.WaitVisible(`main h1`, chromedp.ByQuery),
			chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
		if width > 375 {
			t.Errorf("%s at 375 px is %d px wide: it scrolls sideways", p.name, width)
		}
		screenshot(t, ctx, "portal-375-"+p.name)
	}
}
