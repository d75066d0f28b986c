package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// PaymentKind says whether a ledger entry brought money in or gave it back.
type PaymentKind string

// The kinds of ledger entries.
const (
	// KindPayment adds its amount to the invoice's payments.
	KindPayment PaymentKind = "payment"
	// KindRefund adds its amount to the invoice's refunds.
	KindRefund PaymentKind = "refund"
)

// PaymentSource says who reported a ledger entry.
type PaymentSource string

// The sources of ledger entries.
const (
	// SourceWebhook: the payment provider, through its webhook (or a host
	// calling Ledger.ApplyPayment and the like with the provider's events).
	SourceWebhook PaymentSource = "webhook"
	// SourceManual: the tenant, recording money received out of band
	// (Ledger.Record).
	SourceManual PaymentSource = "manual"
)

// The methods of a payment the tenant records (RecordPaymentInput.Method).
const (
	MethodBankTransfer = "bank_transfer"
	MethodCash         = "cash"
	MethodCheck        = "check"
	MethodCard         = "card"
	MethodOther        = "other"
)

// Methods lists the payment methods Record takes, as the oneof rule of
// RecordPaymentInput.Method states them (the tests hold the two equal).
func Methods() []string {
	return []string{MethodBankTransfer, MethodCash, MethodCheck, MethodCard, MethodOther}
}

// MaxReferenceLen is the longest reference of a ledger entry (a transfer's
// reference, a check number, the provider's payment id), in characters,
// as the validate tags of RecordPaymentInput and ProviderPayment state it.
const MaxReferenceLen = 200

// Payment is one entry of an invoice's ledger: a payment or a refund, as
// the provider's webhook reported it or as the tenant recorded it. The
// invoice's running sums are the sums of its entries, and each entry is
// written in the same transaction as the sums it changed. (Payments
// applied before the ledger existed are in the sums only.)
type Payment struct {
	// ID is "pay_" + a ULID; ids sort by the time the entry was written.
	ID string `json:"id"`
	// TenantID is the tenant whose invoice it is; never serialised.
	TenantID  string      `json:"-"`
	InvoiceID string      `json:"invoice_id"`
	Kind      PaymentKind `json:"kind"`
	// Amount is positive, in minor units of Currency, the invoice's.
	Amount   int64         `json:"amount"`
	Currency string        `json:"currency"`
	Source   PaymentSource `json:"source"`
	// Method is how the money came (Methods) for a manual entry; "" for
	// the provider's.
	Method string `json:"method,omitempty"`
	// Reference is the tenant's reference of a manual entry ("" when none
	// was given), or the provider's payment id.
	Reference string `json:"reference"`
	// EventID is the id of the provider's event that reported the entry;
	// "" for a manual one.
	EventID string `json:"event_id,omitempty"`
	// ReceivedAt is when the money moved, as the source says.
	ReceivedAt time.Time `json:"received_at"`
	// CreatedAt is when the entry was written.
	CreatedAt time.Time `json:"created_at"`
}

// PaymentStore keeps the invoices' ledgers. Like Store, it runs on the
// transaction carried by ctx, confines every read to the tenant it is
// given and translates driver errors; billingtest.RunPayments checks it.
type PaymentStore interface {
	// AddPayment inserts p, which carries its TenantID and InvoiceID.
	// ErrConflict when the tenant already has an entry with that id;
	// ErrNotFound when the tenant has no such invoice.
	AddPayment(ctx context.Context, p Payment) error
	// ListPayments returns up to f.Limit (≥ 1) of the entries of the
	// tenant's invoice, newest (highest id) first, with id < f.Before
	// when f.Before is set; and whether more follow. Another tenant's
	// invoice has none.
	ListPayments(ctx context.Context, tenantID, invoiceID string, f PaymentFilter) (page []Payment, hasMore bool, err error)
}

// PaymentFilter pages an invoice's ledger for Ledger.Payments, newest
// first and keyset-paginated on the id.
type PaymentFilter struct {
	// Limit is the page size: 1..MaxListLimit, DefaultListLimit when 0.
	// Ledger.Payments clamps it into that range.
	Limit int
	// Before is the id of the last entry of the previous page; "" starts
	// at the newest.
	Before string
}

// Ledger holds the rules of the money on invoices: the payments and
// refunds a payment provider reports, those the tenant records by hand,
// and the ledger that lists them all. Every change of an invoice's sums
// and the entry that explains it commit as one, and the invoice's lock
// makes concurrent payments apply one after the other, so that webhook
// and manual payments compose in any order.
type Ledger struct {
	svc      *Service
	payments PaymentStore
}

// NewLedger returns the Ledger of the invoices svc keeps, writing its
// entries to payments; svc's store, transactions and clock are its own. It
// panics when either is nil.
func NewLedger(svc *Service, payments PaymentStore) *Ledger {
	if svc == nil || payments == nil {
		panic("billing: NewLedger needs the invoices' Service and a PaymentStore")
	}
	return &Ledger{svc: svc, payments: payments}
}

// joiner is a Transactor that can also run fn on the transaction ctx
// carries without a savepoint, and in a new transaction when there is
// none (tenantkit.NewTransactor's can). The by-id payment path uses it:
// its caller, the webhook, records its event in the same transaction and
// fails as a whole when fn fails, so a savepoint would only cost two
// round trips. Without it the path runs in a savepoint.
type joiner interface {
	JoinTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// RecordPaymentInput is a payment the tenant received out of band (a bank
// transfer, cash, a check): the body of
// POST /api/v1/collections/invoices/{id}/payments.
type RecordPaymentInput struct {
	// Amount is in minor units of the invoice's currency: 1 up to the
	// invoice's amount_due (a payment past what is due is refused).
	Amount int64 `json:"amount" validate:"min=1,max=1000000000000000"`
	// Currency, when given, must be the invoice's (upper case).
	Currency string `json:"currency,omitempty" validate:"omitempty,currency"`
	// Method is one of Methods.
	Method string `json:"method" validate:"required,oneof=bank_transfer cash check card other"`
	// Reference is the tenant's own reference, up to MaxReferenceLen
	// characters; optional.
	Reference string `json:"reference,omitempty" validate:"max=200,text"`
	// ReceivedAt is when the money was received, not in the future;
	// nil means now.
	ReceivedAt *time.Time `json:"received_at,omitempty"`
}

// Record books a payment the tenant received out of band on its open
// invoice: the same running sums as a provider's payment (amount_paid up,
// amount_due down, paid with paid_at once nothing is due), and an entry
// with source manual in the invoice's ledger, in one transaction under the
// invoice's lock. Unlike a provider's payment, which reports money that
// has already moved, a manual one may not pay more than is due: of two
// concurrent payments of the whole amount due, one is booked and the other
// refused (a *TransitionError: the invoice is paid by then).
//
// Errors: *InvalidError ("amount" out of range or past amount_due,
// "currency" not the invoice's, "method", "reference", "received_at");
// *TransitionError (ErrConflict) unless the invoice is open; ErrNotFound;
// an error wrapping tenancy.ErrModuleDisabled when the module is off.
// Nothing changes on error.
func (l *Ledger) Record(ctx context.Context, tenantID, invoiceID string, in RecordPaymentInput) (Payment, Invoice, error) {
	if err := l.svc.ent.RequireModule(ctx, tenantID, catalog.ModuleInvoices); err != nil {
		return Payment{}, Invoice{}, fmt.Errorf("billing: record payment on %s: %w", invoiceID, err)
	}
	entry, err := validateRecord(in, l.svc.clock(ctx))
	if err != nil {
		return Payment{}, Invoice{}, fmt.Errorf("billing: record payment on %s: %w", invoiceID, err)
	}
	inv, err := l.apply(ctx, tenantID, invoiceID, &entry, event.InvoicePaymentRecorded, func(inv *Invoice, now time.Time) error {
		switch {
		case inv.Status != StatusOpen:
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "record a payment"}
		case entry.Currency != "" && entry.Currency != inv.Currency:
			return invalid("currency", "must be the invoice's currency, %s", inv.Currency)
		case entry.Amount > inv.AmountDue:
			return outOfRange("amount", "must be at most the amount due, %d", inv.AmountDue)
		}
		return applyTo(inv, inv.Currency, paymentOf(entry.Amount), now)
	})
	if err != nil {
		return Payment{}, Invoice{}, fmt.Errorf("billing: record payment on %s: %w", invoiceID, err)
	}
	return entry, inv, nil
}

// validateRecord checks in — its validate tags, and a ReceivedAt not
// after now — and returns the entry it makes, to be completed by apply.
func validateRecord(in RecordPaymentInput, now time.Time) (Payment, error) {
	f := field.Errors{}
	f.Merge(field.Check(in))
	var received time.Time // zero: when the payment is booked (complete)
	if in.ReceivedAt != nil {
		received = in.ReceivedAt.UTC().Truncate(time.Microsecond)
		if received.After(now) {
			f.Add("received_at", field.Invalid, "must not be in the future")
		}
	}
	if err := f.Err(); err != nil {
		return Payment{}, err
	}
	return Payment{Kind: KindPayment, Amount: in.Amount, Currency: in.Currency, Source: SourceManual,
		Method: in.Method, Reference: in.Reference, ReceivedAt: received}, nil
}

// Payments returns a page of the ledger of the tenant's invoice — its
// payments and refunds from every source — newest first, and whether more
// follow (continue with f.Before set to the last id). f.Limit is clamped to
// 1..MaxListLimit (0 means DefaultListLimit). ErrNotFound when the tenant
// has no such invoice; *InvalidError ("cursor") for a Before that is no
// entry id.
func (l *Ledger) Payments(ctx context.Context, tenantID, invoiceID string, f PaymentFilter) ([]Payment, bool, error) {
	if f.Before != "" && !id.Valid(id.Payment, f.Before) {
		return nil, false, fmt.Errorf("billing: payments of %s: %w", invoiceID,
			field.NewInvalidError("cursor", field.Invalid, "is not a payment position"))
	}
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultListLimit
	case f.Limit > MaxListLimit:
		f.Limit = MaxListLimit
	}
	if _, err := l.svc.Get(ctx, tenantID, invoiceID); err != nil {
		return nil, false, fmt.Errorf("billing: payments: %w", err)
	}
	page, more, err := l.payments.ListPayments(ctx, tenantID, invoiceID, f)
	if err != nil {
		return nil, false, fmt.Errorf("billing: payments of %s: %w", invoiceID, err)
	}
	return page, more, nil
}

// InvoiceByID returns the invoice with id, whichever tenant owns it (its
// TenantID says which), for a caller that knows only the id, such as a
// payment provider's webhook reporting a failed payment. ErrNotFound when
// no tenant has it.
func (l *Ledger) InvoiceByID(ctx context.Context, invoiceID string) (Invoice, error) {
	tenantID, err := l.svc.TenantOf(ctx, invoiceID)
	if err != nil {
		return Invoice{}, err
	}
	return l.svc.Get(ctx, tenantID, invoiceID)
}

// apply runs change on the tenant's invoice under its lock, in a
// transaction (a savepoint of the one in ctx), then writes the invoice and
// e, completed with the invoice's ids and currency, as its ledger entry.
// change settles the invoice; its error rolls everything back.
func (l *Ledger) apply(ctx context.Context, tenantID, invoiceID string, e *Payment, eventType string,
	change func(inv *Invoice, now time.Time) error) (Invoice, error) {
	if !id.Valid(id.Invoice, invoiceID) {
		return Invoice{}, ErrNotFound
	}
	var inv Invoice
	err := l.svc.tx(ctx, func(ctx context.Context) error {
		var err error
		if inv, err = l.svc.store.InvoiceForUpdate(ctx, tenantID, invoiceID); err != nil {
			return err
		}
		now, before := l.svc.clock(ctx), inv.Status
		if err := change(&inv, now); err != nil {
			return err
		}
		if err := l.svc.store.UpdateInvoice(ctx, inv); err != nil {
			return err
		}
		e.complete(inv, now)
		if err := l.payments.AddPayment(ctx, *e); err != nil {
			return err
		}
		return l.svc.record(ctx, eventType, before, inv)
	})
	if err != nil {
		return Invoice{}, err
	}
	return inv, nil
}

// complete fills in what an entry takes from the invoice it was applied
// to, at now: a new id, the invoice's tenant, id and currency, and the
// times (ReceivedAt only when the source gave none).
func (e *Payment) complete(inv Invoice, now time.Time) {
	e.ID, e.TenantID, e.InvoiceID, e.Currency, e.CreatedAt = id.New(id.Payment), inv.TenantID, inv.ID, inv.Currency, now
	if e.ReceivedAt.IsZero() {
		e.ReceivedAt = now
	}
}
