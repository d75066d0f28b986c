package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	billingstore "github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook"
)

const (
	webhookPath = "/api/webhooks/payment-provider"
	// webhookSecret is the Standard Webhooks secret the test API trusts.
	webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	// rotatedSecret is a second secret, trusted only where a test says so.
	rotatedSecret = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24="
)

// newWebhooks wires the webhook service on e's database as the server does,
// recording events in store.
func newWebhooks(e *env, store webhook.Store) *webhook.Service {
	tx := tenantkit.NewTransactor(e.db)
	bills := billingstore.New(e.db)
	ledger := billing.NewLedger(billing.NewService(bills, e.svc.Entitlements, tx), bills)
	return webhook.NewService(store, ledger, e.svc.Notifications, tx)
}

func newWebhookVerifier(tb testing.TB, secrets ...string) webhook.Verifier {
	tb.Helper()
	if len(secrets) == 0 {
		secrets = []string{webhookSecret}
	}
	v, err := webhook.NewStandardVerifier(secrets)
	if err != nil {
		tb.Fatalf("webhook verifier: %v", err)
	}
	return v
}

// withAPI returns a copy of e served by another API over the same
// database, built with mutate.
func withAPI(t *testing.T, e *env, mutate func(*httpapi.Config)) *env {
	t.Helper()
	other := *e
	other.mutate = mutate
	other.srv = httptest.NewServer(newAPI(t, &other).Handler())
	t.Cleanup(other.srv.Close)
	return &other
}

func newEventID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "evt_" + hex.EncodeToString(b)
}

// paymentEvent is a provider's event about invoiceID.
func paymentEvent(id, typ, invoiceID string, amount int64, currency string) string {
	return fmt.Sprintf(`{"id":%q,"type":%q,"created_at":"2026-11-21T10:00:00Z","data":{"payment_id":"pay_1","invoice_id":%q,"amount":%d,"currency":%q,"failure_reason":null}}`,
		id, typ, invoiceID, amount, currency)
}

// signed returns the Standard Webhooks headers for body, signed now.
func signed(tb testing.TB, secret, body string) map[string]string {
	tb.Helper()
	h, err := webhook.Sign(secret, "msg_"+newEventID()[4:], time.Now(), []byte(body))
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]string{webhook.HeaderID: h.ID, webhook.HeaderTimestamp: h.Timestamp, webhook.HeaderSignature: h.Signature}
}

// deliver POSTs body to the webhook signed with the test secret.
func (e *env) deliver(t *testing.T, body string) response {
	t.Helper()
	return e.do(t, request{method: "POST", path: webhookPath, body: body, header: signed(t, webhookSecret, body)})
}

// post is e.do for goroutines: it returns transport errors instead of
// failing the test.
func (e *env) post(path, body string, header map[string]string) (response, error) {
	r, err := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	r.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		r.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(r)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}, err
}

// wantAck checks a 200 acknowledgement.
func wantAck(t *testing.T, r response, duplicate bool, outcome string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
	}
	ack := r.json(t)
	if ack["received"] != true || ack["duplicate"] != duplicate || ack["outcome"] != outcome {
		t.Fatalf("ack = %s, want duplicate %v, outcome %s", r.body, duplicate, outcome)
	}
}

// mustCreateInvoice creates an open USD invoice of acme for total over
// HTTP and returns its id.
func (e *env) mustCreateInvoice(t *testing.T, total int64) string {
	t.Helper()
	r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyBob,
		body: invoiceBody("USD", fmt.Sprintf(`{"description":"Plan","quantity":1,"unit_amount":%d,"tax_rate_bps":0}`, total))})
	if r.status != http.StatusCreated {
		t.Fatalf("create invoice: %d %s", r.status, r.body)
	}
	return r.json(t)["id"].(string)
}

// invoiceState is what order must not change.
type invoiceState struct {
	paid, due float64
	status    string
}

func (e *env) invoiceState(t *testing.T, id string) invoiceState {
	t.Helper()
	r := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + id, bearer: e.keyBob})
	if r.status != http.StatusOK {
		t.Fatalf("get invoice: %d %s", r.status, r.body)
	}
	inv := r.json(t)
	return invoiceState{paid: inv["amount_paid"].(float64), due: inv["amount_due"].(float64), status: inv["status"].(string)}
}

// paymentNotifications counts acme's notifications about invoiceID.
func (e *env) paymentNotifications(t *testing.T, invoiceID string) int {
	t.Helper()
	r := e.do(t, request{method: "GET", path: "/api/tenant/notifications?limit=100", bearer: e.keyBob})
	if r.status != http.StatusOK {
		t.Fatalf("notifications: %d %s", r.status, r.body)
	}
	n := 0
	for _, item := range r.json(t)["data"].([]any) {
		data, _ := item.(map[string]any)["data"].(map[string]any)
		if data["invoice_id"] == invoiceID {
			n++
		}
	}
	return n
}

// inboxSize is how many events the inbox holds.
func inboxSize(t *testing.T, db *bun.DB) int64 {
	t.Helper()
	var n int64
	err := database.AcrossTenants(db.NewSelect().TableExpr("webhook_events").ColumnExpr("count(*)")).Scan(context.Background(), &n)
	if err != nil {
		t.Fatalf("count webhook events: %v", err)
	}
	return n
}

func TestWebhookDelivery(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		inv := e.mustCreateInvoice(t, 1999)

		t.Run("AppliedOnceAndAcknowledgedAgain", func(t *testing.T) {
			body := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 1999, "USD")
			wantAck(t, e.deliver(t, body), false, "applied")
			want := invoiceState{paid: 1999, due: 0, status: "paid"}
			if got := e.invoiceState(t, inv); got != want {
				t.Fatalf("invoice = %+v, want %+v", got, want)
			}
			if n := e.paymentNotifications(t, inv); n != 1 {
				t.Fatalf("%d notifications, want 1", n)
			}
			// A redelivery is signed anew (new message id and timestamp) but
			// carries the same event.
			wantAck(t, e.deliver(t, body), true, "applied")
			if got := e.invoiceState(t, inv); got != want {
				t.Fatalf("after redelivery invoice = %+v, want %+v", got, want)
			}
			if n := e.paymentNotifications(t, inv); n != 1 {
				t.Fatalf("after redelivery %d notifications, want 1", n)
			}
		})
		t.Run("Outcomes", func(t *testing.T) {
			other := e.mustCreateInvoice(t, 500)
			tests := []struct {
				name, body, outcome string
			}{
				{"UnknownTypeStoredAndIgnored", `{"id":"` + newEventID() + `","type":"customer.updated","data":{"whatever":[1,2,3]}}`, "ignored"},
				{"UnknownInvoice", paymentEvent(newEventID(), webhook.TypePaymentSucceeded, "inv_01jd0000000000000000000000", 500, "USD"), "unmatched"},
				{"CurrencyMismatch", paymentEvent(newEventID(), webhook.TypePaymentSucceeded, other, 500, "EUR"), "unmatched"},
				{"Failed", paymentEvent(newEventID(), webhook.TypePaymentFailed, other, 500, "USD"), "applied"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					before := inboxSize(t, e.db)
					wantAck(t, e.deliver(t, tt.body), false, tt.outcome)
					wantAck(t, e.deliver(t, tt.body), true, tt.outcome)
					if after := inboxSize(t, e.db); after != before+1 {
						t.Fatalf("inbox grew by %d, want 1", after-before)
					}
				})
			}
			if got, want := e.invoiceState(t, other), (invoiceState{paid: 0, due: 500, status: "open"}); got != want {
				t.Fatalf("invoice = %+v, want %+v (unmatched and failed events move no money)", got, want)
			}
			if n := e.paymentNotifications(t, other); n != 1 {
				t.Fatalf("%d notifications, want 1 (payment.failed)", n)
			}
		})
		t.Run("MalformedUnderValidSignature", func(t *testing.T) {
			before := inboxSize(t, e.db)
			for _, body := range []string{`{"id":"evt_x","type":`, `[1,2]`, `{"type":"payment.succeeded"}`, `{"id":"evt_y","type":"payment.succeeded","data":{"amount":"12"}}`} {
				wantProblem(t, e.deliver(t, body), http.StatusBadRequest, "invalid_request")
			}
			if after := inboxSize(t, e.db); after != before {
				t.Fatalf("malformed events stored: inbox grew by %d", after-before)
			}
		})
		t.Run("BadSignature", func(t *testing.T) {
			body := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 1, "USD")
			good := signed(t, webhookSecret, body)
			stale, err := webhook.Sign(webhookSecret, "msg_stale", time.Now().Add(-6*time.Minute), []byte(body))
			check(t, err)
			tests := []struct {
				name   string
				body   string
				header map[string]string
			}{
				{"NoHeaders", body, nil},
				{"NoSignature", body, map[string]string{webhook.HeaderID: good[webhook.HeaderID], webhook.HeaderTimestamp: good[webhook.HeaderTimestamp]}},
				{"WrongSecret", body, signed(t, rotatedSecret, body)},
				{"TamperedBody", strings.Replace(body, `"amount":1`, `"amount":1000`, 1), good},
				{"Stale", body, map[string]string{webhook.HeaderID: stale.ID, webhook.HeaderTimestamp: stale.Timestamp, webhook.HeaderSignature: stale.Signature}},
				// Garbage under a bad signature is a 401, not a 400: the body
				// is not read before the signature holds.
				{"MalformedBodyUnsigned", `{"id":`, map[string]string{webhook.HeaderID: "msg_1", webhook.HeaderTimestamp: fmt.Sprint(time.Now().Unix()), webhook.HeaderSignature: "v1,AAAA"}},
				{"BearerIsNoSignature", body, map[string]string{"Authorization": "Bearer " + e.keyAll}},
			}
			before := inboxSize(t, e.db)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					r := e.do(t, request{method: "POST", path: webhookPath, body: tt.body, header: tt.header})
					wantProblem(t, r, http.StatusUnauthorized, "unauthenticated")
					if got := r.header.Get("WWW-Authenticate"); strings.HasPrefix(got, "Bearer") {
						t.Fatalf("WWW-Authenticate = %q, want the signature challenge", got)
					}
				})
			}
			if after := inboxSize(t, e.db); after != before {
				t.Fatalf("unverified deliveries stored: inbox grew by %d", after-before)
			}
			if got := e.invoiceState(t, inv); got.paid != 1999 {
				t.Fatalf("unverified deliveries moved money: %+v", got)
			}
		})
		t.Run("TooLarge", func(t *testing.T) {
			body := `{"id":"` + newEventID() + `","type":"x.y","pad":"` + strings.Repeat("x", webhook.MaxPayloadBytes) + `"}`
			wantProblem(t, e.deliver(t, body), http.StatusRequestEntityTooLarge, "payload_too_large")
			// Without a Content-Length the limit applies while reading.
			r, err := http.NewRequest("POST", e.srv.URL+webhookPath, io.MultiReader(strings.NewReader(body)))
			check(t, err)
			for k, v := range signed(t, webhookSecret, body) {
				r.Header.Set(k, v)
			}
			resp, err := e.srv.Client().Do(r)
			check(t, err)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("chunked: status %d, want 413", resp.StatusCode)
			}
		})
		t.Run("NoCSRFNeededWithASessionCookie", func(t *testing.T) {
			body := paymentEvent(newEventID(), webhook.TypePaymentRefunded, inv, 1, "USD")
			r := e.do(t, request{method: "POST", path: webhookPath, body: body, header: signed(t, webhookSecret, body),
				cookies: []*http.Cookie{{Name: "tenantkit_session", Value: jwtFor(t, "alice@acme.test", nil)}}})
			wantAck(t, r, false, "applied")
		})
	})
}

func TestWebhookConfiguration(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		inv := e.mustCreateInvoice(t, 100)
		// Off, the webhook answers 501 and says it is not configured (not
		// that it is unimplemented).
		for _, tt := range []struct {
			name   string
			mutate func(c *httpapi.Config)
		}{
			{"NotConfigured", func(c *httpapi.Config) { c.Services.Webhooks, c.WebhookVerifier = nil, nil }},
			// Without a verifier nothing could be checked: the endpoint
			// stays 501 rather than accept unsigned events.
			{"ServiceWithoutVerifierStaysOff", func(c *httpapi.Config) { c.WebhookVerifier = nil }},
			{"VerifierWithoutService", func(c *httpapi.Config) { c.Services.Webhooks = nil }},
		} {
			t.Run(tt.name, func(t *testing.T) {
				off := withAPI(t, e, tt.mutate)
				body := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 1, "USD")
				r := off.deliver(t, body)
				wantProblem(t, r, http.StatusNotImplemented, "not_implemented")
				if detail, _ := r.json(t)["detail"].(string); !strings.Contains(detail, "not configured") || strings.Contains(detail, "not implemented") {
					t.Fatalf("detail = %q, want it to say the webhook is not configured", detail)
				}
			})
		}
		t.Run("RotatedSecrets", func(t *testing.T) {
			both := withAPI(t, e, func(c *httpapi.Config) { c.WebhookVerifier = newWebhookVerifier(t, rotatedSecret, webhookSecret) })
			for _, secret := range []string{webhookSecret, rotatedSecret} {
				body := paymentEvent(newEventID(), webhook.TypePaymentFailed, inv, 1, "USD")
				wantAck(t, both.do(t, request{method: "POST", path: webhookPath, body: body, header: signed(t, secret, body)}), false, "applied")
			}
		})
		t.Run("StripeScheme", func(t *testing.T) {
			const secret = "whsec_stripe_style_endpoint_secret"
			v, err := webhook.NewVerifier(webhook.SchemeStripe, []string{secret})
			check(t, err)
			stripe := withAPI(t, e, func(c *httpapi.Config) { c.WebhookVerifier = v })
			body := paymentEvent(newEventID(), webhook.TypePaymentSucceeded, inv, 100, "USD")
			wantProblem(t, stripe.deliver(t, body), http.StatusUnauthorized, "unauthenticated") // Standard headers do not count
			r := stripe.do(t, request{method: "POST", path: webhookPath, body: body,
				header: map[string]string{webhook.HeaderStripeSignature: webhook.SignStripe(secret, time.Now(), []byte(body))}})
			wantAck(t, r, false, "applied")
			if got := e.invoiceState(t, inv); got.status != "paid" {
				t.Fatalf("invoice = %+v, want paid", got)
			}
		})
		t.Run("RateLimitedPerClientIP", func(t *testing.T) {
			limited := withAPI(t, e, func(c *httpapi.Config) { c.RateLimiter = httpapi.NewMemoryRateLimiter(0.001, 2) })
			body := paymentEvent(newEventID(), webhook.TypePaymentFailed, inv, 1, "USD")
			for i := range 2 {
				if r := limited.deliver(t, body); r.status != http.StatusOK {
					t.Fatalf("delivery %d: %d %s", i, r.status, r.body)
				}
			}
			r := limited.deliver(t, body)
			wantProblem(t, r, http.StatusTooManyRequests, "rate_limited")
			if r.header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		})
	})
}
