package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// Invoices is what Service needs of billing; *billing.Ledger implements
// it. Every method must run on the transaction carried by ctx.
type Invoices interface {
	// InvoiceByID returns the invoice with that id, whichever tenant owns
	// it (its TenantID says which); billing.ErrNotFound when none does.
	InvoiceByID(ctx context.Context, invoiceID string) (billing.Invoice, error)
	// ApplyPaymentByID adds a payment to the invoice with that id,
	// whichever tenant owns it, finding and locking it in one step on the
	// transaction in ctx, and keeps it in the invoice's ledger; the
	// invoice returned carries its TenantID, also with the errors that say
	// the event does not fit it. Errors: billing.ErrNotFound,
	// billing.ErrCurrencyMismatch, billing.ErrConflict (an invoice that
	// takes no payments), billing.ErrInvalid (amount out of range).
	ApplyPaymentByID(ctx context.Context, invoiceID string, p billing.ProviderPayment) (billing.Invoice, error)
	// ApplyRefundByID adds a refund to the invoice, as ApplyPaymentByID.
	ApplyRefundByID(ctx context.Context, invoiceID string, p billing.ProviderPayment) (billing.Invoice, error)
}

// PlatformInvoices is what Service needs of the platform's invoices to
// its tenants ("pin_…"); *contract.Service implements it. PayInvoice must
// run on the transaction carried by ctx, so that a provider event pays a
// platform invoice once, as it pays a tenant's invoice once. Errors:
// tenancy.ErrNotFound (no such invoice), tenancy.ErrConflict (an invoice
// that is not open), tenancy.ErrInvalid (the currency or the amount).
type PlatformInvoices interface {
	PayInvoice(ctx context.Context, invoiceID string, p contract.Payment) (contract.Invoice, error)
}

// WithPlatformInvoices makes the service book payment.succeeded events
// whose data.invoice_id is a platform invoice's ("pin_…") on that invoice
// with p, rather than on a tenant's invoice. Without it such an event is
// unmatched, as any unknown invoice is.
func WithPlatformInvoices(p PlatformInvoices) Option {
	return func(s *Service) { s.platform = p }
}

// platformInvoicePrefix starts the id of every platform invoice.
const platformInvoicePrefix = "pin_"

// errPlatformPaymentsOnly makes a refund or a failure naming a platform
// invoice unmatched: the platform's invoices keep no ledger to refund
// from, and a failed payment changes nothing on them. An operator
// settles such an event (a refund: void or re-issue by hand).
var errPlatformPaymentsOnly = errors.New("platform invoices take payments only: an operator settles refunds and failures of a platform invoice")

// Notifier tells a tenant what happened; *tenancy.Notifications implements it.
// Notify must run on the transaction carried by ctx and answer
// tenancy.ErrConflict when n.Key was used before.
type Notifier interface {
	Notify(ctx context.Context, tenantID string, n tenancy.NewNotification) (tenancy.Notification, error)
}

// Bounds of the provider's text that reaches a tenant or the inbox.
const (
	maxReasonLen        = 500 // runes of an unmatched event's reason
	maxFailureReasonLen = 500 // runes of a failure reason in a notification
	maxRefLen           = 128 // runes of a payment or invoice id kept
)

// effect is what applying an event decided.
type effect struct {
	outcome             Outcome
	reason              string
	tenantID, invoiceID string
	// cause is why the event is unmatched, as billing said it.
	cause error
}

// apply gives ev its effect on the transaction in ctx. Events that cannot
// be applied come back as OutcomeUnmatched with a reason; an error is a
// fault that must roll the delivery back.
func (s *Service) apply(ctx context.Context, ev Event) (effect, error) {
	if !hasEffect(ev.Type) {
		return effect{outcome: OutcomeIgnored}, nil
	}
	d := ev.Data
	eff := effect{outcome: OutcomeApplied, invoiceID: clean(d.InvoiceID, maxRefLen)}
	if d.InvoiceID == "" {
		return eff.unmatched(errors.New("the event names no invoice (data.invoice_id)"))
	}
	if s.platform != nil && strings.HasPrefix(d.InvoiceID, platformInvoicePrefix) {
		return s.applyPlatform(ctx, ev, eff)
	}
	var (
		inv billing.Invoice
		err error
	)
	// The ledger entry of a payment or refund: the provider's payment id
	// as its reference, and this event.
	money := billing.ProviderPayment{Amount: d.Amount, Currency: d.Currency,
		PaymentID: clean(d.PaymentID, maxRefLen), EventID: clean(ev.ID, maxRefLen), ReceivedAt: ev.CreatedAt}
	switch ev.Type {
	case TypePaymentSucceeded:
		// One step finds the invoice's tenant and locks the invoice.
		inv, err = s.invoices.ApplyPaymentByID(ctx, d.InvoiceID, money)
		eff.tenantID = inv.TenantID
	case TypePaymentRefunded:
		inv, err = s.invoices.ApplyRefundByID(ctx, d.InvoiceID, money)
		eff.tenantID = inv.TenantID
	case TypePaymentFailed:
		// No money moves; the invoice is read only to check the currency
		// and to tell the tenant about it.
		inv, err = s.invoices.InvoiceByID(ctx, d.InvoiceID)
		eff.tenantID = inv.TenantID
		if err == nil && !strings.EqualFold(d.Currency, inv.Currency) {
			err = fmt.Errorf("%w: %s is in %s, not %q", billing.ErrCurrencyMismatch, inv.ID, inv.Currency, clean(d.Currency, 8))
		}
	}
	if err != nil {
		return eff.unmatchedOr(err)
	}
	if ev.Type == TypePaymentFailed {
		// Payments and refunds record their invoice's events in billing.
		if err := s.recordFailure(ctx, ev, inv); err != nil {
			return effect{}, err
		}
	}
	if err := s.notify(ctx, eff.tenantID, ev, inv); err != nil {
		return effect{}, err
	}
	return eff, nil
}

// applyPlatform books a payment.succeeded event on the platform invoice
// it names, on the transaction in ctx, and tells the invoice's tenant.
// Refunds and failures, an unknown invoice, another currency, an amount
// out of range and an invoice that is not open are unmatched, with the
// reason, for an operator to settle.
func (s *Service) applyPlatform(ctx context.Context, ev Event, eff effect) (effect, error) {
	if ev.Type != TypePaymentSucceeded {
		return eff.unmatched(errPlatformPaymentsOnly)
	}
	d := ev.Data
	inv, err := s.platform.PayInvoice(ctx, d.InvoiceID, contract.Payment{Amount: d.Amount,
		Currency: d.Currency, PaymentID: clean(d.PaymentID, maxRefLen)})
	eff.tenantID = inv.TenantID
	if err != nil {
		for _, fits := range []error{tenancy.ErrNotFound, tenancy.ErrConflict, tenancy.ErrInvalid} {
			if errors.Is(err, fits) {
				return eff.unmatched(err)
			}
		}
		return effect{}, err
	}
	if err := s.notifyPlatform(ctx, ev, inv); err != nil {
		return effect{}, err
	}
	return eff, nil
}

// notifyPlatform tells the tenant that the platform received its payment,
// keyed by the event as notify is.
func (s *Service) notifyPlatform(ctx context.Context, ev Event, inv contract.Invoice) error {
	d := ev.Data
	n := tenancy.NewNotification{Type: ev.Type, Key: "webhook:" + ev.ID,
		Title: "Payment received",
		Body: fmt.Sprintf("A payment of %s was received for platform invoice %d. Amount due: %s.",
			formatMoney(d.Amount, inv.Currency), inv.Number, formatMoney(inv.AmountDue, inv.Currency)),
		Data: map[string]any{
			"event_id": ev.ID, "payment_id": clean(d.PaymentID, maxRefLen),
			"invoice_id": inv.ID, "invoice_number": inv.Number, "invoice_status": string(inv.Status),
			"amount": d.Amount, "currency": inv.Currency,
			"amount_paid": inv.AmountPaid, "amount_due": inv.AmountDue,
		}}
	_, err := s.notifier.Notify(ctx, inv.TenantID, n)
	if err != nil && !errors.Is(err, tenancy.ErrConflict) {
		return err
	}
	return nil
}

// unmatched records why the event could not be applied.
func (e effect) unmatched(why error) (effect, error) {
	e.outcome, e.reason, e.cause = OutcomeUnmatched, clean(why.Error(), maxReasonLen), why
	return e, nil
}

// unmatchedOr makes the errors that say "this event does not fit" an
// unmatched outcome, and passes faults on:
//
//   - billing.ErrNotFound: no tenant has the invoice;
//   - billing.ErrCurrencyMismatch: the event is in another currency;
//   - billing.ErrConflict: the invoice's status takes no such event (a
//     payment on a draft, void or uncollectible invoice; a refund on a
//     draft). The provider did move the money, but tenantkit cannot book
//     it on that invoice: the event is kept with its reason for an
//     operator to settle, and the tenant gets no notification;
//   - billing.ErrInvalid: the amount is out of range (not positive, or
//     absurdly large).
func (e effect) unmatchedOr(err error) (effect, error) {
	for _, fits := range []error{billing.ErrNotFound, billing.ErrCurrencyMismatch, billing.ErrConflict, billing.ErrInvalid} {
		if errors.Is(err, fits) {
			return e.unmatched(err)
		}
	}
	return effect{}, err
}

// notify tells the invoice's tenant about the event. The key makes the
// notification unique per event even if a host replays it on its own.
func (s *Service) notify(ctx context.Context, tenantID string, ev Event, inv billing.Invoice) error {
	d := ev.Data
	amount := formatMoney(d.Amount, inv.Currency)
	due := formatMoney(inv.AmountDue, inv.Currency)
	data := map[string]any{
		"event_id": ev.ID, "payment_id": clean(d.PaymentID, maxRefLen),
		"invoice_id": inv.ID, "invoice_number": inv.Number, "invoice_status": string(inv.Status),
		"amount": d.Amount, "currency": inv.Currency,
		"amount_paid": inv.AmountPaid, "amount_due": inv.AmountDue,
	}
	n := tenancy.NewNotification{Type: ev.Type, Data: data, Key: "webhook:" + ev.ID}
	switch ev.Type {
	case TypePaymentSucceeded:
		n.Title = "Payment received"
		n.Body = fmt.Sprintf("A payment of %s was received for invoice %s. Amount due: %s.", amount, inv.Number, due)
	case TypePaymentRefunded:
		n.Title = "Payment refunded"
		n.Body = fmt.Sprintf("A refund of %s was made on invoice %s. Amount due: %s.", amount, inv.Number, due)
	case TypePaymentFailed:
		reason := "no reason given"
		if d.FailureReason != nil && *d.FailureReason != "" {
			reason = clean(*d.FailureReason, maxFailureReasonLen)
			data["failure_reason"] = reason
		} else {
			data["failure_reason"] = nil
		}
		n.Title = "Payment failed"
		n.Body = fmt.Sprintf("A payment of %s for invoice %s failed: %s.", amount, inv.Number, reason)
	}
	_, err := s.notifier.Notify(ctx, tenantID, n)
	if err != nil && !errors.Is(err, tenancy.ErrConflict) {
		return err
	}
	return nil
}

// formatMoney writes minor units for people: "19.99 USD".
func formatMoney(amount int64, currency string) string {
	s, err := billing.FormatAmount(amount, currency)
	if err != nil {
		// An invoice's currency always formats; keep the raw number if not.
		return fmt.Sprintf("%d (minor units) %s", amount, currency)
	}
	return s + " " + currency
}

// clean makes text from outside safe to store and to show: control
// characters become spaces (Postgres refuses NUL in text), invalid UTF-8
// becomes U+FFFD, and it is cut to at most n runes.
func clean(s string, n int) string {
	var b strings.Builder
	count := 0
	for _, r := range s {
		if count == n {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}
