package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// submitRequest submits a change request for tenantID as the user with
// email, through the service.
func (e *env) submitRequest(t *testing.T, tenantID, email string, in contract.SubmitInput) contract.Request {
	t.Helper()
	u, err := e.app.Tenancy.Directory.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	req, err := e.app.Contracts.Submit(context.Background(), tenantID, u.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// mustRequests returns tenantID's contract requests, newest first.
func (e *env) mustRequests(t *testing.T, tenantID string) []contract.Request {
	t.Helper()
	reqs, _, err := e.app.Contracts.Requests(context.Background(), tenantID, contract.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// mustRequestStatus returns the status of tenantID's request id.
func (e *env) mustRequestStatus(t *testing.T, tenantID, id string) contract.RequestStatus {
	t.Helper()
	req, err := e.app.Contracts.Request(context.Background(), tenantID, id)
	if err != nil {
		t.Fatal(err)
	}
	return req.Status
}

func TestPortalContracts(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)
		ctx := context.Background()
		alice, err := app.Tenancy.Directory.UserByEmail(ctx, "alice@acme.test")
		if err != nil {
			t.Fatal(err)
		}

		t.Run("PreviewOfProposedPlan", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			body := c.get("/portal/contracts", http.StatusOK)
			if strings.Contains(body, `id="preview"`) {
				t.Error("the page shows a preview nobody asked for")
			}
			// Acme is on Growth; the next period's invoice on Enterprise
			// is its base price (50 seats included, no add-ons).
			q := url.Values{"type": {"change_plan"}, "plan_id": {catalog.PlanEnterprise}, "effective": {"next_period"}, "preview": {"1"}}
			body = c.get("/portal/contracts?"+q.Encode(), http.StatusOK)
			for _, want := range []string{`<section aria-labelledby="prev-h" id="preview">`, `<td data-label="Line">Enterprise plan</td>`,
				`<dd id="preview-total">$499.00</dd>`, `<option value="enterprise" selected>Enterprise</option>`,
				`<option value="growth" >Growth (current)</option>`} {
				if !strings.Contains(body, want) {
					t.Errorf("preview page lacks %q:\n%s", want, body)
				}
			}
			if strings.Contains(body, "Growth plan") {
				t.Error("the preview prices the current plan, not the proposed one")
			}
			if reqs := e.mustRequests(t, e.acme.ID); len(reqs) != 0 {
				t.Errorf("a preview stored requests: %+v", reqs)
			}
		})

		t.Run("PreviewRefusedFieldNextToIt", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			q := url.Values{"type": {"change_seats"}, "seats": {"many"}, "effective": {"next_period"}, "preview": {"1"}}
			body := c.get("/portal/contracts?"+q.Encode(), http.StatusOK)
			for _, want := range []string{`aria-describedby="err-seats"`, `id="err-seats">Seats must be a whole number<`} {
				if !strings.Contains(body, want) {
					t.Errorf("refused preview lacks %q:\n%s", want, body)
				}
			}
			if strings.Contains(body, `id="preview"`) {
				t.Error("a refused preview shows an invoice")
			}
		})

		t.Run("SubmitCreatesRequest", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			form := url.Values{"csrf_token": {c.csrf()}, "type": {"change_plan"}, "plan_id": {catalog.PlanEnterprise},
				"effective": {"next_period"}, "note": {"We are growing."}}
			body := c.post("/portal/contracts", form, http.StatusOK)
			reqs := e.mustRequests(t, e.acme.ID)
			if len(reqs) != 1 {
				t.Fatalf("%d requests after submitting, want 1: %+v", len(reqs), reqs)
			}
			got := reqs[0]
			if got.Type != contract.ChangePlan || got.PlanID == nil || *got.PlanID != catalog.PlanEnterprise ||
				got.Status != contract.RequestPending || got.SubmittedBy != alice.ID || got.Note != "We are growing." {
				t.Errorf("stored request %+v, want alice's pending change to enterprise with her note", got)
			}
			for _, want := range []string{"Your request is submitted.", `<tr id="` + got.ID + `">`, "change plan → enterprise",
				`<span class="status status-pending">pending</span>`, `id="cancel-` + got.ID + `"`} {
				if !strings.Contains(body, want) {
					t.Errorf("page after submitting lacks %q:\n%s", want, body)
				}
			}

			// A second pending plan change is the service's conflict,
			// shown above the form; the plan already held is refused at
			// its field.
			form.Set("csrf_token", c.csrf())
			body = c.post("/portal/contracts", form, http.StatusConflict)
			if !strings.Contains(body, "another change_plan request is pending") {
				t.Errorf("conflict page does not say why:\n%s", body)
			}
			body = c.post("/portal/contracts", url.Values{"csrf_token": {c.csrf()}, "type": {"add_module"},
				"module_id": {catalog.ModuleSLA}, "effective": {"next_period"}}, http.StatusUnprocessableEntity)
			for _, want := range []string{`aria-describedby="err-module_id"`, `id="err-module_id">Module `} {
				if !strings.Contains(body, want) {
					t.Errorf("refused module lacks %q:\n%s", want, body)
				}
			}
			if n := len(e.mustRequests(t, e.acme.ID)); n != 1 {
				t.Errorf("%d requests after two refused submissions, want 1", n)
			}
		})

		t.Run("CancelPending", func(t *testing.T) {
			req := e.submitRequest(t, e.acme.ID, "alice@acme.test", contract.SubmitInput{
				Type: string(contract.ChangeSeats), Seats: new(12), Effective: string(contract.EffectiveNextPeriod)})
			c := e.signIn(t, "alice@acme.test")
			if body := c.get("/portal/contracts", http.StatusOK); !strings.Contains(body, `action="/portal/contracts/`+req.ID+`/cancel"`) {
				t.Fatalf("no cancel form for the pending request:\n%s", body)
			}
			body := c.post("/portal/contracts/"+req.ID+"/cancel", url.Values{"csrf_token": {c.csrf()}}, http.StatusOK)
			if !strings.Contains(body, "The request is cancelled.") {
				t.Errorf("page after cancelling:\n%s", body)
			}
			if st := e.mustRequestStatus(t, e.acme.ID, req.ID); st != contract.RequestCancelled {
				t.Fatalf("status after cancel %q, want cancelled", st)
			}
			if strings.Contains(body, `id="cancel-`+req.ID+`"`) {
				t.Error("a cancelled request still has a cancel button")
			}
			// Cancelled is final: a second cancel is refused with the reason.
			body = c.post("/portal/contracts/"+req.ID+"/cancel", url.Values{"csrf_token": {c.csrf()}}, http.StatusConflict)
			if !strings.Contains(body, `id="form-error"`) || !strings.Contains(body, "cancelled") {
				t.Errorf("second cancel does not say why:\n%s", body)
			}
		})

		t.Run("CSRFRefused", func(t *testing.T) {
			pending := e.submitRequest(t, e.acme.ID, "alice@acme.test", contract.SubmitInput{
				Type: string(contract.ChangeSeats), Seats: new(14), Effective: string(contract.EffectiveNextPeriod)})
			before := len(e.mustRequests(t, e.acme.ID))
			c := e.signIn(t, "alice@acme.test")
			body := c.post("/portal/contracts", url.Values{"type": {"add_module"}, "module_id": {catalog.ModuleCSAT},
				"effective": {"next_period"}}, http.StatusForbidden)
			if !strings.Contains(body, "missing CSRF token") {
				t.Errorf("403 page does not say why:\n%s", body)
			}
			other := e.signIn(t, "carol@globex.test").csrf()
			c.post("/portal/contracts", url.Values{"csrf_token": {other}, "type": {"add_module"}, "module_id": {catalog.ModuleCSAT},
				"effective": {"next_period"}}, http.StatusForbidden)
			c.post("/portal/contracts/"+pending.ID+"/cancel", url.Values{}, http.StatusForbidden)
			c.post("/portal/contracts/"+pending.ID+"/cancel", url.Values{"csrf_token": {other}}, http.StatusForbidden)
			if after := len(e.mustRequests(t, e.acme.ID)); after != before {
				t.Errorf("%d requests after refused forms, want %d", after, before)
			}
			if st := e.mustRequestStatus(t, e.acme.ID, pending.ID); st != contract.RequestPending {
				t.Errorf("status after refused cancels %q, want pending", st)
			}
			// With its token the same cancel goes through (and frees the
			// seats change for the next subtests).
			c.post("/portal/contracts/"+pending.ID+"/cancel", url.Values{"csrf_token": {c.csrf()}}, http.StatusOK)
		})

		t.Run("WithoutPermissionHiddenAndRefused", func(t *testing.T) {
			pending := e.submitRequest(t, e.acme.ID, "alice@acme.test", contract.SubmitInput{
				Type: string(contract.ChangeSeats), Seats: new(16), Effective: string(contract.EffectiveNextPeriod)})
			before := len(e.mustRequests(t, e.acme.ID))
			// dave is support in acme: no contracts:read, no contracts:submit.
			c := e.signIn(t, "dave@acme.test")
			if body := c.get("/portal/", http.StatusOK); strings.Contains(body, `href="/portal/contracts"`) {
				t.Error("support member sees the Contract link")
			}
			body := c.get("/portal/contracts", http.StatusForbidden)
			if strings.Contains(body, `action="/portal/contracts"`) || strings.Contains(body, pending.ID) {
				t.Errorf("the refusal shows the form or the requests:\n%s", body)
			}
			c.post("/portal/contracts", url.Values{"csrf_token": {c.csrf()}, "type": {"add_module"},
				"module_id": {catalog.ModuleCSAT}, "effective": {"next_period"}}, http.StatusForbidden)
			c.post("/portal/contracts/"+pending.ID+"/cancel", url.Values{"csrf_token": {c.csrf()}}, http.StatusForbidden)
			if after := len(e.mustRequests(t, e.acme.ID)); after != before {
				t.Errorf("%d requests after dave's refused submission, want %d", after, before)
			}
			if st := e.mustRequestStatus(t, e.acme.ID, pending.ID); st != contract.RequestPending {
				t.Errorf("status after dave's refused cancel %q, want pending", st)
			}
		})

		t.Run("OtherTenantsRequestIsNotFound", func(t *testing.T) {
			theirs := e.submitRequest(t, e.globx.ID, "carol@globex.test", contract.SubmitInput{
				Type: string(contract.ChangePlan), PlanID: new(catalog.PlanGrowth), Effective: string(contract.EffectiveNextPeriod)})
			c := e.signIn(t, "alice@acme.test")
			if body := c.get("/portal/contracts", http.StatusOK); strings.Contains(body, theirs.ID) {
				t.Error("acme's page lists globex's request")
			}
			c.post("/portal/contracts/"+theirs.ID+"/cancel", url.Values{"csrf_token": {c.csrf()}}, http.StatusNotFound)
			c.post("/portal/contracts/nonsense/cancel", url.Values{"csrf_token": {c.csrf()}}, http.StatusNotFound)
			if st := e.mustRequestStatus(t, e.globx.ID, theirs.ID); st != contract.RequestPending {
				t.Errorf("globex's request is %q after acme's cancel, want pending", st)
			}
		})
	})
}
