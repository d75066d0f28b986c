// Package webhook receives a payment provider's events: it verifies their
// signatures, records every verified event once in an inbox keyed by the
// provider's event id, and applies its effect — a payment or refund on the
// invoice, a notification to the invoice's tenant — in the same database
// transaction as the inbox row.
//
// The pieces, in the order a delivery meets them:
//
//   - A Verifier checks the signature over the raw body before anything
//     parses it. StandardVerifier implements Standard Webhooks
//     (webhook-id, webhook-timestamp, webhook-signature; whsec_ secrets,
//     several at once for rotation), StripeVerifier the Stripe-Signature
//     scheme; a host plugs in its own provider's scheme by implementing
//     Verifier. Every failure wraps ErrSignature.
//   - ParseEvent reads the verified body; a body that is not a JSON event
//     is ErrMalformed, and nothing is stored.
//   - Service.Handle records the event and applies it, exactly once:
//     a redelivered id — sequentially, concurrently, or to another server
//     process on the same database — finds the inbox row taken and changes
//     nothing. A fault rolls everything back, so that the provider's retry
//     starts from a clean slate.
//
// Effects do not depend on the order in which events arrive: billing keeps
// payments and refunds as two running sums, and payment.failed moves no
// money. Events the service cannot apply are still recorded and
// acknowledged, with an Outcome saying why, so that the provider stops
// retrying and an operator can look at them.
//
// Like the other domains, the package knows nothing of HTTP: Verify reads
// headers through the small Headers interface, which http.Header
// implements. The inbox is not tenant data — the tenant is only known once
// the event's invoice has been looked up — so its table is keyed by the
// provider's event id alone and names the tenant, when there is one, in a
// column.
package webhook

import "time"

// Event types that have an effect. Other types are recorded and
// acknowledged with OutcomeIgnored.
const (
	// TypePaymentSucceeded adds the amount to the invoice's payments.
	TypePaymentSucceeded = "payment.succeeded"
	// TypePaymentFailed moves no money and leaves the invoice as it is:
	// it tells the tenant and records invoice.payment_failed.
	TypePaymentFailed = "payment.failed"
	// TypePaymentRefunded adds the amount to the invoice's refunds.
	TypePaymentRefunded = "payment.refunded"
)

// Event is a payment provider's event, as POSTed to the webhook:
//
//	{"id":"evt_…","type":"payment.succeeded","created_at":"…",
//	 "data":{"payment_id":"pay_…","invoice_id":"inv_…","amount":1999,
//	         "currency":"USD","failure_reason":null}}
type Event struct {
	// ID is the provider's event id; a redelivery carries the same one.
	ID string `json:"id"`
	// Type is one of the Type* constants, or another type that is stored
	// without effect.
	Type string `json:"type"`
	// CreatedAt is when the provider created the event; zero when absent.
	CreatedAt time.Time `json:"created_at"`
	// Data is the payment the event is about. It is only read for the
	// Type* constants; other types may carry any data.
	Data EventData `json:"data"`
}

// EventData is the payment an event reports.
type EventData struct {
	PaymentID string `json:"payment_id"`
	InvoiceID string `json:"invoice_id"`
	// Amount is in minor units of Currency (1999 USD is $19.99).
	Amount int64 `json:"amount"`
	// Currency is an ISO 4217 code; it must be the invoice's.
	Currency string `json:"currency"`
	// FailureReason says why a payment failed (payment.failed only).
	FailureReason *string `json:"failure_reason"`
}

// Outcome is what became of a recorded event.
type Outcome string

// The outcomes of an event.
const (
	// OutcomeApplied: the event had its effect (payment.failed: its
	// notification).
	OutcomeApplied Outcome = "applied"
	// OutcomeIgnored: a type without effect, stored and acknowledged.
	OutcomeIgnored Outcome = "ignored"
	// OutcomeUnmatched: an effect-bearing event that could not be applied
	// — unknown invoice, currency mismatch, an invoice whose status takes
	// no such event, an amount out of range. Stored with its Reason and
	// acknowledged; nothing else changed.
	OutcomeUnmatched Outcome = "unmatched"
	// OutcomePending: recorded, effect not applied yet. Service records
	// an event with its outcome, after its effect, so it never writes a
	// pending record; only a host driving a Store itself can leave one.
	OutcomePending Outcome = "pending"
)

// Record is an event as the inbox keeps it.
type Record struct {
	// ID is the provider's event id, unique in the inbox.
	ID   string
	Type string
	// Payload is the body exactly as it was verified.
	Payload []byte
	Outcome Outcome
	// Reason explains an OutcomeUnmatched for operators; "" otherwise.
	Reason string
	// TenantID is the tenant of the event's invoice, "" when none was found.
	TenantID string
	// InvoiceID is the invoice the event names, "" when it names none.
	InvoiceID string
	// ReceivedAt is when the event was first recorded.
	ReceivedAt time.Time
	// ProcessedAt is when its outcome was decided; nil while pending.
	ProcessedAt *time.Time
}

// Result is what Service.Handle did with a delivery.
type Result struct {
	// EventID and Type are the event's.
	EventID string
	Type    string
	// Outcome is the event's outcome: for a duplicate, the one decided
	// when the event was first recorded.
	Outcome Outcome
	// Reason explains an OutcomeUnmatched.
	Reason string
	// TenantID is the tenant of the event's invoice, "" when unknown.
	TenantID string
	// Duplicate reports that the event id was recorded before, so this
	// delivery changed nothing.
	Duplicate bool
}

// resultOf describes a stored record.
func resultOf(r Record, duplicate bool) Result {
	return Result{EventID: r.ID, Type: r.Type, Outcome: r.Outcome, Reason: r.Reason, TenantID: r.TenantID, Duplicate: duplicate}
}
