package portal_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// axePath is axe-core's script as `npm ci --prefix .ci` installs it.
var axePath = filepath.Join("..", ".ci", "node_modules", "axe-core", "axe.min.js")

// loadAxe reads axe-core's script. Without it the test skips, unless
// TENANTKIT_REQUIRE_BROWSER=1 (CI), where it fails: the accessibility
// check is part of what the browser tests prove.
func loadAxe(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(axePath)
	if err != nil {
		if os.Getenv("TENANTKIT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("axe-core: %v (run npm ci --prefix .ci)", err)
		}
		t.Skipf("axe-core not installed (%v): npm ci --prefix .ci", err)
	}
	return string(b)
}

// axeViolation is one rule axe-core found broken on a page.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeRun runs axe-core on the page (injecting it first when the page
// lacks it) and returns what it finds, the first few offending elements
// of each rule.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact || '', help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.html.slice(0, 200))})))`

// axeViolations runs axe-core on the page in ctx, injecting it first
// when the page lacks it.
func axeViolations(ctx context.Context, axe string) ([]axeViolation, error) {
	var loaded bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`typeof axe !== 'undefined'`, &loaded)); err != nil {
		return nil, err
	}
	if !loaded {
		// Evaluated through the DevTools protocol, the script is not
		// subject to the page's Content-Security-Policy.
		if err := chromedp.Run(ctx, chromedp.Evaluate(axe, nil)); err != nil {
			return nil, fmt.Errorf("inject axe-core: %w", err)
		}
	}
	var vs []axeViolation
	err := chromedp.Run(ctx, chromedp.Evaluate(axeRun, &vs, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
	return vs, err
}

// checkAxe fails the test for every serious or critical violation axe-core
// finds on the page in ctx, and logs the lesser ones.
func checkAxe(t *testing.T, ctx context.Context, axe, page string) {
	t.Helper()
	vs, err := axeViolations(ctx, axe)
	if err != nil {
		t.Fatalf("%s: axe-core: %v", page, err)
	}
	for _, v := range vs {
		msg := page + ": axe " + v.Impact + " " + v.ID + ": " + v.Help + "\n\t" + strings.Join(v.Nodes, "\n\t")
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// TestAxeFindsViolations: the check sees what it should fail on, so that
// a page passing it means something.
func TestAxeFindsViolations(t *testing.T) {
	ctx, _ := launch(t)
	axe := loadAxe(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>x</title><link rel="icon" href="data:,"><main><h1>x</h1>`+
			`<button></button><input type="text"><p style="color:#ccc;background:#fff">faint</p></main></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`h1`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	vs, err := axeViolations(ctx, axe)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, v := range vs {
		found[v.ID] = v.Impact
	}
	for id, impact := range map[string]string{"button-name": "critical", "label": "critical", "color-contrast": "serious"} {
		if found[id] != impact {
			t.Errorf("axe found %v, want %s (%s) among them", found, id, impact)
		}
	}
}
