package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/support"
)

// The fuzz targets below decode every request body a handler decodes,
// each into its own type, the way the handler does (DecodeJSON). Their
// seeds are in testdata/fuzz/<target>/; run one with
//
//	go test ./httpapi -run '^$' -fuzz '^FuzzDecodeCreateInvoice$' -fuzztime 30s
//
// and .ci/fuzz runs them all briefly.

// fuzzMaxBody is the body limit of the fuzzed requests: the API's default.
const fuzzMaxBody = 1 << 20

func FuzzDecodeCreateInvoice(f *testing.F) {
	fuzzRequestBody(f, []string{
		`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":4900,"tax_rate_bps":825}]}`,
		`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"JPY","line_items":[{"description":"x","quantity":1000000,"unit_amount":1000000000000}]}`,
		`{"line_items":[{"quantity":"1"}]}`,
	}, func(t *testing.T, in *billing.CreateInvoiceInput) {
		// What the edge accepts, the domain answers with totals or a 422,
		// never a panic or an overflow.
		_, subtotal, tax, total, err := billing.ComputeTotals(in.Currency, in.LineItems)
		if err != nil {
			if p := problemFor(err); p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("ComputeTotals error %v answers %d, want 422", err, p.Status)
			}
			return
		}
		if subtotal < 0 || tax < 0 || total != subtotal+tax || total > billing.MaxAmount {
			t.Fatalf("ComputeTotals = subtotal %d, tax %d, total %d: out of bounds or inconsistent", subtotal, tax, total)
		}
	})
}

func FuzzDecodeCreateTicket(f *testing.F) {
	fuzzRequestBody[support.CreateTicketInput](f, []string{
		`{"subject":"Printer on fire","description":"Since Monday.","priority":"urgent","tags":["hardware","fire"]}`,
		`{"subject":" ","description":"x","tags":[""]}`,
		`{"subject":"s","description":"d","priority":"whenever"}`,
	}, nil)
}

func FuzzDecodeSubmitContractRequest(f *testing.F) {
	fuzzRequestBody[contract.SubmitInput](f, []string{
		`{"type":"change_plan","plan_id":"enterprise","effective":"next_period","note":"Growing"}`,
		`{"type":"change_seats","seats":25,"effective":"immediately"}`,
		`{"type":"add_module","module_id":"support.csat","seats":1.5,"effective":"now"}`,
	}, nil)
}

func FuzzDecodePreview(f *testing.F) {
	fuzzRequestBody[contract.PreviewInput](f, []string{
		`{}`,
		`{"plan_id":"enterprise","seats":12,"modules":["support.csat"],"effective":"immediately"}`,
		`{"modules":[""],"seats":0}`,
	}, nil)
}

func FuzzDecodeSelectTenant(f *testing.F) {
	fuzzRequestBody[selectTenantRequest](f, []string{
		`{"tenant_id":"ten_01jd3k8v9w2x4y5z6a7b8c9d0e"}`,
		`{"tenant_id":42}`,
		`{}`,
	}, nil)
}

func FuzzDecodeToggle(f *testing.F) {
	fuzzRequestBody[toggleRequest](f, []string{
		`{"module":"support.sla","enabled":false}`,
		`{"module":"support.sla","enabled":"yes"}`,
		`{"module":"support.sla"}`,
	}, nil)
}

// fuzzRequestBody fuzzes DecodeJSON into a T with the given seeds (more
// are in testdata/fuzz). Every body must either decode or be refused
// with a client-error problem whose code matches its status; a body that
// decodes must decode again, to the same value, once re-encoded; and
// accepted, when not nil, checks what decoded.
func fuzzRequestBody[T any](f *testing.F, seeds []string, accepted func(t *testing.T, in *T)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var in T
		if err := DecodeJSON(fuzzRequest(body), &in); err != nil {
			mustClientProblem(t, body, err)
			return
		}
		again, err := json.Marshal(&in)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", in, err)
		}
		var round T
		if err := DecodeJSON(fuzzRequest(string(again)), &round); err != nil {
			t.Fatalf("%q decoded, but its re-encoding %s is refused: %v", body, again, err)
		}
		if twice, _ := json.Marshal(&round); !bytes.Equal(twice, again) {
			t.Fatalf("%q: re-encoding is not stable: %s, then %s", body, again, twice)
		}
		if accepted != nil {
			accepted(t, &in)
		}
	})
}

// fuzzRequest is a JSON POST carrying body, capped as chain caps it.
func fuzzRequest(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	bodyLimit(fuzzMaxBody).capBody(httptest.NewRecorder(), r)
	return r
}

// mustClientProblem fails unless err is a *Problem a client can act on:
// 400 invalid_request, 413 payload_too_large or 422 validation_failed.
func mustClientProblem(t *testing.T, body string, err error) {
	t.Helper()
	var p *Problem
	if !errors.As(err, &p) {
		t.Fatalf("decode %q = %v (%T), want a *Problem", body, err, err)
	}
	want := map[int]string{
		http.StatusBadRequest:            CodeInvalidRequest,
		http.StatusRequestEntityTooLarge: CodePayloadTooLarge,
		http.StatusUnprocessableEntity:   CodeValidationFailed,
	}
	if code, ok := want[p.Status]; !ok || p.Code != code {
		t.Fatalf("decode %q = %d %s, want 400 %s, 413 %s or 422 %s", body, p.Status, p.Code,
			CodeInvalidRequest, CodePayloadTooLarge, CodeValidationFailed)
	}
	if p.Status == http.StatusUnprocessableEntity && len(p.Errors) == 0 {
		t.Fatalf("decode %q = 422 without errors[]: a client cannot tell what to fix", body)
	}
}
