package billing

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/internal/arith"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy/field"
)

// maxLedger bounds the running sums of payments and of refunds of one
// invoice: far more than any real invoice sees, and far from overflowing.
const maxLedger = 1_000 * MaxAmount

// ApplyPayment records a payment of amount (minor units of currency,
// matched case-insensitively) to the tenant's invoice, as a payment
// provider reported it. The invoice must be open or paid; a partial
// payment leaves it open with amount_due reduced, and it becomes paid
// (paid_at set) when nothing is due. More than is due is recorded too:
// amount_paid may exceed total, amount_due stays 0.
//
// It runs on the transaction in ctx (a savepoint of it) and locks the
// invoice, so that the caller can record the provider's event id in the
// same transaction and concurrent events apply one at a time.
//
// Errors: ErrNotFound; ErrCurrencyMismatch (nothing applied);
// *TransitionError (ErrConflict) for a draft, void or uncollectible
// invoice; *InvalidError ("amount") unless 1 ≤ amount ≤ MaxAmount.
func (s *Service) ApplyPayment(ctx context.Context, tenantID, invoiceID string, amount int64, currency string) (Invoice, error) {
	inv, err := s.applyMoney(ctx, tenantID, invoiceID, amount, currency, paymentOf(amount))
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: apply payment to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// ApplyRefund records a refund of amount to the tenant's invoice, as a
// payment provider reported it: amount_paid goes down and amount_due up. A
// paid invoice that is owed something again is reopened (open, paid_at
// cleared). Refunds apply to every finalized invoice — on void and
// uncollectible ones they change amount_paid only — but not to drafts.
//
// Payments and refunds are kept as two running sums and
// amount_paid = max(0, payments − refunds), so a set of events gives the
// same invoice in any order: a refund that arrives before the payment it
// returns shows amount_paid 0 and is netted out when the payment arrives.
//
// Transactions, locking and errors as ApplyPayment, with
// *TransitionError for a draft.
func (s *Service) ApplyRefund(ctx context.Context, tenantID, invoiceID string, amount int64, currency string) (Invoice, error) {
	inv, err := s.applyMoney(ctx, tenantID, invoiceID, amount, currency, refundOf(amount))
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
// (Store.UpdateInvoiceByID), on the transaction in ctx without a savepoint
// of its own, so that the caller records the provider's event in the same
// transaction. The invoice returned carries its TenantID; with
// ErrCurrencyMismatch, a *TransitionError or an *InvalidError ("amount")
// it is the invoice as found, unchanged, so that the caller can tell whose
// invoice the event concerned. Errors as ApplyPayment.
func (s *Service) ApplyPaymentByID(ctx context.Context, invoiceID string, amount int64, currency string) (Invoice, error) {
	inv, err := s.applyMoneyByID(ctx, invoiceID, amount, currency, paymentOf(amount))
	if err != nil {
		return inv, fmt.Errorf("billing: apply payment to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// ApplyRefundByID is ApplyRefund for a caller that knows only the
// invoice's id, as ApplyPaymentByID is ApplyPayment's.
func (s *Service) ApplyRefundByID(ctx context.Context, invoiceID string, amount int64, currency string) (Invoice, error) {
	inv, err := s.applyMoneyByID(ctx, invoiceID, amount, currency, refundOf(amount))
	if err != nil {
		return inv, fmt.Errorf("billing: apply refund to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// applyMoney validates a payment or refund, then applies it under the
// invoice's lock and settles the invoice.
func (s *Service) applyMoney(ctx context.Context, tenantID, invoiceID string, amount int64, currency string,
	apply func(inv *Invoice) error) (Invoice, error) {
	if amount < 1 || amount > MaxAmount {
		return Invoice{}, outOfRange("amount", "must be between 1 and %d", int64(MaxAmount))
	}
	return s.update(ctx, tenantID, invoiceID, func(inv *Invoice, now time.Time) error {
		return applyTo(inv, currency, apply, now)
	})
}

// applyMoneyByID is applyMoney by invoice id alone. It checks the amount
// once the invoice is found, so that even a refused event is known to
// concern that invoice (and its tenant); the invoice as found comes back
// with any error but ErrNotFound.
func (s *Service) applyMoneyByID(ctx context.Context, invoiceID string, amount int64, currency string,
	apply func(inv *Invoice) error) (Invoice, error) {
	if !id.Valid(id.Invoice, invoiceID) {
		return Invoice{}, ErrNotFound
	}
	var found Invoice
	inv, err := s.store.UpdateInvoiceByID(ctx, invoiceID, func(inv *Invoice) error {
		found = *inv
		if amount < 1 || amount > MaxAmount {
			return outOfRange("amount", "must be between 1 and %d", int64(MaxAmount))
		}
		return applyTo(inv, currency, apply, s.clock())
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
