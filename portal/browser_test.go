package portal_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/tenancy"
)

// browser starts headless Chromium for one test, failing the test on any
// error the page reports (see watch). Without Chromium the test skips,
// unless TENANTKIT_REQUIRE_BROWSER=1.
func browser(t *testing.T) context.Context {
	t.Helper()
	ctx, _ := launch(t)
	return ctx
}

// runner returns run, which runs actions in the browser of ctx and fails
// the test with what it was doing when they fail.
func runner(t *testing.T, ctx context.Context) func(what string, actions ...chromedp.Action) {
	return func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// console collects the errors a page reports, as text.
type console struct {
	mu       sync.Mutex
	problems []string
}

func (c *console) add(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, p)
}

// take returns the errors collected so far and forgets them.
func (c *console) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.problems
	c.problems = nil
	return ps
}

// expect waits for an error containing want, which the test caused on
// purpose, and removes it from c; the test fails if none comes.
func (c *console) expect(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c.mu.Lock()
		i := slices.IndexFunc(c.problems, func(p string) bool { return strings.Contains(p, want) })
		if i >= 0 {
			c.problems = slices.Delete(c.problems, i, i+1)
		}
		c.mu.Unlock()
		if i >= 0 {
			return
		}
	}
	t.Errorf("browser: no error containing %q reported", want)
}

// launch is browser, also returning the console it watches; what is left
// in the console when the test ends fails it.
func launch(t *testing.T) (context.Context, *console) {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("TENANTKIT_REQUIRE_BROWSER") == "1" {
			t.Fatal("no Chromium found and TENANTKIT_REQUIRE_BROWSER=1")
		}
		t.Skip("no Chromium found (apt-get install chromium); skipping the browser tests")
	}
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 900)}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	// Newer Chromium sends events this client does not know; say nothing.
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...interface{}) {}))
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	c := &console{}
	t.Cleanup(func() {
		for _, p := range c.take() {
			t.Errorf("browser: %s", p)
		}
		cancelT()
		cancelC()
		cancelA()
	})
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	if err := watch(ctx, c); err != nil {
		t.Fatalf("watch Chromium's console: %v", err)
	}
	return ctx, c
}

// watch adds to c every error the page in ctx reports: console.error
// calls, uncaught exceptions, and the browser's own log entries of level
// error (a Content-Security-Policy violation, a resource that failed to
// load), each with its message.
func watch(ctx context.Context, c *console) error {
	chromedp.ListenTarget(ctx, func(ev interface{}) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				var args []string
				for _, a := range ev.Args {
					if a.Value != nil {
						args = append(args, string(a.Value))
					} else {
						args = append(args, a.Description)
					}
				}
				c.add("console.error: " + strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := ev.ExceptionDetails.Text
			if ex := ev.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
				msg += " " + ex.Description
			}
			c.add("exception: " + msg)
		case *cdplog.EventEntryAdded:
			if e := ev.Entry; e.Level == cdplog.LevelError {
				c.add(fmt.Sprintf("%s error: %s (%s)", e.Source, e.Text, e.URL))
			}
		}
	})
	// chromedp enables the log domain when it attaches; enabling it again
	// here keeps the check from depending on that.
	return chromedp.Run(ctx, cdplog.Enable())
}

// TestBrowserReportsPageErrors: the console check catches each kind of
// error a page can report, with its message, so that the browser tests
// fail on them.
func TestBrowserReportsPageErrors(t *testing.T) {
	ctx, c := launch(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
		fmt.Fprint(w, `<!doctype html><title>x</title><link rel="icon" href="data:,"><h1>x</h1>`+
			`<script>document.title = "inline"</script>`+
			`<img src="/missing.png" alt="">`+
			`<script src="/app.js"></script>`)
	})
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `console.error("console says boom"); throw new Error("thrown kaboom");`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`h1`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"security error: Executing inline script violates the following Content Security Policy directive",
		"network error: Failed to load resource: the server responded with a status of 404 (Not Found) (" + srv.URL + "/missing.png)",
		`console.error: "console says boom"`,
		"exception: Uncaught Error: thrown kaboom",
	} {
		c.expect(t, want)
	}
}

// docShots are the screenshots docs/portal.md shows.
var docShots = map[string]bool{"portal-dashboard": true, "portal-invoice-new": true, "portal-invoice": true,
	"portal-invoices": true, "portal-invoice-void": true, "portal-customers": true, "portal-customer": true,
	"portal-billing": true, "portal-tickets": true, "portal-events": true, "portal-modules": true,
	"portal-ticket": true, "portal-375-ticket": true, "portal-375-invoice": true, "portal-375-dashboard": true,
	"portal-375-invoices": true, "portal-contracts": true, "portal-webhooks": true, "hosted-invoice": true}

// screenshot saves the page under the test's temp dir (and, with
// TENANTKIT_SCREENSHOTS=dir, the ones the docs show there too).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatal(err)
	}
	dirs := []string{t.TempDir()}
	if docs := os.Getenv("TENANTKIT_SCREENSHOTS"); docs != "" && docShots[name] {
		dirs = append(dirs, docs)
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBrowser(t *testing.T) {
	ctx, cons := launch(t)
	axe := loadAxe(t)
	e, app := sqliteEnv(t)
	run := runner(t, ctx)
	bg := context.Background()
	seed := seedCollections(t, app, e.acme.ID)
	var text string
	for _, n := range []tenancy.NewNotification{
		{Type: "portal.demo", Title: "Invoice INV-0007 is overdue", Body: "See the details in the portal."},
		{Type: "portal.demo", Title: "Module support.sla switched on", Body: "See the details in the portal."},
	} {
		if _, err := app.Tenancy.Notifications.Notify(bg, e.acme.ID, n); err != nil {
			t.Fatal(err)
		}
	}

	run("sign in", chromedp.Navigate(e.link(t, "alice@acme.test", "acme")),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`meter`, chromedp.ByQuery), chromedp.Text(`main h1`, &text, chromedp.ByQuery))
	if text != "Dashboard" {
		t.Fatalf("after sign-in: h1 %q", text)
	}
	run("mark a notification read", chromedp.Click(`.notes form button`, chromedp.ByQuery),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "marked read")]`, chromedp.BySearch),
		chromedp.Text(`#nav-notifications`, &text, chromedp.ByID))
	// Three were unread: the two above and the platform invoice's.
	if text != "Notifications (2 unread)" {
		t.Fatalf("after marking one read the navigation says %q", text)
	}

	run("new invoice", chromedp.Navigate(e.srv.URL+"/portal/invoices/new"),
		chromedp.SendKeys(`#customer-name`, "Ada Lovelace", chromedp.ByID),
		chromedp.SendKeys(`#customer-email`, "ada@example.com", chromedp.ByID),
		chromedp.SendKeys(`#line_items-0-description`, "Design", chromedp.ByID),
		chromedp.SetValue(`#line_items-0-quantity`, "2", chromedp.ByID),
		chromedp.SendKeys(`#line_items-0-unit_amount`, "10.50", chromedp.ByID),
		chromedp.SendKeys(`#line_items-1-description`, "Hosting", chromedp.ByID),
		chromedp.SendKeys(`#line_items-1-unit_amount`, "5", chromedp.ByID),
		chromedp.SendKeys(`#line_items-1-tax_rate`, "10", chromedp.ByID))
	screenshot(t, ctx, "portal-invoice-new")
	run("create invoice", chromedp.Click(`#create-invoice`, chromedp.ByID),
		chromedp.WaitVisible(`#invoice-total`, chromedp.ByID), chromedp.Text(`#invoice-total`, &text, chromedp.ByID))
	if text != "$26.50" {
		t.Fatalf("total %q, want $26.50", text)
	}
	run("finalize", chromedp.Click(`#finalize`, chromedp.ByID),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "finalized")]`, chromedp.BySearch), chromedp.Text(`#invoice-status`, &text, chromedp.ByID))
	if text != "open" {
		t.Fatalf("status after finalize %q", text)
	}
	run("events", chromedp.Navigate(e.srv.URL+"/portal/events?type=invoice.created"),
		chromedp.WaitVisible(`main table`, chromedp.ByQuery), chromedp.Text(`main table tbody tr`, &text, chromedp.ByQuery))
	if !strings.Contains(text, "invoice.created") || !strings.Contains(text, "alice@acme.test") {
		t.Fatalf("events page row %q, want the invoice.created event by alice, named", text)
	}

	// The invoice page's payment and void, the latter only once asked.
	invoiceURL := e.srv.URL + "/portal/invoices/" + seed.invoice.ID
	run("part payment", chromedp.Navigate(invoiceURL), chromedp.SetValue(`#amount`, "100", chromedp.ByID),
		chromedp.SendKeys(`#reference`, "CHK-7", chromedp.ByID), chromedp.Click(`#record-payment`, chromedp.ByID),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "payment is recorded")]`, chromedp.BySearch),
		chromedp.Text(`table.payments`, &text, chromedp.ByQuery))
	if !strings.Contains(text, "CHK-7") || !strings.Contains(text, "WIRE-42") {
		t.Fatalf("payments table %q, want both payments with their references", text)
	}

	// The hosted link leads the customer to the invoice, signed out.
	var hosted string
	var ok bool
	run("hosted link", chromedp.AttributeValue(`#hosted-url`, "href", &hosted, &ok, chromedp.ByID))
	if !ok || !strings.HasPrefix(hosted, e.srv.URL+"/pay/") {
		t.Fatalf("hosted link %q", hosted)
	}
	run("hosted page", chromedp.Navigate(hosted), chromedp.WaitVisible(`h1`, chromedp.ByQuery), chromedp.Text(`body`, &text, chromedp.ByQuery))
	if !strings.Contains(text, seed.invoice.Number) {
		t.Fatalf("the hosted page does not show %s:\n%s", seed.invoice.Number, text)
	}

	run("ticket", chromedp.Navigate(e.srv.URL+"/portal/tickets/new"),
		chromedp.SendKeys(`#subject`, "Export fails", chromedp.ByID),
		chromedp.SendKeys(`#description`, "The CSV export stops at 1000 rows.", chromedp.ByID),
		chromedp.Click(`#create-ticket`, chromedp.ByID),
		chromedp.WaitVisible(`#ticket-subject`, chromedp.ByID), chromedp.Text(`#ticket-subject`, &text, chromedp.ByID))
	if text != "Export fails" {
		t.Fatalf("ticket subject %q", text)
	}
	var ticketURL string
	run("comment", chromedp.Location(&ticketURL),
		chromedp.SendKeys(`#body`, "It happens with every file over 1000 rows.", chromedp.ByID),
		chromedp.Click(`#add-comment`, chromedp.ByID),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "comment")]`, chromedp.BySearch),
		chromedp.Text(`.thread .comment-requester .comment-body`, &text, chromedp.ByQuery))
	if text != "It happens with every file over 1000 rows." {
		t.Fatalf("comment in the thread %q", text)
	}

	var before, after string
	run("toggle module", chromedp.Navigate(e.srv.URL+"/portal/modules"),
		chromedp.Text(`.modules form button`, &before, chromedp.ByQuery),
		chromedp.Click(`.modules form button`, chromedp.ByQuery),
		chromedp.WaitVisible(`.flash`, chromedp.ByQuery),
		chromedp.Text(`.modules form button`, &after, chromedp.ByQuery))
	if before == after {
		t.Fatalf("module button still %q after toggling", after)
	}

	run("form without token", chromedp.Navigate(e.srv.URL+"/portal/tickets/new"),
		chromedp.SetValue(`#main input[name=csrf_token]`, "", chromedp.ByQuery),
		chromedp.SendKeys(`#subject`, "x", chromedp.ByID), chromedp.SendKeys(`#description`, "y", chromedp.ByID),
		chromedp.Click(`#create-ticket`, chromedp.ByID),
		chromedp.WaitVisible(`.error`, chromedp.ByQuery), chromedp.Text(`main`, &text, chromedp.ByQuery))
	if !strings.Contains(text, "CSRF") {
		t.Fatalf("form without token: page says %q", text)
	}
	// The refusal is a 403 answer, which Chromium reports as a failed load.
	cons.expect(t, "status of 403 (Forbidden) ("+e.srv.URL+"/portal/tickets)")
	screenshot(t, ctx, "portal-csrf-refused")

	evs, _, err := app.Events.List(bg, e.acme.ID, event.Filter{Type: "invoice.payment_recorded", Limit: 1})
	if err != nil || len(evs) == 0 {
		t.Fatalf("no event to show: %v", err)
	}
	pages := []struct{ name, path string }{
		{"dashboard", "/portal/"},
		{"invoices", "/portal/invoices"},
		{"invoice", "/portal/invoices/" + seed.invoice.ID},
		{"invoice-void", "/portal/invoices/" + seed.invoice.ID + "/void"},
		{"invoice-new", "/portal/invoices/new"},
		{"customers", "/portal/customers"},
		{"customer", "/portal/customers/" + seed.customer.ID},
		{"billing", "/portal/billing"},
		{"tickets", "/portal/tickets"},
		{"ticket", strings.TrimPrefix(strings.Split(ticketURL, "?")[0], e.srv.URL)},
		{"ticket-new", "/portal/tickets/new"},
		{"contract", "/portal/contracts"}, // portal-contracts.png is TestBrowserContracts's
		{"modules", "/portal/modules"},
		{"events", "/portal/events"},
		{"event", "/portal/events/" + evs[0].ID},
		{"webhook-list", "/portal/webhooks"}, // portal-webhooks.png is TestBrowserWebhooks's
		{"webhook-new", "/portal/webhooks/new"},
		{"tenants", "/portal/tenants"},
	}
	// At desktop width (1280 px) and phone width (375 px) every page is
	// free of serious and critical axe-core violations; on the phone no
	// page scrolls sideways and each passes accessibilityCheck.
	for _, width := range []int64{1280, 375} {
		run(fmt.Sprint(width, " px"), chromedp.EmulateViewport(width, 900))
		for _, p := range pages {
			name := fmt.Sprintf("%s at %d px", p.name, width)
			run(name, chromedp.Navigate(e.srv.URL+p.path), chromedp.WaitVisible(`main h1`, chromedp.ByQuery))
			checkAxe(t, ctx, axe, name)
			if width == 1280 {
				screenshot(t, ctx, "portal-"+p.name)
				continue
			}
			var scroll int
			run(name, chromedp.Evaluate(`document.documentElement.scrollWidth`, &scroll))
			if scroll > 375 {
				// Name what overflows its box, to say what to fix.
				var wide []string
				run(name, chromedp.Evaluate(`[...document.querySelectorAll('body *')].filter(el => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible').slice(-3).map(el => el.outerHTML.slice(0, 100))`, &wide))
				t.Errorf("%s is %d px wide: it scrolls sideways (%s)", name, scroll, strings.Join(wide, "; "))
			}
			var problems []string
			run(name+" accessibility", chromedp.Evaluate(accessibilityCheck, &problems))
			for _, pr := range problems {
				t.Errorf("%s: %s", name, pr)
			}
			screenshot(t, ctx, "portal-375-"+p.name)
		}
	}
	// On the phone the invoice's amounts are all there, each labelled.
	var due string
	run("phone invoice", chromedp.Navigate(invoiceURL), chromedp.WaitVisible(`#invoice-amount-due`, chromedp.ByID),
		chromedp.Text(`#invoice-amount-due`, &due, chromedp.ByID))
	if !strings.HasPrefix(due, "$") {
		t.Errorf("amount due at 375 px reads %q", due)
	}
}

// accessibilityCheck is the script TestBrowser runs on each page, in the
// page, and that returns what it finds wrong: a form control (other than
// hidden fields and buttons) without a label — a <label for>, an
// enclosing <label>, aria-label or aria-labelledby naming an element —,
// not exactly one <h1>, a heading level skipped on the way down (h2 to
// h4), a positive tabindex (which breaks the focus order the document
// gives), or a link or button taken out of the focus order.
const accessibilityCheck = `(() => {
  const problems = [];
  const describe = el => el.outerHTML.slice(0, 120);
  for (const el of document.querySelectorAll('input, select, textarea')) {
    if (el.type === 'hidden' || el.type === 'submit' || el.type === 'button') continue;
    const byFor = el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
    const named = el.getAttribute('aria-label') ||
      (el.getAttribute('aria-labelledby') || '').split(' ').some(id => id && document.getElementById(id));
    if (!byFor && !el.closest('label') && !named) problems.push('control without a label: ' + describe(el));
  }
  const h1s = document.querySelectorAll('h1').length;
  if (h1s !== 1) problems.push(h1s + ' h1 elements, want 1');
  let level = 0;
  for (const h of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const l = Number(h.tagName[1]);
    if (l > level + 1) problems.push('heading ' + h.tagName + ' after h' + level + ': ' + describe(h));
    level = l;
  }
  for (const el of document.querySelectorAll('[tabindex]')) {
    const i = Number(el.getAttribute('tabindex'));
    if (i > 0) problems.push('positive tabindex: ' + describe(el));
    if (i < 0 && el.matches('a[href], button, input, select, textarea')) problems.push('taken out of the focus order: ' + describe(el));
  }
  return problems;
})()`
