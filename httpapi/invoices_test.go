package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
)

func invoiceBody(currency string, lines ...string) string {
	items := ""
	for i, l := range lines {
		if i > 0 {
			items += ","
		}
		items += l
	}
	return fmt.Sprintf(`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":%q,"line_items":[%s]}`, currency, items)
}

func TestInvoiceTotals(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tests := []struct {
			name                 string
			currency             string
			lines                []string
			subtotal, tax, total float64
		}{
			{"USDRoundsHalfAwayFromZero", "USD", []string{`{"description":"Plan","quantity":1,"unit_amount":1999,"tax_rate_bps":825}`}, 1999, 165, 2164},
			{"HalfCentUp", "USD", []string{`{"description":"Widget","quantity":1,"unit_amount":333,"tax_rate_bps":150}`}, 333, 5, 338},
			{"PerLineRounding", "EUR", []string{
				`{"description":"A","quantity":3,"unit_amount":333,"tax_rate_bps":1900}`,
				`{"description":"B","quantity":1,"unit_amount":1,"tax_rate_bps":5000}`}, 1000, 191, 1191},
			{"JPYHasNoMinorUnit", "JPY", []string{`{"description":"Consulting","quantity":2,"unit_amount":15000,"tax_rate_bps":1000}`}, 30000, 3000, 33000},
			{"KWDHasThreeDigits", "KWD", []string{`{"description":"Service","quantity":1,"unit_amount":12345,"tax_rate_bps":500}`}, 12345, 617, 12962},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob, body: invoiceBody(tt.currency, tt.lines...)})
				if r.status != http.StatusCreated {
					t.Fatalf("create: %d %s", r.status, r.body)
				}
				inv := r.json(t)
				if inv["subtotal"] != tt.subtotal || inv["tax"] != tt.tax || inv["total"] != tt.total || inv["amount_due"] != tt.total || inv["amount_paid"] != 0.0 {
					t.Fatalf("subtotal/tax/total/due = %v/%v/%v/%v, want %v/%v/%v/%v",
						inv["subtotal"], inv["tax"], inv["total"], inv["amount_due"], tt.subtotal, tt.tax, tt.total, tt.total)
				}
				if inv["status"] != "open" || inv["currency"] != tt.currency {
					t.Fatalf("invoice = %v", inv)
				}
			})
		}
	})
}

func TestInvoiceValidation(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tests := []struct {
			name   string
			body   string
			status int
			fields []string
		}{
			{"UnknownCurrency", invoiceBody("ABC", `{"description":"x","quantity":1,"unit_amount":1}`), 422, []string{"currency"}},
			{"NoLines", invoiceBody("USD"), 422, []string{"line_items"}},
			{"BadLine", invoiceBody("USD", `{"description":"","quantity":0,"unit_amount":-5,"tax_rate_bps":10001}`), 422,
				[]string{"line_items[0].description", "line_items[0].quantity", "line_items[0].unit_amount", "line_items[0].tax_rate_bps"}},
			{"Overflow", invoiceBody("USD", `{"description":"x","quantity":1000000,"unit_amount":999999999999}`,
				`{"description":"y","quantity":1000000,"unit_amount":999999999999}`), 422, nil},
			{"BadCustomer", `{"customer":{"name":"","email":"not-an-email"},"currency":"USD","line_items":[{"description":"x","quantity":1,"unit_amount":1}]}`,
				422, []string{"customer.name", "customer.email"}},
			{"FractionalAmount", invoiceBody("USD", `{"description":"x","quantity":1,"unit_amount":19.99}`), 400, nil},
			{"StringAmount", invoiceBody("USD", `{"description":"x","quantity":"1","unit_amount":1}`), 400, nil},
			{"BadStatus", `{"customer":{"name":"A","email":"a@b.co"},"currency":"USD","status":"paid","line_items":[{"description":"x","quantity":1,"unit_amount":1}]}`, 422, []string{"status"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob, body: tt.body})
				if r.status != tt.status {
					t.Fatalf("status = %d, want %d: %s", r.status, tt.status, r.body)
				}
				got := map[string]bool{}
				if errs, ok := r.json(t)["errors"].([]any); ok {
					for _, fe := range errs {
						got[fe.(map[string]any)["field"].(string)] = true
					}
				}
				for _, f := range tt.fields {
					if !got[f] {
						t.Errorf("errors name %v, want %q among them", got, f)
					}
				}
			})
		}
		list := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices", bearer: e.keyBob}).json(t)
		if n := len(list["data"].([]any)); n != 0 {
			t.Fatalf("bad input created %d invoices", n)
		}
	})
}

func TestInvoiceListAndIsolation(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		line := `{"description":"x","quantity":1,"unit_amount":100}`
		var first string
		for i := 0; i < 45; i++ {
			body := fmt.Sprintf(`{"customer":{"name":"C","email":"c%d@example.com"},"currency":"USD","status":%q,"line_items":[%s]}`,
				i%2, []string{"open", "draft"}[i%3%2], line)
			r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob, body: body})
			if r.status != 201 {
				t.Fatalf("create %d: %d %s", i, r.status, r.body)
			}
			if i == 0 {
				first = r.json(t)["id"].(string)
			}
		}
		var sizes []int
		seen := map[string]bool{}
		var numbers []string
		path := "/api/v1/collections/invoices"
		for {
			page := e.do(t, request{method: "GET", path: path, bearer: e.keyBob}).json(t)
			data := page["data"].([]any)
			sizes = append(sizes, len(data))
			for _, d := range data {
				inv := d.(map[string]any)
				if seen[inv["id"].(string)] {
					t.Fatalf("invoice %s twice", inv["id"])
				}
				seen[inv["id"].(string)] = true
				number, numbered := inv["number"].(string)
				if numbered == (inv["status"] == "draft") {
					t.Fatalf("invoice %s is %s with number %v: drafts are unnumbered, the others numbered", inv["id"], inv["status"], inv["number"])
				}
				if numbered {
					numbers = append(numbers, number)
				}
			}
			if page["has_more"] != true {
				break
			}
			path = "/api/v1/collections/invoices?cursor=" + page["next_cursor"].(string)
		}
		if fmt.Sprint(sizes) != "[20 20 5]" {
			t.Fatalf("pages = %v, want [20 20 5]", sizes)
		}
		// 30 open invoices and 15 drafts: the open ones are numbered in
		// order, without a gap.
		for i, n := range numbers {
			if want := fmt.Sprintf("INV-%06d", 30-i); n != want {
				t.Fatalf("newest first: number %d is %s, want %s (all: %v)", i, n, want, numbers)
			}
		}
		if len(numbers) != 30 {
			t.Fatalf("%d numbered invoices, want 30", len(numbers))
		}
		drafts := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices?status=draft&limit=100", bearer: e.keyBob}).json(t)
		for _, d := range drafts["data"].([]any) {
			if d.(map[string]any)["status"] != "draft" {
				t.Fatalf("status filter returned %v", d)
			}
		}
		byEmail := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices?customer_email=c1@example.com&limit=100", bearer: e.keyBob}).json(t)
		if n := len(byEmail["data"].([]any)); n != 22 {
			t.Fatalf("customer_email filter = %d, want 22", n)
		}

		// globex cannot see acme's invoices.
		carolKey := e.newKey("alice@acme.test", "globex", "collections:read")
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + first, bearer: e.keyAll,
			header: map[string]string{"X-Tenant-ID": e.globex.ID}}), http.StatusForbidden, "forbidden") // alice is a member there
		_ = carolKey
		if r := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + first, bearer: e.keyBob}); r.status != 200 {
			t.Fatalf("own invoice: %d", r.status)
		}
	})
}

func TestInvoiceIsolation(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		// alice owns acme and gets owner rights in globex too for this test.
		_, err := e.svc.Members.Add(context.Background(), "globex", "bob@acme.test", "owner")
		check(t, err)
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		globex := map[string]string{"X-Tenant-ID": e.globex.ID}
		r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob, header: acme,
			body: invoiceBody("USD", `{"description":"x","quantity":1,"unit_amount":100}`)})
		id := r.json(t)["id"].(string)
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + id, bearer: e.keyBob, header: globex}),
			http.StatusNotFound, "not_found")
		list := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices", bearer: e.keyBob, header: globex}).json(t)
		if n := len(list["data"].([]any)); n != 0 {
			t.Fatalf("globex lists %d of acme's invoices", n)
		}
	})
}

func TestInvoiceNumbersAndLimitUnderConcurrency(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		create := func(n int) []response {
			out := make([]response, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					out[i] = e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
						body: invoiceBody("USD", `{"description":"x","quantity":1,"unit_amount":100}`)})
				}()
			}
			wg.Wait()
			return out
		}
		var numbers []string
		for _, r := range create(50) {
			if r.status != 201 {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			numbers = append(numbers, r.json(t)["number"].(string))
		}
		sort.Strings(numbers)
		for i, n := range numbers {
			if want := fmt.Sprintf("INV-%06d", i+1); n != want {
				t.Fatalf("numbers[%d] = %s, want %s (all: %v)", i, n, want, numbers)
			}
		}
		limit := int64(60)
		check(t, e.svc.Entitlements.SetLimit(context.Background(), "acme", catalog.FeatureInvoices, &limit))
		counts := map[int]int{}
		for _, r := range create(25) {
			counts[r.status]++
			if r.status == 403 && r.json(t)["code"] != "entitlement_limit_exceeded" {
				t.Fatalf("403 code = %v", r.json(t)["code"])
			}
		}
		if counts[201] != 10 || counts[403] != 15 {
			t.Fatalf("with 10 left of the limit: %v, want 10×201 and 15×403", counts)
		}
	})
}
