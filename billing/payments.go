package billing

import (
	"context"
	"fmt"
	"strings"
	"time"
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
	inv, err := s.applyMoney(ctx, tenantID, invoiceID, amount, currency, func(inv *Invoice) error {
		if !acceptsPayments(inv.Status) {
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "apply payment"}
		}
		received, ok := addBounded(inv.Received, amount, maxLedger)
		if !ok {
			return invalid("amount", "would take the invoice's payments past %d", int64(maxLedger))
		}
		inv.Received = received
		return nil
	})
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
	inv, err := s.applyMoney(ctx, tenantID, invoiceID, amount, currency, func(inv *Invoice) error {
		if !acceptsRefunds(inv.Status) {
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "apply refund"}
		}
		refunded, ok := addBounded(inv.Refunded, amount, maxLedger)
		if !ok {
			return invalid("amount", "would take the invoice's refunds past %d", int64(maxLedger))
		}
		inv.Refunded = refunded
		return nil
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: apply refund to %s: %w", invoiceID, err)
	}
	return inv, nil
}

// applyMoney validates a payment or refund, then applies it under the
// invoice's lock and settles the invoice.
func (s *Service) applyMoney(ctx context.Context, tenantID, invoiceID string, amount int64, currency string,
	apply func(inv *Invoice) error) (Invoice, error) {
	if amount < 1 || amount > MaxAmount {
		return Invoice{}, invalid("amount", "must be between 1 and %d", int64(MaxAmount))
	}
	return s.update(ctx, tenantID, invoiceID, func(inv *Invoice, now time.Time) error {
		if !strings.EqualFold(currency, inv.Currency) {
			return fmt.Errorf("%w: %s is in %s, not %q", ErrCurrencyMismatch, inv.ID, inv.Currency, truncate(currency, 8))
		}
		if err := apply(inv); err != nil {
			return err
		}
		inv.settle(now)
		return nil
	})
}
