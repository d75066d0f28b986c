package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// operator is the platform side of contract requests: a contract service
// on the test's database, as `server contract approve` would use.
func operator(e *env) *contract.Service {
	return contract.NewService(tenancystore.New(e.db).ContractStores(), e.svc.Entitlements, e.svc.Notifications, tenantkit.NewTransactor(e.db), catalog.Default())
}

// errorFields returns the field names of a problem's errors.
func errorFields(t *testing.T, r response) []string {
	t.Helper()
	var fields []string
	errs, _ := r.json(t)["errors"].([]any)
	for _, fe := range errs {
		fields = append(fields, fe.(map[string]any)["field"].(string))
	}
	slices.Sort(fields)
	return fields
}

// limitOf reads a feature's limit at GET /api/tenant/entitlements/limit:
// its number, or "unlimited".
func limitOf(t *testing.T, e *env, key, feature string) string {
	t.Helper()
	r := e.do(t, request{method: "GET", path: "/api/tenant/entitlements/limit?feature=" + feature, bearer: key})
	if r.status != http.StatusOK {
		t.Fatalf("entitlement %s: %d %s", feature, r.status, r.body)
	}
	if l := r.json(t)["limit"]; l != nil {
		return fmt.Sprint(l)
	}
	return "unlimited"
}

func TestContractRequests(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ops := operator(e)
		submit := func(t *testing.T, body string, header map[string]string) response {
			t.Helper()
			return e.do(t, request{method: "POST", path: "/api/contract-requests", bearer: e.keyBob, body: body, header: header})
		}
		list := func(t *testing.T, query string) []any {
			t.Helper()
			r := e.do(t, request{method: "GET", path: "/api/contract-requests" + query, bearer: e.keyBob})
			if r.status != http.StatusOK {
				t.Fatalf("list %s: %d %s", query, r.status, r.body)
			}
			return r.json(t)["data"].([]any)
		}

		// bob holds the billing role at acme (growth, 2 members).
		r := submit(t, `{"type":"change_plan","plan_id":"enterprise","effective":"immediately","note":"we grew"}`, nil)
		if r.status != http.StatusCreated {
			t.Fatalf("submit: %d %s", r.status, r.body)
		}
		created := r.json(t)
		reqID, _ := created["id"].(string)
		if !strings.HasPrefix(reqID, "ccr_") || r.header.Get("Location") != "/api/contract-requests/"+reqID {
			t.Fatalf("id %q, Location %q", reqID, r.header.Get("Location"))
		}
		for field, want := range map[string]any{
			"type": "change_plan", "plan_id": "enterprise", "module_id": nil, "seats": nil, "effective": "immediately",
			"note": "we grew", "status": "pending", "submitted_by": e.bob.ID, "decided_at": nil,
		} {
			if got := created[field]; got != want {
				t.Errorf("%s: got %v, want %v", field, got, want)
			}
		}

		t.Run("GetByLocation", func(t *testing.T) {
			r := e.do(t, request{method: "GET", path: r.header.Get("Location"), bearer: e.keyBob})
			if r.status != http.StatusOK || r.json(t)["id"] != reqID {
				t.Fatalf("GET Location: %d %s", r.status, r.body)
			}
			// globex's owner cannot read acme's request: not found, not forbidden.
			_, err := e.svc.Directory.CreateUser(t.Context(), tenancy.CreateUserInput{Email: "carol@globex.test", Name: "Carol"})
			check(t, err)
			_, err = e.svc.Members.Add(t.Context(), "globex", "carol@globex.test", tenancy.RoleOwner)
			check(t, err)
			carol := e.newKey("carol@globex.test", "globex", tenancy.Scopes()...)
			other := e.do(t, request{method: "GET", path: "/api/contract-requests/" + reqID, bearer: carol})
			wantProblem(t, other, http.StatusNotFound, "not_found")
		})
		t.Run("ErrConflictSecondPendingOfType", func(t *testing.T) {
			wantProblem(t, submit(t, `{"type":"change_plan","plan_id":"starter","effective":"next_period"}`, nil), http.StatusConflict, "conflict")
		})
		t.Run("Validation", func(t *testing.T) {
			tests := []struct {
				name, body string
				status     int
				fields     []string
			}{
				// Checks against the catalog and the contract come before
				// the pending change_plan's conflict.
				{"UnknownPlan", `{"type":"change_plan","plan_id":"gold","effective":"next_period"}`, 422, []string{"plan_id"}},
				{"SamePlan", `{"type":"change_plan","plan_id":"growth","effective":"next_period"}`, 422, []string{"plan_id"}},
				{"SeatsBelowMembers", `{"type":"change_seats","seats":1,"effective":"next_period"}`, 422, []string{"seats"}},
				{"UnknownModule", `{"type":"add_module","module_id":"support.chat","effective":"next_period"}`, 422, []string{"module_id"}},
				{"ModuleIncluded", `{"type":"add_module","module_id":"support.sla","effective":"next_period"}`, 422, []string{"module_id"}},
				{"RemoveNotContracted", `{"type":"remove_module","module_id":"support.csat","effective":"next_period"}`, 422, []string{"module_id"}},
				{"MissingTarget", `{"type":"add_module","effective":"next_period"}`, 422, []string{"module_id"}},
				{"BadEnums", `{"type":"upgrade","effective":"soon"}`, 422, []string{"effective", "type"}},
				{"UnknownField", `{"type":"change_seats","seats":12,"effective":"next_period","when":"now"}`, 400, []string{"when"}},
				{"WrongType", `{"type":"change_seats","seats":"12","effective":"next_period"}`, 400, []string{"seats"}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					r := submit(t, tc.body, nil)
					if r.status != tc.status || !slices.Equal(errorFields(t, r), tc.fields) {
						t.Fatalf("got %d fields %v, want %d %v: %s", r.status, errorFields(t, r), tc.status, tc.fields, r.body)
					}
				})
			}
			if n := len(list(t, "")); n != 1 {
				t.Fatalf("requests after refused submissions: got %d, want 1", n)
			}
		})
		t.Run("ForbiddenForMembers", func(t *testing.T) {
			globex := map[string]string{"X-Tenant-ID": e.globex.ID} // alice is a plain member there
			wantProblem(t, e.do(t, request{method: "POST", path: "/api/contract-requests", bearer: e.keyAll, header: globex,
				body: `{"type":"change_seats","seats":5,"effective":"next_period"}`}), http.StatusForbidden, "forbidden")
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/contract-requests", bearer: e.keyAll, header: globex}),
				http.StatusForbidden, "forbidden")
		})
		t.Run("Idempotent", func(t *testing.T) {
			key := map[string]string{"Idempotency-Key": "seats-12"}
			body := `{"type":"change_seats","seats":12,"effective":"next_period"}`
			first, again := submit(t, body, key), submit(t, body, key)
			if first.status != 201 || again.status != 201 || again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
				t.Fatalf("replay: %d then %d replayed=%q", first.status, again.status, again.header.Get("Idempotent-Replayed"))
			}
			if n := len(list(t, "?status=pending")); n != 2 {
				t.Fatalf("pending requests after a replay: got %d, want 2", n)
			}
		})
		t.Run("ListFilterAndPages", func(t *testing.T) {
			all := list(t, "")
			if len(all) != 2 || all[0].(map[string]any)["type"] != "change_seats" || all[1].(map[string]any)["id"] != reqID {
				t.Fatalf("list: got %v, want change_seats then %s", all, reqID)
			}
			page := e.do(t, request{method: "GET", path: "/api/contract-requests?limit=1", bearer: e.keyBob}).json(t)
			if page["has_more"] != true || len(page["data"].([]any)) != 1 {
				t.Fatalf("first page: %v", page)
			}
			rest := e.do(t, request{method: "GET", path: "/api/contract-requests?limit=1&cursor=" + page["next_cursor"].(string), bearer: e.keyBob}).json(t)
			if data := rest["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != reqID || rest["has_more"] != false || rest["next_cursor"] != nil {
				t.Fatalf("second page: %v", rest)
			}
			if n := len(list(t, "?status=applied")); n != 0 {
				t.Fatalf("applied: got %d, want 0", n)
			}
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/contract-requests?status=lost", bearer: e.keyBob}), 422, "validation_failed")
			wantProblem(t, e.do(t, request{method: "GET", path: "/api/contract-requests?cursor=bad!", bearer: e.keyBob}), 400, "invalid_request")
		})
		t.Run("ApproveChangesLimits", func(t *testing.T) {
			if got := limitOf(t, e, e.keyBob, catalog.FeatureInvoices); got != "1000" {
				t.Fatalf("invoice limit on growth: got %s, want 1000", got)
			}
			approved, err := ops.Approve(ctx, reqID, "")
			if err != nil || approved.Status != contract.RequestApplied {
				t.Fatalf("approve: %+v, %v", approved, err)
			}
			if got := limitOf(t, e, e.keyBob, catalog.FeatureInvoices); got != "unlimited" {
				t.Fatalf("invoice limit on enterprise: got %s, want unlimited", got)
			}
			if got := limitOf(t, e, e.keyBob, catalog.FeatureSeats); got != "50" {
				t.Fatalf("seats limit on enterprise: got %s, want 50", got)
			}
			got := list(t, "?status=applied")
			if len(got) != 1 || got[0].(map[string]any)["id"] != reqID || got[0].(map[string]any)["decided_at"] == nil {
				t.Fatalf("applied requests: %v", got)
			}
			notes := e.do(t, request{method: "GET", path: "/api/tenant/notifications", bearer: e.keyBob}).json(t)["data"].([]any)
			if len(notes) == 0 || notes[0].(map[string]any)["type"] != "contract_request.updated" {
				t.Fatalf("notifications: %v", notes)
			}
		})
		t.Run("RejectChangesNothing", func(t *testing.T) {
			r := submit(t, `{"type":"change_seats","seats":60,"effective":"immediately"}`, nil)
			if r.status != 409 { // seats-12 is still pending
				t.Fatalf("second pending change_seats: %d %s", r.status, r.body)
			}
			pending := list(t, "?status=pending")
			if len(pending) != 1 {
				t.Fatalf("pending: %v", pending)
			}
			id := pending[0].(map[string]any)["id"].(string)
			if _, err := ops.Reject(ctx, id, "no"); err != nil {
				t.Fatal(err)
			}
			if got := limitOf(t, e, e.keyBob, catalog.FeatureSeats); got != "50" {
				t.Fatalf("seats limit after a rejection: got %s, want 50", got)
			}
			if _, err := ops.Approve(ctx, id, ""); err == nil {
				t.Fatal("approving a rejected request: want an error")
			}
		})
		t.Run("OtherTenantsRequestIsNotFound", func(t *testing.T) {
			theirs, err := ops.Submit(ctx, e.globex.ID, e.alice.ID, contract.SubmitInput{
				Type: "add_module", ModuleID: ptrTo(catalog.ModuleSLA), Effective: "next_period"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ops.Request(ctx, e.acme.ID, theirs.ID); err == nil {
				t.Fatal("acme reads globex's request: want not found")
			}
			for _, item := range list(t, "") {
				if item.(map[string]any)["id"] == theirs.ID {
					t.Fatalf("acme's list shows globex's request %s", theirs.ID)
				}
			}
		})
	})
}

func TestInvoicePreview(t *testing.T) {
	// Mid-November: half of the month remains, so prorations are exact.
	half := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, func(cfg *httpapi.Config) {
			ten := newTenancy(db)
			cfg.Services.Contracts = contract.NewService(tenancystore.New(db).ContractStores(), ten.Entitlements, ten.Notifications, tenantkit.NewTransactor(db),
				catalog.Default(), contract.WithClock(func() time.Time { return half }))
		})
		preview := func(t *testing.T, body string) response {
			t.Helper()
			return e.do(t, request{method: "POST", path: "/api/invoices/preview", bearer: e.keyBob, body: body})
		}
		total := func(t *testing.T, r response) float64 {
			t.Helper()
			if r.status != http.StatusOK {
				t.Fatalf("preview: %d %s", r.status, r.body)
			}
			return r.json(t)["total"].(float64)
		}

		current := preview(t, "")
		p := current.json(t)
		lines := p["lines"].([]any)
		if total(t, current) != 9900 || p["currency"] != "USD" || len(lines) != 1 || lines[0].(map[string]any)["kind"] != "plan" ||
			p["subtotal"] != 9900.0 || p["period_start"] != "2026-11-01T00:00:00Z" || p["period_end"] != "2026-12-01T00:00:00Z" {
			t.Fatalf("preview of acme's growth contract: %s", current.body)
		}
		if empty := preview(t, "{}"); string(empty.body) != string(current.body) {
			t.Fatalf("{} previews something else than no body:\n%s\n%s", empty.body, current.body)
		}

		t.Run("ExpensivePlanRaisesTotal", func(t *testing.T) {
			for body, want := range map[string]float64{
				`{"plan_id":"enterprise"}`: 49900, // next period
				// Growth in full, half of it credited, half of enterprise charged.
				`{"plan_id":"enterprise","effective":"immediately"}`: 9900 - 4950 + 24950,
				`{"seats":25,"modules":["collections.dunning"]}`:     9900 + 15*800 + 4900,
			} {
				if got := total(t, preview(t, body)); got != want {
					t.Errorf("preview %s: total %v, want %v", body, got, want)
				}
			}
			if got := total(t, preview(t, `{"plan_id":"starter"}`)); got >= 9900 {
				t.Errorf("preview of starter: total %v, want less than 9900", got)
			}
		})
		t.Run("StoresNothing", func(t *testing.T) {
			if n := len(e.do(t, request{method: "GET", path: "/api/contract-requests", bearer: e.keyBob}).json(t)["data"].([]any)); n != 0 {
				t.Fatalf("contract requests after previews: %d", n)
			}
			if n := len(e.do(t, request{method: "GET", path: "/api/tenant/notifications", bearer: e.keyBob}).json(t)["data"].([]any)); n != 0 {
				t.Fatalf("notifications after previews: %d", n)
			}
			if got := limitOf(t, e, e.keyBob, catalog.FeatureInvoices); got != "1000" {
				t.Fatalf("invoice limit after previews: %s, want growth's 1000", got)
			}
			for _, table := range []string{"contract_requests", "contract_add_ons"} {
				var n int
				err := database.AcrossTenants(e.db.NewSelect().TableExpr(table).ColumnExpr("count(*)")).Scan(context.Background(), &n)
				if err != nil || n != 0 {
					t.Fatalf("rows in %s after previews: %d, %v", table, n, err)
				}
			}
			c, err := operator(e).Current(context.Background(), e.acme.ID)
			if err != nil || c.PlanID != catalog.PlanGrowth || c.Seats != 10 {
				t.Fatalf("contract after previews: %+v, %v", c, err)
			}
			if total(t, preview(t, "")) != 9900 {
				t.Fatal("the current preview changed")
			}
		})
		t.Run("Errors", func(t *testing.T) {
			tests := []struct {
				name, body string
				status     int
				fields     []string
			}{
				{"UnknownPlan", `{"plan_id":"gold"}`, 422, []string{"plan_id"}},
				{"ModuleNotOffered", `{"modules":["support.chat"]}`, 422, []string{"modules"}},
				{"SeatsBelowMembers", `{"seats":1}`, 422, []string{"seats"}},
				{"BadEffective", `{"effective":"tomorrow"}`, 422, []string{"effective"}},
				{"EmptyEffective", `{"effective":""}`, 422, []string{"effective"}},
				{"WrongType", `{"seats":"many"}`, 400, []string{"seats"}},
				{"UnknownField", `{"coupon":"FREE"}`, 400, []string{"coupon"}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					r := preview(t, tc.body)
					if r.status != tc.status || !slices.Equal(errorFields(t, r), tc.fields) {
						t.Fatalf("got %d fields %v, want %d %v: %s", r.status, errorFields(t, r), tc.status, tc.fields, r.body)
					}
				})
			}
			wantProblem(t, e.do(t, request{method: "POST", path: "/api/invoices/preview", bearer: e.keyAll,
				header: map[string]string{"X-Tenant-ID": e.globex.ID}}), http.StatusForbidden, "forbidden")
		})
	}, migrations()...)
}

func ptrTo[T any](v T) *T { return &v }

// TestContractsNotConfigured: without a contract service the contract
// endpoints are routed, checked, and answer 501 not_implemented.
func TestContractsNotConfigured(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		off := withAPI(t, e, func(c *httpapi.Config) { c.Services.Contracts = nil })
		for _, req := range []request{
			{method: "GET", path: "/api/contract-requests"},
			{method: "POST", path: "/api/contract-requests", body: `{}`},
			{method: "GET", path: "/api/contract-requests/ccr_01jd0000000000000000000000"},
			{method: "POST", path: "/api/contract-requests/ccr_01jd0000000000000000000000/cancel"},
			{method: "POST", path: "/api/invoices/preview", body: `{}`},
		} {
			t.Run(req.method+" "+req.path, func(t *testing.T) {
				req.bearer = e.keyBob
				wantProblem(t, off.do(t, req), http.StatusNotImplemented, "not_implemented")
			})
		}
		// Still checked first: no credential is a 401.
		wantProblem(t, off.do(t, request{method: "GET", path: "/api/contract-requests"}), http.StatusUnauthorized, "unauthenticated")
	})
}
