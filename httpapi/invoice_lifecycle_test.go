package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

const invoicesPath = "/api/v1/collections/invoices"

// mustInvoiceAs creates an invoice of acme for total (one untaxed line)
// over HTTP, as bob, in status: draft or open directly, the others from
// open through the API. It returns the invoice as answered.
func (e *env) mustInvoiceAs(t *testing.T, status string, total int64) map[string]any {
	t.Helper()
	create := "open"
	if status == "draft" {
		create = "draft"
	}
	body := fmt.Sprintf(`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","status":%q,`+
		`"due_date":"2026-12-31","memo":"Net 30","metadata":{"po":"PO-1","team":"ops"},`+
		`"line_items":[{"description":"Plan","quantity":1,"unit_amount":%d}]}`, create, total)
	r := e.do(t, request{method: "POST", path: invoicesPath, bearer: e.keyBob, body: body})
	if r.status != http.StatusCreated {
		t.Fatalf("create invoice: %d %s", r.status, r.body)
	}
	inv := r.json(t)
	id := inv["id"].(string)
	switch status {
	case "paid":
		r = e.do(t, request{method: "POST", path: invoicesPath + "/" + id + "/payments", bearer: e.keyBob,
			body: fmt.Sprintf(`{"amount":%d,"method":"cash"}`, total)})
		if r.status != http.StatusCreated {
			t.Fatalf("pay invoice: %d %s", r.status, r.body)
		}
		inv = e.mustGetInvoice(t, id)
	case "void", "uncollectible":
		action := map[string]string{"void": "void", "uncollectible": "mark-uncollectible"}[status]
		if r = e.do(t, request{method: "POST", path: invoicesPath + "/" + id + "/" + action, bearer: e.keyBob}); r.status != http.StatusOK {
			t.Fatalf("%s invoice: %d %s", action, r.status, r.body)
		}
		inv = r.json(t)
	}
	if inv["status"] != status {
		t.Fatalf("invoice is %v, want %s", inv["status"], status)
	}
	return inv
}

func (e *env) mustGetInvoice(t *testing.T, id string) map[string]any {
	t.Helper()
	r := e.do(t, request{method: "GET", path: invoicesPath + "/" + id, bearer: e.keyBob})
	if r.status != http.StatusOK {
		t.Fatalf("get invoice %s: %d %s", id, r.status, r.body)
	}
	return r.json(t)
}

// mustPayments returns the whole ledger of the invoice, newest first.
func (e *env) mustPayments(t *testing.T, id string) []map[string]any {
	t.Helper()
	r := e.do(t, request{method: "GET", path: invoicesPath + "/" + id + "/payments?limit=100", bearer: e.keyBob})
	if r.status != http.StatusOK {
		t.Fatalf("list payments: %d %s", r.status, r.body)
	}
	var out []map[string]any
	for _, p := range r.json(t)["data"].([]any) {
		out = append(out, p.(map[string]any))
	}
	return out
}

// wantConflictFrom checks a 409 conflict that names the invoice's status.
func wantConflictFrom(t *testing.T, r response, status string) {
	t.Helper()
	wantProblem(t, r, http.StatusConflict, "conflict")
	if got := r.json(t)["current_status"]; got != status {
		t.Fatalf("current_status = %v, want %q; body %s", got, status, r.body)
	}
}

// sameJSON reports whether two decoded invoices are equal.
func sameJSON(a, b map[string]any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestInvoicePatch(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tests := []struct {
			name string
			body string
			want func(inv map[string]any)
		}{
			{"Nothing", `{}`, func(map[string]any) {}},
			{"CustomerName", `{"customer":{"name":" Grace Hopper "}}`, func(inv map[string]any) {
				inv["customer"] = map[string]any{"name": "Grace Hopper", "email": "ada@example.com", "locale": "en"}
			}},
			{"LinesRecomputed", `{"line_items":[{"description":"Consulting","quantity":2,"unit_amount":1999,"tax_rate_bps":825},{"description":"Travel","quantity":1,"unit_amount":500}]}`,
				func(inv map[string]any) {
					inv["line_items"] = []any{
						map[string]any{"description": "Consulting", "quantity": 2.0, "unit_amount": 1999.0, "tax_rate_bps": 825.0, "amount": 3998.0},
						map[string]any{"description": "Travel", "quantity": 1.0, "unit_amount": 500.0, "tax_rate_bps": 0.0, "amount": 500.0},
					}
					inv["subtotal"], inv["tax"], inv["total"], inv["amount_due"] = 4498.0, 330.0, 4828.0, 4828.0
				}},
			{"NullsClearAndKeep", `{"due_date":null,"memo":null,"customer":null,"line_items":null}`, func(inv map[string]any) {
				delete(inv, "due_date")
				inv["memo"] = ""
			}},
			{"MetadataMerged", `{"metadata":{"team":null,"order":"ord_7"}}`, func(inv map[string]any) {
				inv["metadata"] = map[string]any{"po": "PO-1", "order": "ord_7"}
			}},
			{"MetadataNullClears", `{"metadata":null,"due_date":"2027-01-15"}`, func(inv map[string]any) {
				inv["metadata"], inv["due_date"] = map[string]any{}, "2027-01-15"
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				draft := e.mustInvoiceAs(t, "draft", 1000)
				r := e.do(t, request{method: "PATCH", path: invoicesPath + "/" + draft["id"].(string), bearer: e.keyBob, body: tt.body})
				if r.status != http.StatusOK {
					t.Fatalf("PATCH: %d %s", r.status, r.body)
				}
				tt.want(draft)
				if got := r.json(t); !sameJSON(got, draft) {
					t.Errorf("answer\n got %v\nwant %v", got, draft)
				}
				if got := e.mustGetInvoice(t, draft["id"].(string)); !sameJSON(got, draft) {
					t.Errorf("stored\n got %v\nwant %v", got, draft)
				}
			})
		}

		refused := []struct {
			name   string
			status string // of the invoice
			body   string
			code   int
			fields []string
		}{
			{"EmptyLines", "draft", `{"line_items":[]}`, 422, []string{"line_items"}},
			{"BadLine", "draft", `{"line_items":[{"description":"","quantity":0,"unit_amount":-1}]}`, 422,
				[]string{"line_items[0].description", "line_items[0].quantity", "line_items[0].unit_amount"}},
			{"BadEmail", "draft", `{"customer":{"email":"nope"}}`, 422, []string{"customer.email"}},
			{"BadDate", "draft", `{"due_date":"31/12/2026"}`, 422, []string{"due_date"}},
			{"DateOfWrongType", "draft", `{"memo":"long enough to move the offset","due_date":20261231}`, 400, []string{"due_date"}},
			{"MetadataValueOfWrongType", "draft", `{"metadata":{"a":1}}`, 400, []string{"metadata"}},
			{"NulInMemo", "draft", `{"memo":"a\u0000b"}`, 422, []string{"memo"}},
			{"CurrencyCannotChange", "draft", `{"currency":"EUR"}`, 400, []string{"currency"}},
			{"UnknownCustomerField", "draft", `{"customer":{"nmae":"x"}}`, 400, []string{"nmae"}},
			{"Open", "open", `{"memo":"x"}`, 409, nil},
			{"Paid", "paid", `{}`, 409, nil},
		}
		for _, tt := range refused {
			t.Run("Refused"+tt.name, func(t *testing.T) {
				before := e.mustInvoiceAs(t, tt.status, 1000)
				id := before["id"].(string)
				r := e.do(t, request{method: "PATCH", path: invoicesPath + "/" + id, bearer: e.keyBob, body: tt.body})
				if r.status != tt.code {
					t.Fatalf("status = %d, want %d: %s", r.status, tt.code, r.body)
				}
				if tt.code == 409 {
					wantConflictFrom(t, r, tt.status)
				}
				got := map[string]bool{}
				if errs, ok := r.json(t)["errors"].([]any); ok {
					for _, fe := range errs {
						got[fe.(map[string]any)["field"].(string)] = true
					}
				}
				for _, f := range tt.fields {
					if !got[f] {
						t.Errorf("errors name %v, want %q among them; body %s", got, f, r.body)
					}
				}
				if after := e.mustGetInvoice(t, id); !sameJSON(after, before) {
					t.Errorf("the refused PATCH changed the invoice:\n got %v\nwant %v", after, before)
				}
			})
		}
	})
}

func TestInvoiceDelete(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		draft := e.mustInvoiceAs(t, "draft", 1000)["id"].(string)
		r := e.do(t, request{method: "DELETE", path: invoicesPath + "/" + draft, bearer: e.keyBob})
		if r.status != http.StatusNoContent || len(r.body) != 0 {
			t.Fatalf("DELETE draft: %d %q, want 204 and no body", r.status, r.body)
		}
		wantProblem(t, e.do(t, request{method: "GET", path: invoicesPath + "/" + draft, bearer: e.keyBob}), 404, "not_found")
		wantProblem(t, e.do(t, request{method: "DELETE", path: invoicesPath + "/" + draft, bearer: e.keyBob}), 404, "not_found")

		for _, status := range []string{"open", "paid", "void", "uncollectible"} {
			t.Run("Refused"+status, func(t *testing.T) {
				inv := e.mustInvoiceAs(t, status, 1000)
				wantConflictFrom(t, e.do(t, request{method: "DELETE", path: invoicesPath + "/" + inv["id"].(string), bearer: e.keyBob}), status)
				if after := e.mustGetInvoice(t, inv["id"].(string)); !sameJSON(after, inv) {
					t.Errorf("refused DELETE changed the invoice")
				}
			})
		}

		// Deleting a draft leaves no gap: numbers go on from the last one.
		first := e.mustInvoiceAs(t, "open", 10)["number"]
		gone := e.mustInvoiceAs(t, "draft", 10)["id"].(string)
		if r := e.do(t, request{method: "DELETE", path: invoicesPath + "/" + gone, bearer: e.keyBob}); r.status != 204 {
			t.Fatalf("DELETE: %d %s", r.status, r.body)
		}
		next := e.mustInvoiceAs(t, "open", 10)["number"]
		if first == nil || fmt.Sprint(next) != nextNumber(t, first.(string)) {
			t.Errorf("numbers %v then %v around a deleted draft, want consecutive", first, next)
		}
	})
}

// nextNumber returns the number after n ("INV-000007" → "INV-000008").
func nextNumber(t *testing.T, n string) string {
	t.Helper()
	var i int
	if _, err := fmt.Sscanf(n, "INV-%d", &i); err != nil {
		t.Fatalf("number %q: %v", n, err)
	}
	return fmt.Sprintf("INV-%06d", i+1)
}

// TestInvoiceMoves runs every move from every status: each reaches the
// status in the table, or is a 409 conflict naming the status it is in
// and changes nothing.
func TestInvoiceMoves(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		moves := []string{"finalize", "void", "mark-uncollectible"}
		// want[from] is the status each move reaches, "" for refused.
		want := map[string][3]string{
			"draft":         {"open", "", ""},
			"open":          {"", "void", "uncollectible"},
			"paid":          {"", "", ""},
			"void":          {"", "", ""},
			"uncollectible": {"", "", ""},
		}
		for _, from := range []string{"draft", "open", "paid", "void", "uncollectible"} {
			for i, move := range moves {
				t.Run(from+"/"+move, func(t *testing.T) {
					before := e.mustInvoiceAs(t, from, 1000)
					id := before["id"].(string)
					r := e.do(t, request{method: "POST", path: invoicesPath + "/" + id + "/" + move, bearer: e.keyBob})
					to := want[from][i]
					if to == "" {
						wantConflictFrom(t, r, from)
						if !strings.Contains(r.json(t)["detail"].(string), "invoice is "+from) {
							t.Errorf("detail %q does not say the status", r.json(t)["detail"])
						}
						if after := e.mustGetInvoice(t, id); !sameJSON(after, before) {
							t.Errorf("refused %s changed the invoice", move)
						}
						return
					}
					if r.status != http.StatusOK {
						t.Fatalf("%s: %d %s", move, r.status, r.body)
					}
					got := r.json(t)
					if got["status"] != to {
						t.Fatalf("status %v, want %s", got["status"], to)
					}
					switch move {
					case "finalize":
						if _, numbered := got["number"].(string); !numbered || got["finalized_at"] == nil {
							t.Errorf("finalized invoice without number or finalized_at: %v", got)
						}
					case "void":
						if got["amount_due"] != 0.0 {
							t.Errorf("void invoice has amount_due %v", got["amount_due"])
						}
					case "mark-uncollectible":
						if got["amount_due"] != 1000.0 {
							t.Errorf("uncollectible invoice has amount_due %v, want 1000", got["amount_due"])
						}
					}
					if stored := e.mustGetInvoice(t, id); !sameJSON(stored, got) {
						t.Errorf("stored %v, answered %v", stored, got)
					}
				})
			}
		}
		t.Run("FinalizeFreeDraftPays", func(t *testing.T) {
			draft := e.mustInvoiceAs(t, "draft", 0)
			r := e.do(t, request{method: "POST", path: invoicesPath + "/" + draft["id"].(string) + "/finalize", bearer: e.keyBob})
			if r.status != 200 || r.json(t)["status"] != "paid" {
				t.Fatalf("finalize a free draft: %d %s", r.status, r.body)
			}
		})
	})
}

func TestInvoicePaymentsRecorded(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		inv := e.mustInvoiceAs(t, "open", 1000)["id"].(string)
		pay := func(body string, header map[string]string) response {
			return e.do(t, request{method: "POST", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyBob, body: body, header: header})
		}
		r := pay(`{"amount":400,"currency":"USD","method":"bank_transfer","reference":"SEPA #4711","received_at":"2026-11-20T16:30:00+01:00"}`, nil)
		if r.status != http.StatusCreated {
			t.Fatalf("record: %d %s", r.status, r.body)
		}
		first := r.json(t)
		if first["amount"] != 400.0 || first["currency"] != "USD" || first["source"] != "manual" || first["kind"] != "payment" ||
			first["method"] != "bank_transfer" || first["reference"] != "SEPA #4711" || first["received_at"] != "2026-11-20T15:30:00Z" ||
			first["invoice_id"] != inv {
			t.Errorf("payment = %s", r.body)
		}
		if got := e.invoiceState(t, inv); got != (invoiceState{paid: 400, due: 600, status: "open"}) {
			t.Errorf("after 400: %+v", got)
		}

		refused := []struct {
			name, body string
			status     int
			code       string
			field      string
		}{
			{"Overpay", `{"amount":601,"method":"cash"}`, 422, "validation_failed", "amount"},
			{"Zero", `{"amount":0,"method":"cash"}`, 422, "validation_failed", "amount"},
			{"Negative", `{"amount":-5,"method":"cash"}`, 422, "validation_failed", "amount"},
			{"Fraction", `{"amount":1.5,"method":"cash"}`, 400, "invalid_request", "amount"},
			{"OtherCurrency", `{"amount":10,"currency":"EUR","method":"cash"}`, 422, "validation_failed", "currency"},
			{"UnknownCurrency", `{"amount":10,"currency":"ABC","method":"cash"}`, 422, "validation_failed", "currency"},
			{"NoMethod", `{"amount":10}`, 422, "validation_failed", "method"},
			{"BadMethod", `{"amount":10,"method":"barter"}`, 422, "validation_failed", "method"},
			{"Future", `{"amount":10,"method":"cash","received_at":"2999-01-01T00:00:00Z"}`, 422, "validation_failed", "received_at"},
			{"NotATime", `{"amount":10,"method":"cash","received_at":"yesterday"}`, 400, "invalid_request", ""},
			{"UnknownField", `{"amount":10,"method":"cash","note":"x"}`, 400, "invalid_request", "note"},
		}
		for _, tt := range refused {
			t.Run("Refused"+tt.name, func(t *testing.T) {
				r := pay(tt.body, nil)
				wantProblem(t, r, tt.status, tt.code)
				if tt.field != "" && !strings.Contains(string(r.body), `"field":"`+tt.field+`"`) {
					t.Errorf("problem does not name %q: %s", tt.field, r.body)
				}
			})
		}
		if got := e.invoiceState(t, inv); got != (invoiceState{paid: 400, due: 600, status: "open"}) {
			t.Fatalf("refused payments changed the invoice: %+v", got)
		}
		if n := len(e.mustPayments(t, inv)); n != 1 {
			t.Fatalf("ledger has %d entries after refused payments, want 1", n)
		}

		t.Run("IdempotencyKey", func(t *testing.T) {
			key := map[string]string{"Idempotency-Key": `"pay-rest-1"`}
			body := `{"amount":600,"method":"check","reference":"check 123"}`
			r1, r2 := pay(body, key), pay(body, key)
			if r1.status != 201 || r2.status != 201 || string(r1.body) != string(r2.body) || r2.header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("retry with the same key: %d %s / %d %s (replayed %q)", r1.status, r1.body, r2.status, r2.body, r2.header.Get("Idempotent-Replayed"))
			}
			wantProblem(t, pay(`{"amount":1,"method":"check"}`, key), 422, "idempotency_key_reused")
			if got := e.invoiceState(t, inv); got != (invoiceState{paid: 1000, due: 0, status: "paid"}) {
				t.Fatalf("after the rest, once: %+v", got)
			}
			if n := len(e.mustPayments(t, inv)); n != 2 {
				t.Fatalf("ledger has %d entries, want 2", n)
			}
		})
		for _, status := range []string{"draft", "paid", "void", "uncollectible"} {
			t.Run("Refused"+status, func(t *testing.T) {
				other := e.mustInvoiceAs(t, status, 1000)
				id := other["id"].(string)
				entries := len(e.mustPayments(t, id))
				wantConflictFrom(t, e.do(t, request{method: "POST", path: invoicesPath + "/" + id + "/payments", bearer: e.keyBob,
					body: `{"amount":1,"method":"cash"}`}), status)
				if after := e.mustGetInvoice(t, id); !sameJSON(after, other) {
					t.Errorf("refused payment changed the invoice")
				}
				if n := len(e.mustPayments(t, id)); n != entries {
					t.Errorf("ledger grew from %d to %d", entries, n)
				}
			})
		}
	})
}

// TestInvoicePaymentsEverySource: the webhook's and the tenant's payments
// land on the same running sums and in the same ledger, in either order.
func TestInvoicePaymentsEverySource(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("WebhookThenManual", func(t *testing.T) {
			inv := e.mustInvoiceAs(t, "open", 1000)["id"].(string)
			evt := newEventID()
			wantAck(t, e.deliver(t, paymentEvent(evt, webhook.TypePaymentSucceeded, inv, 700, "USD")), false, "applied")
			wantProblem(t, e.do(t, request{method: "POST", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyBob,
				body: `{"amount":301,"method":"cash"}`}), 422, "validation_failed")
			if r := e.do(t, request{method: "POST", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyBob,
				body: `{"amount":300,"method":"cash"}`}); r.status != 201 {
				t.Fatalf("record the rest: %d %s", r.status, r.body)
			}
			if got := e.invoiceState(t, inv); got != (invoiceState{paid: 1000, due: 0, status: "paid"}) {
				t.Fatalf("invoice %+v", got)
			}
			// A refund by the provider reopens it, and shows in the ledger.
			wantAck(t, e.deliver(t, paymentEvent(newEventID(), webhook.TypePaymentRefunded, inv, 100, "USD")), false, "applied")
			// An event that does not fit leaves no entry.
			wantAck(t, e.deliver(t, paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 100, "EUR")), false, "unmatched")
			entries := e.mustPayments(t, inv)
			var got []string
			for _, p := range entries {
				got = append(got, fmt.Sprintf("%s/%s/%v", p["source"], p["kind"], p["amount"]))
			}
			if want := []string{"webhook/refund/100", "manual/payment/300", "webhook/payment/700"}; !slices.Equal(got, want) {
				t.Fatalf("ledger %v, want %v", got, want)
			}
			if entries[2]["event_id"] != evt || entries[2]["reference"] != "pay_1" || entries[2]["received_at"] != "2026-11-21T10:00:00Z" {
				t.Errorf("webhook entry %v, want the event, the provider's payment id and the event's time", entries[2])
			}
			if _, has := entries[1]["event_id"]; has {
				t.Errorf("manual entry has an event_id: %v", entries[1])
			}
			if got := e.invoiceState(t, inv); got != (invoiceState{paid: 900, due: 100, status: "open"}) {
				t.Fatalf("after the refund: %+v", got)
			}
		})
		t.Run("ManualThenWebhookOverpays", func(t *testing.T) {
			inv := e.mustInvoiceAs(t, "open", 1000)["id"].(string)
			if r := e.do(t, request{method: "POST", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyBob,
				body: `{"amount":800,"method":"card"}`}); r.status != 201 {
				t.Fatalf("record: %d %s", r.status, r.body)
			}
			// The provider's money has moved: more than is due is kept.
			wantAck(t, e.deliver(t, paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 500, "USD")), false, "applied")
			if got := e.invoiceState(t, inv); got != (invoiceState{paid: 1300, due: 0, status: "paid"}) {
				t.Fatalf("invoice %+v", got)
			}
			if n := len(e.mustPayments(t, inv)); n != 2 {
				t.Fatalf("ledger has %d entries, want 2", n)
			}
		})
		t.Run("Pages", func(t *testing.T) {
			inv := e.mustInvoiceAs(t, "open", 1000)["id"].(string)
			for range 5 {
				if r := e.do(t, request{method: "POST", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyBob,
					body: `{"amount":10,"method":"cash"}`}); r.status != 201 {
					t.Fatalf("record: %d %s", r.status, r.body)
				}
			}
			all := e.mustPayments(t, inv)
			var seen []any
			path := invoicesPath + "/" + inv + "/payments?limit=2"
			for {
				page := e.do(t, request{method: "GET", path: path, bearer: e.keyBob}).json(t)
				for _, p := range page["data"].([]any) {
					seen = append(seen, p.(map[string]any)["id"])
				}
				if page["has_more"] != true {
					break
				}
				path = invoicesPath + "/" + inv + "/payments?limit=2&cursor=" + page["next_cursor"].(string)
			}
			var want []any
			for _, p := range all {
				want = append(want, p["id"])
			}
			if len(all) != 5 || fmt.Sprint(seen) != fmt.Sprint(want) {
				t.Fatalf("paged %v, want %v", seen, want)
			}
			wantProblem(t, e.do(t, request{method: "GET", path: invoicesPath + "/" + inv + "/payments?cursor=nope", bearer: e.keyBob}),
				400, "invalid_request")
		})
	})
}

// TestInvoiceLifecycleIsolation: another tenant's invoice id answers 404
// on every route, and nothing of it changes.
func TestInvoiceLifecycleIsolation(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		draft := e.mustInvoiceAs(t, "draft", 1000)
		open := e.mustInvoiceAs(t, "open", 1000)
		_, err := e.svc.Members.Add(context.Background(), "globex", "bob@acme.test", "owner")
		check(t, err)
		globex := map[string]string{"X-Tenant-ID": e.globex.ID}
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		for _, tt := range []struct {
			method, path, body string
		}{
			{"PATCH", "/" + draft["id"].(string), `{"memo":"mine now"}`},
			{"DELETE", "/" + draft["id"].(string), ""},
			{"POST", "/" + draft["id"].(string) + "/finalize", ""},
			{"POST", "/" + open["id"].(string) + "/void", ""},
			{"POST", "/" + open["id"].(string) + "/mark-uncollectible", ""},
			{"POST", "/" + open["id"].(string) + "/payments", `{"amount":1,"method":"cash"}`},
			{"GET", "/" + open["id"].(string) + "/payments", ""},
		} {
			t.Run(tt.method+tt.path[strings.LastIndex(tt.path, "/"):], func(t *testing.T) {
				wantProblem(t, e.do(t, request{method: tt.method, path: invoicesPath + tt.path, body: tt.body, bearer: e.keyBob, header: globex}),
					http.StatusNotFound, "not_found")
			})
		}
		for _, inv := range []map[string]any{draft, open} {
			r := e.do(t, request{method: "GET", path: invoicesPath + "/" + inv["id"].(string), bearer: e.keyBob, header: acme})
			if r.status != 200 || !sameJSON(r.json(t), inv) {
				t.Errorf("acme's invoice changed: %d %s", r.status, r.body)
			}
		}
		r := e.do(t, request{method: "GET", path: invoicesPath + "/" + open["id"].(string) + "/payments", bearer: e.keyBob, header: acme})
		if r.status != 200 || len(r.json(t)["data"].([]any)) != 0 {
			t.Errorf("acme's ledger: %d %s, want it empty", r.status, r.body)
		}
	})
}

// TestInvoiceLifecycleAccess: the new routes need what create and get
// need: collections:write and invoices:write to act, collections:read and
// invoices:read to read.
func TestInvoiceLifecycleAccess(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		inv := e.mustInvoiceAs(t, "open", 1000)["id"].(string)
		readOnly := e.newKey("bob@acme.test", "", "collections:read")
		// alice is a member of globex, a role without the invoice permissions.
		member := map[string]string{"X-Tenant-ID": e.globex.ID}
		theirs := "/inv_01jd0000000000000000000000"
		for _, tt := range []struct {
			name   string
			req    request
			status int
			code   string
		}{
			{"PatchWithReadScope", request{method: "PATCH", path: invoicesPath + "/" + inv, bearer: readOnly, body: `{}`}, 403, "insufficient_scope"},
			{"VoidWithReadScope", request{method: "POST", path: invoicesPath + "/" + inv + "/void", bearer: readOnly}, 403, "insufficient_scope"},
			{"PayWithTicketScope", request{method: "POST", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyNone, body: `{"amount":1,"method":"cash"}`}, 403, "insufficient_scope"},
			{"ListPaymentsWithTicketScope", request{method: "GET", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyNone}, 403, "insufficient_scope"},
			{"FinalizeAsMember", request{method: "POST", path: invoicesPath + theirs + "/finalize", bearer: e.keyAll, header: member}, 403, "forbidden"},
			{"DeleteAsMember", request{method: "DELETE", path: invoicesPath + theirs, bearer: e.keyAll, header: member}, 403, "forbidden"},
			{"ListPaymentsAsMember", request{method: "GET", path: invoicesPath + theirs + "/payments", bearer: e.keyAll, header: member}, 403, "forbidden"},
			{"NoCredential", request{method: "POST", path: invoicesPath + "/" + inv + "/mark-uncollectible"}, 401, "unauthenticated"},
			{"MalformedID", request{method: "POST", path: invoicesPath + "/inv_nope/finalize", bearer: e.keyBob}, 404, "not_found"},
		} {
			t.Run(tt.name, func(t *testing.T) { wantProblem(t, e.do(t, tt.req), tt.status, tt.code) })
		}
		// The read-only key may read the ledger.
		if r := e.do(t, request{method: "GET", path: invoicesPath + "/" + inv + "/payments", bearer: readOnly}); r.status != 200 {
			t.Errorf("list payments with collections:read: %d %s", r.status, r.body)
		}
		if got := e.invoiceState(t, inv); got.status != "open" {
			t.Errorf("refused requests changed the invoice: %+v", got)
		}
	})
}

// race sends the requests at once and returns their answers in order.
func (e *env) race(t *testing.T, reqs ...request) []response {
	t.Helper()
	out := make([]response, len(reqs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, req := range reqs {
		wg.Go(func() {
			<-start
			out[i] = e.do(t, req)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// TestInvoicePaymentsConcurrent: manual payments racing on one invoice
// never take it past its total, whatever the order; each one is either
// booked (201, one ledger entry) or refused whole: 422 on the amount while
// the invoice is still open, 409 once it is paid.
func TestInvoicePaymentsConcurrent(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, tt := range []struct {
			name      string
			amounts   []int64
			wantBooks int
			wantPaid  float64
		}{
			{"WholeAmountTwice", []int64{1000, 1000}, 1, 1000},
			{"WholeAmountEightTimes", []int64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, 1, 1000},
			{"ThirdsOfMore", []int64{300, 300, 300, 300, 300, 300}, 3, 900},
		} {
			t.Run(tt.name, func(t *testing.T) {
				inv := e.mustInvoiceAs(t, "open", 1000)["id"].(string)
				var reqs []request
				for _, a := range tt.amounts {
					reqs = append(reqs, request{method: "POST", path: invoicesPath + "/" + inv + "/payments", bearer: e.keyBob,
						body: fmt.Sprintf(`{"amount":%d,"method":"bank_transfer"}`, a)})
				}
				counts := map[int]int{}
				for _, r := range e.race(t, reqs...) {
					counts[r.status]++
					switch r.status {
					case 422:
						if !strings.Contains(string(r.body), `"field":"amount"`) {
							t.Errorf("refusal %s, want one on amount", r.body)
						}
					case 409:
						wantConflictFrom(t, r, "paid")
					}
				}
				if counts[201] != tt.wantBooks || counts[201]+counts[422]+counts[409] != len(tt.amounts) {
					t.Fatalf("answers %v, want %d×201 and the rest 422 or 409", counts, tt.wantBooks)
				}
				got := e.invoiceState(t, inv)
				if got.paid != tt.wantPaid || got.paid+got.due != 1000 {
					t.Fatalf("invoice %+v, want paid %v of 1000", got, tt.wantPaid)
				}
				if n := len(e.mustPayments(t, inv)); n != tt.wantBooks {
					t.Fatalf("ledger has %d entries, want %d", n, tt.wantBooks)
				}
			})
		}
	})
}

// TestInvoiceMovesConcurrent: moves racing on one invoice leave exactly
// one outcome, and the answers agree with it.
func TestInvoiceMovesConcurrent(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		move := func(id, action string) request {
			return request{method: "POST", path: invoicesPath + "/" + id + "/" + action, bearer: e.keyBob}
		}
		t.Run("FinalizeRacingVoid", func(t *testing.T) {
			outcomes := map[string]int{}
			for range 8 {
				id := e.mustInvoiceAs(t, "draft", 1000)["id"].(string)
				rs := e.race(t, move(id, "finalize"), move(id, "void"))
				final := e.mustGetInvoice(t, id)["status"]
				if rs[0].status != 200 {
					t.Fatalf("finalize: %d %s", rs[0].status, rs[0].body)
				}
				switch rs[1].status {
				case 200: // void came second: it voids the finalized invoice
					if final != "void" {
						t.Fatalf("void answered 200 but the invoice is %v", final)
					}
				case 409: // void came first: the draft could not be voided
					wantConflictFrom(t, rs[1], "draft")
					if final != "open" {
						t.Fatalf("void refused on the draft but the invoice is %v", final)
					}
				default:
					t.Fatalf("void: %d %s", rs[1].status, rs[1].body)
				}
				outcomes[fmt.Sprint(final)]++
			}
			t.Logf("outcomes: %v", outcomes)
		})
		t.Run("VoidRacingMarkUncollectible", func(t *testing.T) {
			for range 5 {
				id := e.mustInvoiceAs(t, "open", 1000)["id"].(string)
				rs := e.race(t, move(id, "void"), move(id, "mark-uncollectible"), move(id, "finalize"))
				final := e.mustGetInvoice(t, id)["status"]
				// Finalize never applies to an open invoice; it saw it open or
				// already moved.
				wantProblem(t, rs[2], http.StatusConflict, "conflict")
				if got := rs[2].json(t)["current_status"]; got != "open" && got != final {
					t.Fatalf("finalize refused with current_status %v, want open or %v", got, final)
				}
				won := 0
				for i, to := range []string{"void", "uncollectible"} {
					switch rs[i].status {
					case 200:
						won++
						if final != to {
							t.Fatalf("%s answered 200 but the invoice is %v", to, final)
						}
					case 409:
						wantConflictFrom(t, rs[i], fmt.Sprint(final))
					default:
						t.Fatalf("%d %s", rs[i].status, rs[i].body)
					}
				}
				if won != 1 {
					t.Fatalf("%d moves won, want exactly 1", won)
				}
			}
		})
		t.Run("FinalizeRacingItself", func(t *testing.T) {
			id := e.mustInvoiceAs(t, "draft", 1000)["id"].(string)
			before := e.mustInvoiceAs(t, "open", 10)["number"].(string)
			rs := e.race(t, move(id, "finalize"), move(id, "finalize"), move(id, "finalize"), move(id, "finalize"))
			ok := 0
			for _, r := range rs {
				if r.status == 200 {
					ok++
					if got := r.json(t)["number"]; got != nextNumber(t, before) {
						t.Errorf("number %v, want %s", got, nextNumber(t, before))
					}
					continue
				}
				wantConflictFrom(t, r, "open")
			}
			if ok != 1 {
				t.Fatalf("%d finalizes succeeded, want 1", ok)
			}
			// The refused ones took no number.
			if after := e.mustInvoiceAs(t, "open", 10)["number"].(string); after != nextNumber(t, nextNumber(t, before)) {
				t.Fatalf("next number %s, want %s: a refused finalize took one", after, nextNumber(t, nextNumber(t, before)))
			}
		})
	})
}

// TestInvoiceFinalizeConcurrentNumbers: drafts finalized at once, while
// other invoices are created open, get distinct numbers without a gap.
func TestInvoiceFinalizeConcurrentNumbers(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		const drafts, creates = 20, 10
		var reqs []request
		for range drafts {
			id := e.mustInvoiceAs(t, "draft", 1000)["id"].(string)
			reqs = append(reqs, request{method: "POST", path: invoicesPath + "/" + id + "/finalize", bearer: e.keyBob})
		}
		for range creates {
			reqs = append(reqs, request{method: "POST", path: invoicesPath, bearer: e.keyBob,
				body: invoiceBody("USD", `{"description":"x","quantity":1,"unit_amount":100}`)})
		}
		deadline := time.Now()
		var numbers []string
		for _, r := range e.race(t, reqs...) {
			if r.status != 200 && r.status != 201 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			numbers = append(numbers, r.json(t)["number"].(string))
		}
		slices.Sort(numbers)
		for i, n := range numbers {
			if want := fmt.Sprintf("INV-%06d", i+1); n != want {
				t.Fatalf("numbers %v: want INV-000001 … INV-%06d once each", numbers, drafts+creates)
			}
		}
		t.Logf("%d numbers in %v", len(numbers), time.Since(deadline).Round(time.Millisecond))
	})
}
