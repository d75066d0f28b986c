package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

const customersPath = "/api/v1/collections/customers"

// customerCalls makes the customers tests' requests as one key.
type customerCalls struct {
	e   *env
	key string
}

func (c customerCalls) do(t *testing.T, method, path, body string, want int) map[string]any {
	t.Helper()
	r := c.e.do(t, request{method: method, path: path, body: body, bearer: c.key})
	if r.status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, r.status, r.body, want)
	}
	return r.json(t)
}

func (c customerCalls) create(t *testing.T, body string) map[string]any {
	t.Helper()
	return c.do(t, "POST", customersPath, body, http.StatusCreated)
}

// listIDs lists the customers with query and returns their ids in order.
func (c customerCalls) listIDs(t *testing.T, query string) []string {
	t.Helper()
	page := c.do(t, "GET", customersPath+query, "", http.StatusOK)
	var ids []string
	for _, it := range page["data"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

// fieldsOf returns the fields a 422 problem names.
func fieldsOf(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	for _, fe := range r.json(t)["errors"].([]any) {
		out = append(out, fe.(map[string]any)["field"].(string))
	}
	return out
}

// TestCustomers: create, get, list (newest first, paged, searched, archived
// left out), merge-patch and archive a customer on record, with
// Idempotency-Key honoured on create.
func TestCustomers(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		c := customerCalls{e, e.keyBob}
		r := e.do(t, request{method: "POST", path: customersPath, bearer: e.keyBob,
			header: map[string]string{"Idempotency-Key": "cus-1"},
			body:   `{"name":"  Ada Lovelace ","email":" Ada@Example.COM ","address":{"line1":"12 St James's Sq","city":"London","country":"GB"},"tax_id":"GB1","metadata":{"crm":"7"}}`})
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		ada := r.json(t)
		adaID := ada["id"].(string)
		if loc := r.header.Get("Location"); loc != customersPath+"/"+adaID {
			t.Errorf("Location = %q", loc)
		}
		if ada["name"] != "Ada Lovelace" || ada["email"] != "ada@example.com" || ada["locale"] != "en" ||
			ada["archived_at"] != nil || fmt.Sprint(ada["outstanding"]) != "[]" {
			t.Errorf("created %v", ada)
		}
		replay := e.do(t, request{method: "POST", path: customersPath, bearer: e.keyBob,
			header: map[string]string{"Idempotency-Key": "cus-1"},
			body:   `{"name":"  Ada Lovelace ","email":" Ada@Example.COM ","address":{"line1":"12 St James's Sq","city":"London","country":"GB"},"tax_id":"GB1","metadata":{"crm":"7"}}`})
		if replay.status != http.StatusCreated || replay.json(t)["id"] != adaID || replay.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replayed create: %d %s (replayed %q)", replay.status, replay.body, replay.header.Get("Idempotent-Replayed"))
		}
		bob := c.create(t, `{"name":"Bob Byron","email":"bob@analytical.example","locale":"de-CH"}`)
		zoe := c.create(t, `{"name":"ZOË","email":"zoe@example.org"}`)
		bobID, zoeID := bob["id"].(string), zoe["id"].(string)

		got := c.do(t, "GET", customersPath+"/"+adaID, "", http.StatusOK)
		if got["tax_id"] != "GB1" || got["address"].(map[string]any)["country"] != "GB" || fmt.Sprint(got["outstanding"]) != "[]" {
			t.Errorf("get %v", got)
		}

		for _, tt := range []struct {
			query string
			want  []string
		}{
			{"", []string{zoeID, bobID, adaID}},
			{"?search=LOVE", []string{adaID}},
			{"?search=analytical", []string{bobID}},
			{"?search=zoë", []string{zoeID}},
			{"?search=example", []string{zoeID, bobID, adaID}},
			{"?search=nobody", nil},
		} {
			if ids := c.listIDs(t, tt.query); fmt.Sprint(ids) != fmt.Sprint(tt.want) {
				t.Errorf("list%s = %v, want %v", tt.query, ids, tt.want)
			}
		}
		page := c.do(t, "GET", customersPath+"?limit=2", "", http.StatusOK)
		if page["has_more"] != true {
			t.Fatalf("first page of 2: %v", page)
		}
		if ids := c.listIDs(t, "?limit=2&cursor="+page["next_cursor"].(string)); fmt.Sprint(ids) != fmt.Sprint([]string{adaID}) {
			t.Errorf("second page = %v, want [%s]", ids, adaID)
		}

		upd := c.do(t, "PATCH", customersPath+"/"+adaID,
			`{"name":"Ada King","address":{"city":"Ockham","postal_code":"GU23"},"tax_id":null,"metadata":{"crm":null,"tier":"gold"}}`, http.StatusOK)
		addr := upd["address"].(map[string]any)
		if upd["name"] != "Ada King" || upd["email"] != "ada@example.com" || upd["tax_id"] != "" ||
			addr["line1"] != "12 St James's Sq" || addr["city"] != "Ockham" || addr["postal_code"] != "GU23" ||
			fmt.Sprint(upd["metadata"]) != "map[tier:gold]" {
			t.Errorf("patched %v", upd)
		}
		if cleared := c.do(t, "PATCH", customersPath+"/"+adaID, `{"address":null,"locale":null}`, http.StatusOK); cleared["address"] != nil || cleared["locale"] != "en" {
			t.Errorf("address null: %v", cleared)
		}

		archived := c.do(t, "POST", customersPath+"/"+bobID+"/archive", "", http.StatusOK)
		if archived["archived_at"] == nil {
			t.Fatalf("archive: %v", archived)
		}
		again := c.do(t, "POST", customersPath+"/"+bobID+"/archive", "", http.StatusOK)
		if again["archived_at"] != archived["archived_at"] {
			t.Errorf("archiving twice moved archived_at: %v, then %v", archived["archived_at"], again["archived_at"])
		}
		if ids := c.listIDs(t, ""); fmt.Sprint(ids) != fmt.Sprint([]string{zoeID, adaID}) {
			t.Errorf("list after archive = %v", ids)
		}
		if ids := c.listIDs(t, "?archived=true"); fmt.Sprint(ids) != fmt.Sprint([]string{zoeID, bobID, adaID}) {
			t.Errorf("list archived=true = %v", ids)
		}
		wantProblem(t, e.do(t, request{method: "GET", path: customersPath + "?archived=maybe", bearer: e.keyBob}), http.StatusUnprocessableEntity, "validation_failed")
	})
}

// TestCustomersInvalid: bad input is a 422 naming the field.
func TestCustomersInvalid(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		c := customerCalls{e, e.keyBob}
		id := c.create(t, `{"name":"Ada","email":"ada@example.com"}`)["id"].(string)
		tests := []struct {
			name, method, path, body string
			want                     []string
		}{
			{"MissingNameAndEmail", "POST", customersPath, `{}`, []string{"name", "email"}},
			{"BadEmail", "POST", customersPath, `{"name":"Ada","email":"not an email"}`, []string{"email"}},
			{"LowerCaseCountry", "POST", customersPath, `{"name":"Ada","email":"a@example.com","address":{"line1":"1 St","country":"de"}}`, []string{"address.country"}},
			{"UnknownCountry", "POST", customersPath, `{"name":"Ada","email":"a@example.com","address":{"line1":"1 St","country":"XX"}}`, []string{"address.country"}},
			{"AddressWithoutLine1", "POST", customersPath, `{"name":"Ada","email":"a@example.com","address":{"country":"DE"}}`, []string{"address.line1"}},
			{"BadLocale", "POST", customersPath, `{"name":"Ada","email":"a@example.com","locale":"en_US!"}`, []string{"locale"}},
			{"PatchBadEmail", "PATCH", customersPath + "/" + id, `{"email":"nope"}`, []string{"email"}},
			{"PatchBadCountry", "PATCH", customersPath + "/" + id, `{"address":{"line1":"1 St","country":"Germany"}}`, []string{"address.country"}},
			{"PatchAddressIncomplete", "PATCH", customersPath + "/" + id, `{"address":{"city":"Berlin"}}`, []string{"address.line1", "address.country"}},
			{"PatchBadLocale", "PATCH", customersPath + "/" + id, `{"locale":"-"}`, []string{"locale"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: tt.method, path: tt.path, body: tt.body, bearer: e.keyBob})
				wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
				if got := fieldsOf(t, r); fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("fields = %v, want %v", got, tt.want)
				}
			})
		}
		r := e.do(t, request{method: "PATCH", path: customersPath + "/" + id, body: `{"address":{"line1":"1 St","country":"DE","planet":"Mars"}}`, bearer: e.keyBob})
		if r.status != http.StatusBadRequest {
			t.Errorf("unknown address member: %d %s, want 400", r.status, r.body)
		}
	})
}

// TestCustomersAcrossTenants: another tenant's customer is 404 everywhere,
// and a 422 on customer_id for an invoice; roles and scopes are the
// invoices'.
func TestCustomersAcrossTenants(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		_, err := e.svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "initech", Name: "Initech", PlanID: catalog.PlanGrowth})
		check(t, err)
		_, err = e.svc.Members.Add(ctx, "initech", "alice@acme.test", tenancy.RoleOwner)
		check(t, err)
		other := customerCalls{e, e.newKey("alice@acme.test", "initech", tenancy.ScopeCollectionsRead, tenancy.ScopeCollectionsWrite)}
		theirs := other.create(t, `{"name":"Initech's","email":"i@example.com"}`)["id"].(string)
		c := customerCalls{e, e.keyBob}
		c.create(t, `{"name":"Acme's","email":"a@example.com"}`)
		for _, req := range []request{
			{method: "GET", path: customersPath + "/" + theirs},
			{method: "PATCH", path: customersPath + "/" + theirs, body: `{"name":"Mallory"}`},
			{method: "POST", path: customersPath + "/" + theirs + "/archive"},
			{method: "GET", path: customersPath + "/cus_nonsense"},
		} {
			req.bearer = e.keyBob
			wantProblem(t, e.do(t, req), http.StatusNotFound, "not_found")
		}
		if ids := c.listIDs(t, "?search=initech"); len(ids) != 0 {
			t.Errorf("acme lists initech's customers: %v", ids)
		}
		r := e.do(t, request{method: "POST", path: invoicesPath, bearer: e.keyBob, body: invoiceFor(theirs, "USD", "open")})
		wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
		if got := fieldsOf(t, r); fmt.Sprint(got) != "[customer_id]" {
			t.Errorf("fields = %v, want [customer_id]", got)
		}
		if got := other.do(t, "GET", customersPath+"/"+theirs, "", http.StatusOK); got["name"] != "Initech's" {
			t.Errorf("initech's customer changed: %v", got)
		}
		// Alice is a member of globex, whose role has no invoices:read.
		wantProblem(t, e.do(t, request{method: "GET", path: customersPath, bearer: e.keyAll,
			header: map[string]string{"X-Tenant-ID": e.globex.ID}}), http.StatusForbidden, "forbidden")
		wantProblem(t, e.do(t, request{method: "POST", path: customersPath, bearer: e.keyNone,
			header: map[string]string{"X-Tenant-ID": e.acme.ID}, body: `{"name":"A","email":"a@example.com"}`}), http.StatusForbidden, "insufficient_scope")
	})
}

// invoiceFor is the body of an invoice of 1000 minor units of currency
// to customerID, in status.
func invoiceFor(customerID, currency, status string) string {
	return fmt.Sprintf(`{"customer_id":%q,"currency":%q,"status":%q,"line_items":[{"description":"Plan","quantity":1,"unit_amount":1000}]}`,
		customerID, currency, status)
}

// TestInvoicesByCustomer: an invoice names a customer on record; a draft
// shows its current details, finalizing copies them; the list filters by
// customer_id; the customer shows what it owes per currency; an archived
// customer, or both customer and customer_id, is a 422.
func TestInvoicesByCustomer(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		c := customerCalls{e, e.keyBob}
		cus := c.create(t, `{"name":"Ada","email":"ada@example.com","address":{"line1":"1 Sq","country":"GB"},"tax_id":"GB1","locale":"en-GB"}`)
		cusID := cus["id"].(string)

		draft := c.do(t, "POST", invoicesPath, invoiceFor(cusID, "USD", "draft"), http.StatusCreated)
		draftID := draft["id"].(string)
		if draft["customer_id"] != cusID || fmt.Sprint(draft["customer"]) != "map[address:map[country:GB line1:1 Sq] email:ada@example.com locale:en-GB name:Ada tax_id:GB1]" {
			t.Errorf("draft names %v, customer %v", draft["customer_id"], draft["customer"])
		}
		c.do(t, "PATCH", customersPath+"/"+cusID, `{"name":"Ada King","address":{"city":"Ockham"}}`, http.StatusOK)
		if got := c.do(t, "GET", invoicesPath+"/"+draftID, "", http.StatusOK)["customer"].(map[string]any); got["name"] != "Ada King" || got["address"].(map[string]any)["city"] != "Ockham" {
			t.Errorf("draft after the customer's change shows %v", got)
		}
		r := e.do(t, request{method: "PATCH", path: invoicesPath + "/" + draftID, body: `{"customer":{"name":"Other"}}`, bearer: e.keyBob})
		wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")

		final := c.do(t, "POST", invoicesPath+"/"+draftID+"/finalize", "", http.StatusOK)
		if final["customer"].(map[string]any)["name"] != "Ada King" {
			t.Errorf("finalized with %v", final["customer"])
		}
		c.do(t, "PATCH", customersPath+"/"+cusID, `{"name":"Ada Byron","tax_id":"GB2"}`, http.StatusOK)
		kept := c.do(t, "GET", invoicesPath+"/"+draftID, "", http.StatusOK)["customer"].(map[string]any)
		if kept["name"] != "Ada King" || kept["tax_id"] != "GB1" {
			t.Errorf("finalized invoice follows the customer: %v", kept)
		}

		open := c.do(t, "POST", invoicesPath, invoiceFor(cusID, "EUR", "open"), http.StatusCreated)
		if open["customer"].(map[string]any)["name"] != "Ada Byron" {
			t.Errorf("created open with %v", open["customer"])
		}
		c.do(t, "POST", invoicesPath, invoiceFor(cusID, "USD", "open"), http.StatusCreated)
		c.do(t, "POST", invoicesPath, invoiceFor(cusID, "USD", "draft"), http.StatusCreated)
		inline := c.do(t, "POST", invoicesPath, `{"customer":{"name":"Inline","email":"inline@example.com"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":5}]}`, http.StatusCreated)
		if inline["customer_id"] != nil || fmt.Sprint(inline["customer"]) != "map[email:inline@example.com locale:en name:Inline]" {
			t.Errorf("inline invoice: customer_id %v, customer %v", inline["customer_id"], inline["customer"])
		}

		got := c.do(t, "GET", customersPath+"/"+cusID, "", http.StatusOK)
		if want := "[map[amount_due:1000 currency:EUR] map[amount_due:2000 currency:USD]]"; fmt.Sprint(got["outstanding"]) != want {
			t.Errorf("outstanding = %v, want %s", got["outstanding"], want)
		}
		page := c.do(t, "GET", invoicesPath+"?customer_id="+cusID, "", http.StatusOK)["data"].([]any)
		if len(page) != 4 {
			t.Errorf("invoices of the customer: %d, want 4", len(page))
		}
		for _, it := range page {
			if it.(map[string]any)["customer_id"] != cusID {
				t.Errorf("listed %v", it)
			}
		}
		wantProblem(t, e.do(t, request{method: "GET", path: invoicesPath + "?customer_id=inv_x", bearer: e.keyBob}), http.StatusUnprocessableEntity, "validation_failed")

		for _, tt := range []struct {
			name, body string
			want       string
		}{
			{"Both", strings.Replace(invoiceFor(cusID, "USD", "open"), `{`, `{"customer":{"name":"A","email":"a@example.com"},`, 1), "[customer_id]"},
			{"Neither", `{"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":5}]}`, "[customer.name customer.email]"},
			{"NotACustomerID", invoiceFor("cus_nope", "USD", "open"), "[customer_id]"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, request{method: "POST", path: invoicesPath, body: tt.body, bearer: e.keyBob})
				wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
				if got := fmt.Sprint(fieldsOf(t, r)); got != tt.want {
					t.Errorf("fields = %s, want %s", got, tt.want)
				}
			})
		}

		c.do(t, "POST", customersPath+"/"+cusID+"/archive", "", http.StatusOK)
		r = e.do(t, request{method: "POST", path: invoicesPath, body: invoiceFor(cusID, "USD", "open"), bearer: e.keyBob})
		wantProblem(t, r, http.StatusUnprocessableEntity, "validation_failed")
		if got := fmt.Sprint(fieldsOf(t, r)); got != "[customer_id]" {
			t.Errorf("archived: fields = %s", got)
		}
		if got := c.do(t, "GET", customersPath+"/"+cusID, "", http.StatusOK); fmt.Sprint(got["outstanding"]) == "[]" {
			t.Errorf("archiving forgot what the customer owes: %v", got["outstanding"])
		}
	})
}
