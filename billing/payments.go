package billing

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/arith"
	"github.com/tenantkit/tenantkit/internal/id"
)

// maxLedger bounds the running sums of payments and of refunds of one
// invoice: far more than any real invoice sees, and far from overflowing.
const maxLedger = 1_000 * MaxAmount

// ProviderPayment is a payment or refund as the payment provider reports
// it: what Ledger.ApplyPayment and its kin apply and keep in the ledger.
// Its validate tags are its rules; the JSON names are those its errors
// carry.
type ProviderPayment struct {
	// Amount is in minor units of Currency: 1..MaxAmount.
	Amount int64 `json:"amount" validate:"min=1,max=1000000000000000"`
	// Currency must be the invoice's; matched case-insensitively.
	Currency string `json:"currency"`
	// PaymentID is the provider's id of the payment, kept as the entry's
	// reference: text of at most MaxReferenceLen characters, or "".
	PaymentID string `json:"payment_id" validate:"max=200,text"`
	// EventID is the id of the provider's event that reported it: text of
	// at most MaxReferenceLen characters, or "".
	EventID string `json:"event_id" validate:"max=200,text"`
	// ReceivedAt is when the provider says the money moved; zero means now.
	ReceivedAt time.Time `json:"received_at"`
}

// entry is the ledger entry of p, of kind, to be completed by apply.
func (p ProviderPayment) entry(kind PaymentKind) Payment {
	received := p.ReceivedAt
	if !received.IsZero() {
		received = received.UTC().Truncate(time.Microsecond)
	}
	return Payment{Kind: kind, Amount: p.Amount, Source: SourceWebhook, Reference: p.PaymentID,
		EventID: p.EventID, ReceivedAt: received}
}

// ApplyPayment records a payment to the tenant's invoice, as a payment
// provider reported it: the amount is added to the invoice's payments and
// kept as an entry of its ledger (source webhook). The invoice must be
// open or paid; a partial payment leaves it open with amount_due reduced,
// and it becomes paid (paid_at set) when nothing is due. More than is due
// is recorded too, since the money has moved: amount_paid may exceed
// total, amount_due stays 0.
//
// It runs in a transaction (a savepoint of the one in ctx) and locks the
// invoice, so that the caller can record the provider's event in the same
// transaction and concurrent payments apply one at a time.
//
// Errors: ErrNotFound; ErrCurrencyMismatch (nothing applied);
// *TransitionError (ErrConflict) for a draft, void or uncollectible
// invoice; *InvalidError ("amount" unless 1 ≤ amount ≤ MaxAmount,
// "payment_id", "event_id").
func (l *Ledger) ApplyPayment(ctx context.Context, tenantID, invoiceID string, p ProviderPayment) (Invoice, error) {
	inv, err := l.applyMoney(ctx, tenantID, invoiceID, p, KindPayment, paymentOf(p.Amount))
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: apply payment to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// ApplyRefund records a refund to the tenant's invoice, as a payment
// provider reported it, with its entry in the ledger: amount_paid goes
// down and amount_due up. A paid invoice that is owed something again is
// reopened (open, paid_at cleared). Refunds apply to every finalized
// invoice — on void and uncollectible ones they change amount_paid only —
// but not to drafts.
//
// Payments and refunds are kept as two running sums and
// amount_paid = max(0, payments − refunds), so a set of events gives the
// same invoice in any order: a refund that arrives before the payment it
// returns shows amount_paid 0 and is netted out when the payment arrives.
//
// Transactions, locking and errors as ApplyPayment, with
// *TransitionError for a draft.
func (l *Ledger) ApplyRefund(ctx context.Context, tenantID, invoiceID string, p ProviderPayment) (Invoice, error) {
	inv, err := l.applyMoney(ctx, tenantID, invoiceID, p, KindRefund, refundOf(p.Amount))
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: apply refund to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// paymentOf adds a payment of amount to an invoice that takes payments.
func paymentOf(amount int64) func(inv *Invoice) error {
	return func(inv *Invoice) error {
		if !acceptsPayments(inv.Status) {
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "apply payment"}
		}
		received, ok := arith.AddBounded(inv.Received, amount, maxLedger)
		if !ok {
			return outOfRange("amount", "would take the invoice's payments past %d", int64(maxLedger))
		}
		inv.Received = received
		return nil
	}
}

// refundOf adds a refund of amount to an invoice that takes refunds.
func refundOf(amount int64) func(inv *Invoice) error {
	return func(inv *Invoice) error {
		if !acceptsRefunds(inv.Status) {
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "apply refund"}
		}
		refunded, ok := arith.AddBounded(inv.Refunded, amount, maxLedger)
		if !ok {
			return outOfRange("amount", "would take the invoice's refunds past %d", int64(maxLedger))
		}
		inv.Refunded = refunded
		return nil
	}
}

// ApplyPaymentByID is ApplyPayment for a caller that knows only the
// invoice's id, such as a payment provider's webhook: the invoice is
// found, whichever tenant owns it, and locked in one step
// (Store.UpdateInvoiceByID), and its ledger entry written after it, on the
// transaction in ctx without a savepoint of its own when the Transactor
// can join one (else in a savepoint; without a transaction in ctx, in one
// of its own), so that the caller records the provider's event in the
// same transaction. The invoice returned carries its TenantID; with
// ErrCurrencyMismatch, a *TransitionError or an *InvalidError it is the
// invoice as found, unchanged, so that the caller can tell whose invoice
// the event concerned. Errors as ApplyPayment.
func (l *Ledger) ApplyPaymentByID(ctx context.Context, invoiceID string, p ProviderPayment) (Invoice, error) {
	inv, err := l.applyMoneyByID(ctx, invoiceID, p, KindPayment, paymentOf(p.Amount))
	if err != nil {
		return inv, fmt.Errorf("billing: apply payment to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// ApplyRefundByID is ApplyRefund for a caller that knows only the
// invoice's id, as ApplyPaymentByID is ApplyPayment's.
func (l *Ledger) ApplyRefundByID(ctx context.Context, invoiceID string, p ProviderPayment) (Invoice, error) {
	inv, err := l.applyMoneyByID(ctx, invoiceID, p, KindRefund, refundOf(p.Amount))
	if err != nil {
		return inv, fmt.Errorf("billing: apply refund to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// applyMoney validates a provider's payment or refund, then applies it
// under the invoice's lock, settles the invoice and writes its entry.
func (l *Ledger) applyMoney(ctx context.Context, tenantID, invoiceID string, p ProviderPayment, kind PaymentKind,
	apply func(inv *Invoice) error) (Invoice, error) {
	if err := field.Check(p); err != nil {
		return Invoice{}, err
	}
	e := p.entry(kind)
	return l.apply(ctx, tenantID, invoiceID, &e, moneyEvent(kind), func(inv *Invoice, now time.Time) error {
		return applyTo(inv, p.Currency, apply, now)
	})
}

// applyMoneyByID is applyMoney by invoice id alone. It checks the payment
// once the invoice is found, so that even a refused event is known to
// concern that invoice (and its tenant); the invoice as found comes back
// with any error but ErrNotFound.
func (l *Ledger) applyMoneyByID(ctx context.Context, invoiceID string, p ProviderPayment, kind PaymentKind,
	apply func(inv *Invoice) error) (Invoice, error) {
	if !id.Valid(id.Invoice, invoiceID) {
		return Invoice{}, ErrNotFound
	}
	var (
		found, inv Invoice
		now        time.Time // when the invoice was locked
	)
	bad := field.Check(p)
	e := p.entry(kind)
	err := l.svc.join(ctx, func(ctx context.Context) error {
		var err error
		inv, err = l.svc.store.UpdateInvoiceByID(ctx, invoiceID, func(inv *Invoice) error {
			found, now = *inv, l.svc.clock(ctx)
			if bad != nil {
				return bad
			}
			return applyTo(inv, p.Currency, apply, now)
		})
		if err != nil {
			return err
		}
		e.complete(inv, now)
		if err := l.payments.AddPayment(ctx, e); err != nil {
			return err
		}
		return l.svc.record(ctx, moneyEvent(kind), found.Status, inv)
	})
	if err != nil {
		return found, err
	}
	return inv, nil
}

// applyTo applies a payment or refund in currency to inv and settles it.
func applyTo(inv *Invoice, currency string, apply func(inv *Invoice) error, now time.Time) error {
	if !strings.EqualFold(currency, inv.Currency) {
		return fmt.Errorf("%w: %s is in %s, not %q", ErrCurrencyMismatch, inv.ID, inv.Currency, field.Truncate(currency, 8))
	}
	if err := apply(inv); err != nil {
		return err
	}
	inv.settle(now)
	return nil
}

// moneyEvent is the event type of a payment or refund of kind.
func moneyEvent(kind PaymentKind) string {
	if kind == KindRefund {
		return event.InvoiceRefunded
	}
	return event.InvoicePaymentRecorded
}
