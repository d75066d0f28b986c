package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/tenantkit/tenantkit/webhook"
)

// The incoming webhooks group: the payment provider's events, verified,
// recorded and applied exactly once.

var _ PaymentEvents = (*webhook.Service)(nil)

// PaymentEvents records and applies the payment provider's events, each
// exactly once; *webhook.Service implements it.
type PaymentEvents interface {
	// Handle records and applies one delivery whose signature has been
	// verified. An error wrapping webhook.ErrMalformed when body is no
	// event; any other error is a fault after which nothing of the
	// delivery remains.
	Handle(ctx context.Context, body []byte) (webhook.Result, error)
}

// paymentWebhookEndpoints are the incoming webhooks group's rows of the
// route table.
func (a *API) paymentWebhookEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "POST", Path: "/api/webhooks/payment-provider", Group: GroupWebhooks, Public: true,
			CSRFExempt: true, MaxBody: webhook.MaxPayloadBytes, Handle: With(a.cfg.Services.Webhooks, a.paymentWebhook)},
	}
}

// webhookAck is the answer to every delivery the webhook accepts, first
// or repeated: the provider needs only the 2xx, operators read the rest.
type webhookAck struct {
	Received bool `json:"received"`
	// Duplicate: the event id was recorded before; nothing changed now.
	Duplicate bool `json:"duplicate"`
	// Outcome is "applied", "ignored" or "unmatched" (for a duplicate, the
	// first delivery's).
	Outcome webhook.Outcome `json:"outcome"`
}

// paymentWebhook answers POST /api/webhooks/payment-provider.
// The route row makes it public (no credential, rate limited per client
// IP), exempt from CSRF and bounded to webhook.MaxPayloadBytes (413).
//
// The signature is checked over the raw bytes before anything parses them:
// a missing or bad signature, or a stale timestamp, is a 401 and nothing
// is stored. A verified body that is no event is a 400, also storing
// nothing. Otherwise the event is recorded and applied exactly once, and
// the answer is 200 — also for a redelivery, an unknown type, an unknown
// invoice or a currency mismatch, so that the provider stops retrying. A
// fault (database unavailable) is a 5xx after which nothing of the
// delivery remains, so that the provider's retry can succeed.
func (a *API) paymentWebhook(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err // 413
		}
		return InvalidRequest("could not read the request body")
	}
	if err := a.cfg.WebhookVerifier.Verify(r.Header, body); err != nil {
		if errors.Is(err, webhook.ErrSignature) {
			// The challenge names the scheme rather than writeProblem's
			// default Bearer, which this endpoint does not take.
			w.Header().Set("WWW-Authenticate", `Signature realm="payment-provider"`)
		}
		return err
	}
	res, err := a.cfg.Services.Webhooks.Handle(r.Context(), body)
	if err != nil {
		return err
	}
	logFieldsFrom(r.Context()).tenantID = res.TenantID
	outcome := string(res.Outcome)
	if res.Duplicate {
		outcome = "duplicate"
	}
	a.metrics.webhookEvent(metricEventType(res.Type), outcome)
	WriteJSON(w, http.StatusOK, webhookAck{Received: true, Duplicate: res.Duplicate, Outcome: res.Outcome})
	return nil
}

// metricEventType bounds the type label of the webhook metric: the
// provider may send any number of types tenantkit does not handle.
func metricEventType(t string) string {
	switch t {
	case webhook.TypePaymentSucceeded, webhook.TypePaymentFailed, webhook.TypePaymentRefunded:
		return t
	}
	return "other"
}
