package billing

import "time"

// CanTransition reports whether an invoice may move from one status to
// another:
//
//	draft → open                    Finalize (or Create with status open)
//	open  → paid                    a payment leaves nothing due
//	open  → void                    Void
//	open  → uncollectible           MarkUncollectible
//	paid  → open                    a refund leaves something due again
//
// Every other move, staying put included, is refused; void and
// uncollectible are final.
func CanTransition(from, to Status) bool {
	switch from {
	case StatusDraft:
		return to == StatusOpen
	case StatusOpen:
		return to == StatusPaid || to == StatusVoid || to == StatusUncollectible
	case StatusPaid:
		return to == StatusOpen
	}
	return false
}

// acceptsPayments reports whether payments may be applied in status s:
// open invoices, and paid ones (an overpayment is recorded, not refused,
// so that the outcome of a provider's events does not depend on their
// order).
func acceptsPayments(s Status) bool { return s == StatusOpen || s == StatusPaid }

// acceptsRefunds reports whether refunds may be applied in status s: every
// finalized invoice, since a refund returns money that was received
// whatever the tenant decided since. Drafts never took money.
func acceptsRefunds(s Status) bool { return s != StatusDraft }

// settle recomputes the invoice's amount_paid and amount_due from its
// total and its payments and refunds, and moves it between open and paid
// accordingly. The result depends only on the sums, never on the order in
// which payments and refunds arrived:
//
//	amount_paid = max(0, received − refunded)
//	amount_due  = max(0, total − amount_paid), and 0 once void
//	open with nothing due → paid (paid_at = now)
//	paid with something due → open (paid_at cleared)
//	overdue = open and past its due date at now
func (inv *Invoice) settle(now time.Time) {
	inv.AmountPaid = max(0, inv.Received-inv.Refunded)
	inv.AmountDue = max(0, inv.Total-inv.AmountPaid)
	if inv.Status == StatusVoid {
		inv.AmountDue = 0
	}
	switch {
	case inv.Status == StatusOpen && inv.AmountDue == 0:
		inv.Status = StatusPaid
		inv.PaidAt = &now
	case inv.Status == StatusPaid && inv.AmountDue > 0:
		inv.Status = StatusOpen
		inv.PaidAt = nil
	}
	inv.Overdue = inv.Status == StatusOpen && inv.pastDue(now)
}
