package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	opkey "github.com/tenantkit/tenantkit/tenancy/operator"
)

// testTenant is a test tenant made through the operator API, with alice
// its owner and bob a member, and the operator key that made it.
type testTenant struct {
	id    string
	clock time.Time
	opKey string
}

// newTestTenant creates a test tenant on the growth plan through POST
// /api/operator/tenants with "test": true.
func newTestTenant(t *testing.T, e *env, slug string) testTenant {
	t.Helper()
	_, key := newOperatorKey(t, e, opkey.ScopeRead, opkey.ScopeWrite)
	r := e.do(t, request{method: "POST", path: "/api/operator/tenants", bearer: key,
		body: `{"slug":"` + slug + `","name":"Test Co","plan_id":"growth","test":true}`})
	if r.status != http.StatusCreated {
		t.Fatalf("create test tenant: %d %s", r.status, r.body)
	}
	body := r.json(t)
	if body["test"] != true || body["test_clock"] == nil {
		t.Fatalf("created tenant %s: want test and test_clock", r.body)
	}
	ctx := context.Background()
	_, err := e.svc.Members.Add(ctx, slug, "alice@acme.test", tenancy.RoleOwner)
	check(t, err)
	_, err = e.svc.Members.Add(ctx, slug, "bob@acme.test", tenancy.RoleMember)
	check(t, err)
	return testTenant{id: body["id"].(string), clock: mustTime(t, body["test_clock"]), opKey: key}
}

// advance moves tt's clock to to through the operator API and checks the
// answer: the tenant with its new test_clock.
func (tt *testTenant) advance(t *testing.T, e *env, to time.Time) {
	t.Helper()
	r := e.do(t, request{method: "POST", path: "/api/operator/tenants/" + tt.id + "/clock", bearer: tt.opKey,
		body: `{"advance_to":"` + to.Format(time.RFC3339) + `"}`})
	if r.status != http.StatusOK {
		t.Fatalf("advance clock to %s: %d %s", to, r.status, r.body)
	}
	body := r.json(t)
	if got := mustTime(t, body["test_clock"]); !got.Equal(to) || body["id"] != tt.id {
		t.Fatalf("advanced tenant %s: want test_clock %s", r.body, to)
	}
	tt.clock = to
}

// nextMonth is the start of the month after at's, plus an hour: past the
// end of at's billing period.
func nextMonth(at time.Time) time.Time {
	y, m, _ := at.UTC().Date()
	return time.Date(y, m+1, 1, 1, 0, 0, 0, time.UTC)
}

func mustTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("time %v: %v", v, err)
	}
	return at
}

// page reads a list answer: its items, has_more and next_cursor.
func page(t *testing.T, r response) ([]map[string]any, bool, string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	body := r.json(t)
	var items []map[string]any
	for _, it := range body["data"].([]any) {
		items = append(items, it.(map[string]any))
	}
	next, _ := body["next_cursor"].(string)
	return items, body["has_more"] == true, next
}

// TestPlatformInvoices walks the platform's invoices through both APIs: a
// test tenant's clock, advanced by the operator past two month ends,
// generates two invoices, which the tenant lists and reads (GET
// /api/invoices), and the operator lists, voids and marks paid.
func TestPlatformInvoices(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tt := newTestTenant(t, e, "test-co")
		first := nextMonth(tt.clock)
		tt.advance(t, e, first)
		second := nextMonth(first)
		tt.advance(t, e, second)
		alice := map[string]string{"X-Tenant-ID": tt.id}

		var ids []string
		t.Run("TenantListsNewestFirst", func(t *testing.T) {
			items, more, _ := page(t, e.do(t, request{method: "GET", path: "/api/invoices", bearer: e.keyAll, header: alice}))
			if len(items) != 2 || more {
				t.Fatalf("%d invoices (more %v), want 2", len(items), more)
			}
			for _, it := range items {
				ids = append(ids, it["id"].(string))
				if it["tenant_id"] != tt.id || it["status"] != "open" || !strings.HasPrefix(it["id"].(string), "pin_") {
					t.Errorf("invoice %v: want test-co's, open", it)
				}
			}
			// Newest first: the second period's invoice leads.
			if a, b := mustTime(t, items[0]["period_start"]), mustTime(t, items[1]["period_start"]); !a.After(b) {
				t.Errorf("period starts %s, %s: want newest first", a, b)
			}
		})
		if len(ids) != 2 {
			t.FailNow()
		}

		t.Run("TenantPages", func(t *testing.T) {
			items, more, next := page(t, e.do(t, request{method: "GET", path: "/api/invoices?limit=1", bearer: e.keyAll, header: alice}))
			if len(items) != 1 || !more || next == "" || items[0]["id"] != ids[0] {
				t.Fatalf("first page %v more %v next %q", items, more, next)
			}
			items, more, _ = page(t, e.do(t, request{method: "GET", path: "/api/invoices?limit=1&cursor=" + next, bearer: e.keyAll, header: alice}))
			if len(items) != 1 || more || items[0]["id"] != ids[1] {
				t.Fatalf("second page %v more %v", items, more)
			}
		})

		t.Run("TenantGetAndAccess", func(t *testing.T) {
			tests := []struct {
				name   string
				bearer string
				tenant string
				path   string
				status int
				code   string
			}{
				{"Owner", e.keyAll, tt.id, "/api/invoices/" + ids[0], http.StatusOK, ""},
				{"StatusFilter", e.keyAll, tt.id, "/api/invoices?status=paid", http.StatusOK, ""},
				{"AnotherTenants", e.keyAll, e.acme.ID, "/api/invoices/" + ids[0], http.StatusNotFound, "not_found"},
				{"NoInvoiceID", e.keyAll, tt.id, "/api/invoices/inv_nothing", http.StatusNotFound, "not_found"},
				{"MemberLacksBillingRead", e.keyBob, tt.id, "/api/invoices", http.StatusForbidden, "forbidden"},
				{"MemberLacksBillingReadOne", e.keyBob, tt.id, "/api/invoices/" + ids[0], http.StatusForbidden, "forbidden"},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					r := e.do(t, request{method: "GET", path: tc.path, bearer: tc.bearer, header: map[string]string{"X-Tenant-ID": tc.tenant}})
					if tc.code != "" {
						wantProblem(t, r, tc.status, tc.code)
						return
					}
					if r.status != tc.status {
						t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
					}
				})
			}
		})

		t.Run("PreviewOnTheTestClock", func(t *testing.T) {
			// The request carries the tenant's clock: the preview is of
			// the period its clock is in, not the wall clock's.
			r := e.do(t, request{method: "POST", path: "/api/invoices/preview", bearer: e.keyAll, header: alice})
			if r.status != http.StatusOK {
				t.Fatalf("preview: %d %s", r.status, r.body)
			}
			y, m, _ := second.Date()
			if got, want := mustTime(t, r.json(t)["period_start"]), time.Date(y, m, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
				t.Errorf("preview period_start %s, want %s (the test clock's month)", got, want)
			}
		})

		t.Run("StampsOnTheTestClock", func(t *testing.T) {
			// What the other domains stamp for a test tenant follows its
			// clock too: a ticket and an invoice created now carry it.
			r := e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: alice,
				body: `{"subject":"Down","description":"Everything is down","priority":"normal"}`})
			if r.status != http.StatusCreated {
				t.Fatalf("create ticket: %d %s", r.status, r.body)
			}
			if got := mustTime(t, r.json(t)["created_at"]); !got.Equal(second) {
				t.Errorf("ticket created_at %s, want the test clock's %s", got, second)
			}
			r = e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: alice,
				body: `{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Work","quantity":1,"unit_amount":100}]}`})
			if r.status != http.StatusCreated {
				t.Fatalf("create invoice: %d %s", r.status, r.body)
			}
			if got := mustTime(t, r.json(t)["created_at"]); !got.Equal(second) {
				t.Errorf("invoice created_at %s, want the test clock's %s", got, second)
			}
		})

		t.Run("OperatorListFilters", func(t *testing.T) {
			tests := []struct {
				name  string
				query string
				want  []string
			}{
				{"Tenant", "tenant_id=" + tt.id, ids},
				{"TenantOpen", "tenant_id=" + tt.id + "&status=open", ids},
				{"TenantPaid", "tenant_id=" + tt.id + "&status=paid", nil},
				{"Period", "tenant_id=" + tt.id + "&period=" + first.AddDate(0, -1, 0).Format("2006-01"), ids[1:]},
				{"PeriodLater", "tenant_id=" + tt.id + "&period=" + second.AddDate(0, -1, 0).Format("2006-01"), ids[:1]},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					items, _, _ := page(t, e.do(t, request{method: "GET", path: "/api/operator/invoices?" + tc.query, bearer: tt.opKey}))
					var got []string
					for _, it := range items {
						got = append(got, it["id"].(string))
					}
					if strings.Join(got, ",") != strings.Join(tc.want, ",") {
						t.Errorf("got %v, want %v", got, tc.want)
					}
				})
			}
			// A tenant credential is no operator's.
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/operator/invoices", bearer: e.keyAll}), http.StatusForbidden, "insufficient_scope")
		})

		t.Run("OperatorVoidAndMarkPaid", func(t *testing.T) {
			op := func(path, body string) response {
				return e.do(t, request{method: "POST", path: path, body: body, bearer: tt.opKey})
			}
			r := op("/api/operator/invoices/"+ids[0]+"/void", "")
			if r.status != http.StatusOK || r.json(t)["status"] != "void" || r.json(t)["amount_due"] != float64(0) {
				t.Fatalf("void: %d %s", r.status, r.body)
			}
			wantProblem(t, op("/api/operator/invoices/"+ids[0]+"/void", ""), http.StatusConflict, "conflict")
			wantProblem(t, op("/api/operator/invoices/"+ids[0]+"/mark-paid", `{"reference":"wire"}`), http.StatusConflict, "conflict")
			wantProblem(t, op("/api/operator/invoices/"+ids[1]+"/mark-paid", `{"reference":""}`), http.StatusUnprocessableEntity, "validation_failed")
			r = op("/api/operator/invoices/"+ids[1]+"/mark-paid", `{"reference":"wire 2026-12-03"}`)
			body := r.json(t)
			if r.status != http.StatusOK || body["status"] != "paid" || body["reference"] != "wire 2026-12-03" || body["paid_at"] == nil {
				t.Fatalf("mark paid: %d %s", r.status, r.body)
			}
			wantProblem(t, op("/api/operator/invoices/"+ids[1]+"/mark-paid", `{"reference":"again"}`), http.StatusConflict, "conflict")
			wantProblem(t, op("/api/operator/invoices/pin_01jd3k5q8r9s0t1v2w3x4y5zaa/void", ""), http.StatusNotFound, "not_found")
			// The tenant sees the outcome.
			items, _, _ := page(t, e.do(t, request{method: "GET", path: "/api/invoices?status=paid", bearer: e.keyAll, header: alice}))
			if len(items) != 1 || items[0]["id"] != ids[1] {
				t.Errorf("paid invoices %v, want %s", items, ids[1])
			}
		})

		t.Run("ClockRefusals", func(t *testing.T) {
			tests := []struct {
				name, tenant, body string
				status             int
				code               string
			}{
				{"RealTenant", e.acme.ID, `{"advance_to":"` + nextMonth(time.Now()).Format(time.RFC3339) + `"}`, http.StatusUnprocessableEntity, "validation_failed"},
				{"Backwards", tt.id, `{"advance_to":"` + tt.clock.Add(-time.Hour).Format(time.RFC3339) + `"}`, http.StatusUnprocessableEntity, "validation_failed"},
				{"Same", tt.id, `{"advance_to":"` + tt.clock.Format(time.RFC3339) + `"}`, http.StatusUnprocessableEntity, "validation_failed"},
				{"Missing", tt.id, `{}`, http.StatusUnprocessableEntity, "validation_failed"},
				{"UnknownTenant", "ten_01jd3k5q8r9s0t1v2w3x4y5zaa", `{"advance_to":"2099-01-01T00:00:00Z"}`, http.StatusNotFound, "not_found"},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					r := e.do(t, request{method: "POST", path: "/api/operator/tenants/" + tc.tenant + "/clock", body: tc.body, bearer: tt.opKey})
					wantProblem(t, r, tc.status, tc.code)
				})
			}
		})
	})
}

// TestPastDue checks past-due enforcement (Config.PastDueGrace): a tenant
// whose platform invoice is unpaid beyond the grace after its due date
// gets 402 payment_required on its writes, keeps its reads, its invoices
// and the preview, and gets its writes back the moment the invoice is
// paid.
func TestPastDue(t *testing.T) {
	grace := 3 * 24 * time.Hour
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, func(c *httpapi.Config) { c.PastDueGrace = &grace })
		tt := newTestTenant(t, e, "late-co")
		tt.advance(t, e, nextMonth(tt.clock))
		alice := map[string]string{"X-Tenant-ID": tt.id}
		items, _, _ := page(t, e.do(t, request{method: "GET", path: "/api/invoices", bearer: e.keyAll, header: alice}))
		if len(items) != 1 {
			t.Fatalf("%d invoices, want 1", len(items))
		}
		inv := items[0]
		due := mustTime(t, inv["due_date"])
		write := request{method: "POST", path: "/api/tickets", body: `{"subject":"Help","description":"It broke"}`, bearer: e.keyAll, header: alice}

		// Within the grace: writes go through.
		tt.advance(t, e, due.Add(grace-time.Hour))
		if r := e.do(t, write); r.status != http.StatusCreated {
			t.Fatalf("write within the grace: %d %s", r.status, r.body)
		}

		tt.advance(t, e, due.Add(grace+time.Hour))
		t.Run("WritesRefused", func(t *testing.T) {
			r := e.do(t, write)
			wantProblem(t, r, http.StatusPaymentRequired, "payment_required")
			if d, _ := r.json(t)["detail"].(string); !strings.Contains(d, "3 days past its due date") {
				t.Errorf("detail %q: want the grace and what to do", d)
			}
		})
		t.Run("ReadsWork", func(t *testing.T) {
			for _, req := range []request{
				{method: "GET", path: "/api/tickets", bearer: e.keyAll, header: alice},
				{method: "GET", path: "/api/invoices", bearer: e.keyAll, header: alice},
				{method: "GET", path: "/api/invoices/" + inv["id"].(string), bearer: e.keyAll, header: alice},
				{method: "POST", path: "/api/invoices/preview", bearer: e.keyAll, header: alice},
			} {
				if r := e.do(t, req); r.status != http.StatusOK {
					t.Errorf("%s %s: %d %s", req.method, req.path, r.status, r.body)
				}
			}
		})
		t.Run("OtherTenantUnaffected", func(t *testing.T) {
			r := e.do(t, request{method: "POST", path: "/api/tickets", body: `{"subject":"Help","description":"It broke"}`,
				bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}})
			if r.status != http.StatusCreated {
				t.Fatalf("acme's write: %d %s", r.status, r.body)
			}
		})
		t.Run("PaymentLiftsAtOnce", func(t *testing.T) {
			r := e.do(t, request{method: "POST", path: "/api/operator/invoices/" + inv["id"].(string) + "/mark-paid",
				body: `{"reference":"wire"}`, bearer: tt.opKey})
			if r.status != http.StatusOK {
				t.Fatalf("mark paid: %d %s", r.status, r.body)
			}
			if r := e.do(t, write); r.status != http.StatusCreated {
				t.Fatalf("write after paying: %d %s", r.status, r.body)
			}
		})
	}, migrations()...)
}

// TestPastDueOff checks that without Config.PastDueGrace an overdue
// tenant writes as before.
func TestPastDueOff(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tt := newTestTenant(t, e, "late-co")
		first := nextMonth(tt.clock)
		tt.advance(t, e, first)
		tt.advance(t, e, first.AddDate(0, 0, 25)) // past the due date, before the next period's end
		r := e.do(t, request{method: "POST", path: "/api/tickets", body: `{"subject":"Help","description":"It broke"}`,
			bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": tt.id}})
		if r.status != http.StatusCreated {
			t.Fatalf("write: %d %s", r.status, r.body)
		}
	})
}
