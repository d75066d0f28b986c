package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Transactor runs fn in one transaction, carried by the context fn
// receives, and commits only if fn returns nil; inside a transaction ctx
// already carries, it runs fn in a savepoint of it. fn's error must come
// back unwrapped so that errors.Is still matches it. Service runs each
// delivery through it, and its Store, Invoices and Notifier must join the
// transaction the context carries: tenantkit.NewTransactor gives the one
// the Bun stores join.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Service records a payment provider's verified events and applies them,
// each exactly once.
type Service struct {
	store    Store
	invoices Invoices
	platform PlatformInvoices
	notifier Notifier
	tx       Transactor
	now      func() time.Time
	events   Events
}

// Option configures a Service.
type Option func(*Service)

// WithClock makes the service read time from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// NewService returns a Service that records events in store, applies
// payments and refunds with invoices (a *billing.Ledger), notifies tenants
// with notifier (a *tenancy.Notifications), and runs each event as one
// transaction with tx. It panics when tx is nil: without a transaction a
// payment could be applied, or a tenant notified, for an event that is
// then not recorded, and a redelivery would apply it again.
func NewService(store Store, invoices Invoices, notifier Notifier, tx Transactor, opts ...Option) *Service {
	if tx == nil {
		panic("webhook: NewService needs a Transactor: without one, an event's effect and its record " +
			"would no longer commit or roll back as one, and a redelivery could apply a payment twice")
	}
	s := &Service{store: store, invoices: invoices, notifier: notifier, tx: tx, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// clock returns the current time as stored: UTC, to the microsecond.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Handle records and applies one delivery. Call it only with a body whose
// signature a Verifier has accepted.
//
// In one transaction it applies the event's effect and then records the
// event, with its outcome, in the inbox by its id. The record is what makes
// a delivery count: when the id is recorded already — by an earlier
// delivery, or by a concurrent one, whose transaction this one waits for
// at the insert (and, before that, on the invoice's lock) — the
// transaction rolls back, so that nothing of this delivery remains, and
// the Result carries the outcome decided the first time. Writing the
// record once, last, costs one statement less than recording it pending
// first and its outcome after. Events that cannot be applied are recorded
// as OutcomeUnmatched and are no error: the provider should stop retrying
// them.
//
// Errors: one wrapping ErrMalformed when body is no event (nothing was
// stored); any other error is a fault (the database is unavailable, the
// context ended) after which nothing of the delivery remains, so that the
// provider's retry can succeed.
func (s *Service) Handle(ctx context.Context, body []byte) (Result, error) {
	ev, err := ParseEvent(body)
	if err != nil {
		return Result{}, fmt.Errorf("webhook: handle: %w", err)
	}
	received := s.clock()
	var res Result
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		eff, err := s.apply(ctx, ev)
		if err != nil {
			return err
		}
		processed := s.clock()
		rec := Record{ID: ev.ID, Type: ev.Type, Payload: body, Outcome: eff.outcome, Reason: eff.reason,
			TenantID: eff.tenantID, InvoiceID: eff.invoiceID, ReceivedAt: received, ProcessedAt: &processed}
		inserted, err := s.store.Insert(ctx, rec)
		if err != nil {
			return err
		}
		if !inserted {
			return errDuplicate // undo this delivery's effect: the first one's stands
		}
		res = resultOf(rec, false)
		return nil
	})
	if errors.Is(err, errDuplicate) {
		first, err := s.store.Event(ctx, ev.ID)
		if err != nil {
			return Result{}, fmt.Errorf("webhook: handle event %s: %w", ev.ID, err)
		}
		return resultOf(first, true), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("webhook: handle event %s: %w", ev.ID, err)
	}
	return res, nil
}

// errDuplicate rolls back a delivery whose event id was recorded before.
var errDuplicate = errors.New("webhook: event recorded before")

// Event returns the inbox record of the event with id. ErrNotFound when
// none was recorded.
func (s *Service) Event(ctx context.Context, id string) (Record, error) {
	if checkToken(id, MaxEventIDLen) != "" {
		return Record{}, fmt.Errorf("webhook: event %q: %w", clean(id, MaxEventIDLen), ErrNotFound)
	}
	r, err := s.store.Event(ctx, id)
	if err != nil {
		return Record{}, fmt.Errorf("webhook: event %s: %w", id, err)
	}
	return r, nil
}
