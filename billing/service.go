package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Entitlements is what billing asks of tenancy before it creates: whether
// the tenant's plan has the invoices module, and whether its monthly
// invoice limit has room. *tenancy.Entitlements implements it.
type Entitlements interface {
	// RequireModule returns nil when module is on for the tenant, else an
	// error wrapping tenancy.ErrModuleDisabled.
	RequireModule(ctx context.Context, tenantID, module string) error
	// Allowance checks that module is on for the tenant (else an error
	// wrapping tenancy.ErrModuleDisabled) and returns its allowance of the
	// metered feature, in one read.
	Allowance(ctx context.Context, tenantID, module, feature string) (tenancy.Allowance, error)
	// Use spends n units of the allowance in the current period, on the
	// transaction in ctx, so that they are spent only if the caller's work
	// commits. It returns an error wrapping tenancy.ErrLimitExceeded, with
	// nothing spent, when the allowance's limit would be passed, under any
	// concurrency.
	Use(ctx context.Context, a tenancy.Allowance, n int64) error
}

// Transactor runs fn in one transaction, carried by the context fn
// receives, and commits only if fn returns nil; inside a transaction ctx
// already carries, it runs fn in a savepoint of it. fn's error must come
// back unwrapped so that errors.Is still matches it. Service runs each
// operation that writes more than once through it, and its Store and
// Entitlements must join the transaction the context carries:
// tenantkit.NewTransactor gives the one the Bun stores join. A Transactor
// that also has JoinTx(ctx, fn) error, running fn on the transaction ctx
// carries without a savepoint (tenantkit's has), saves the payment
// provider's path (Ledger.ApplyPaymentByID) two round trips.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Service holds the rules of invoicing: validation and totals, numbering,
// limits, the lifecycle, and the money a payment provider reports.
type Service struct {
	store Store
	ent   Entitlements
	tx    func(ctx context.Context, fn func(ctx context.Context) error) error // Transactor.InTx
	// join is the Transactor's JoinTx when it has one, else tx (see joiner).
	join func(ctx context.Context, fn func(ctx context.Context) error) error
	now  func() time.Time
	// events records the audit trail (WithEvents); nil records nothing.
	events Events
	// customers keeps the customers on record (WithCustomers).
	customers CustomerStore
	// terms are the tenants' default payment terms (WithPaymentTerms).
	terms PaymentTerms
}

// Option configures a Service.
type Option func(*Service)

// WithClock makes the service read time from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// NewService returns a Service on store that checks modules and limits
// with ent and runs each operation as one transaction with tx. It panics
// when tx is nil: without a transaction a create could spend the tenant's
// allowance or take a number and then fail to insert, and a payment could
// be applied to an invoice whose webhook event is never recorded.
func NewService(store Store, ent Entitlements, tx Transactor, opts ...Option) *Service {
	if tx == nil {
		panic("billing: NewService needs a Transactor: without one, spending the allowance, " +
			"numbering and inserting an invoice (or a payment and its record) would no longer commit or roll back as one")
	}
	s := &Service{store: store, ent: ent, tx: tx.InTx, join: tx.InTx, now: time.Now}
	if j, ok := tx.(joiner); ok {
		s.join = j.JoinTx
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// clock returns the current time for the tenant ctx acts for (its test
// clock, tenancy.WithTestClock, or the service's) as stored: UTC, to the microsecond (what
// Postgres keeps), so that what a method returns equals what Get reads back.
func (s *Service) clock(ctx context.Context) time.Time {
	return tenancy.Now(ctx, s.now).UTC().Truncate(time.Microsecond)
}

// FormatNumber is how an invoice's sequence number is shown: "INV-000042".
// Numbers past 999999 simply grow longer.
func FormatNumber(n int64) string { return fmt.Sprintf("INV-%06d", n) }

// Create validates in, computes the invoice's amounts, and stores it as
// draft or (by default) open. In one transaction it spends one unit of the
// tenant's monthly collections.invoices limit, takes the tenant's next
// number when the invoice is created open (a draft is numbered when it is
// finalized) and inserts, so that concurrent creates never pass the limit,
// never share a number and leave no gap. An invoice created open is
// finalized at once, and one with a total of 0 is paid at once (nothing is
// due).
//
// Errors: *InvalidError (ErrInvalid); an error wrapping
// tenancy.ErrModuleDisabled when the collections.invoices module is off;
// one wrapping tenancy.ErrLimitExceeded when the month's limit is reached.
func (s *Service) Create(ctx context.Context, tenantID string, in CreateInvoiceInput) (Invoice, error) {
	allowance, err := s.ent.Allowance(ctx, tenantID, catalog.ModuleInvoices, catalog.FeatureInvoices)
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: create invoice: %w", err)
	}
	named, err := s.namedCustomer(ctx, tenantID, &in)
	inv, derr := in.draft()
	if err = mergeInvalid(err, derr); err != nil {
		return Invoice{}, fmt.Errorf("billing: create invoice: %w", err)
	}
	if named != nil {
		inv.CustomerID, inv.Customer = &in.CustomerID, *named
	}
	now := s.clock(ctx)
	inv.ID, inv.TenantID, inv.CreatedAt = id.New(id.Invoice), tenantID, now
	inv.settle(now)
	err = s.tx(ctx, func(ctx context.Context) error {
		if in.Status != string(StatusDraft) {
			if err := s.defaultDueDate(ctx, &inv, now); err != nil {
				return err
			}
			inv.finalize(now)
		}
		if err := s.ent.Use(ctx, allowance, 1); err != nil {
			return err
		}
		if inv.Status != StatusDraft {
			n, err := s.store.NextNumber(ctx, tenantID)
			if err != nil {
				return err
			}
			inv.Number = FormatNumber(n)
		}
		if err := s.store.CreateInvoice(ctx, inv); err != nil {
			return err
		}
		return s.record(ctx, event.InvoiceCreated, StatusDraft, inv)
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: create invoice: %w", err)
	}
	return inv, nil
}

// namedCustomer checks that in sends exactly one of customer_id and an
// inline customer, and returns the details of the customer customer_id
// names (nil for an inline one), which it also sets as in's customer for
// the rest of the checks.
func (s *Service) namedCustomer(ctx context.Context, tenantID string, in *CreateInvoiceInput) (*Customer, error) {
	if in.CustomerID == "" {
		return nil, nil
	}
	if in.Customer != (CustomerInput{}) {
		return nil, invalid("customer_id", "cannot be sent with customer: send one of them")
	}
	c, err := s.invoiceCustomer(ctx, tenantID, in.CustomerID)
	if err != nil {
		return nil, err
	}
	in.Customer = CustomerInput{Name: c.Name, Email: c.Email}
	return &c, nil
}

// mergeInvalid joins two checks' outcomes: the first error that is no
// *InvalidError, else every field error of both.
func mergeInvalid(a, b error) error {
	for _, err := range []error{a, b} {
		var ie *InvalidError
		if err != nil && !errors.As(err, &ie) {
			return err
		}
	}
	fe := field.Errors{}
	fe.Merge(a)
	fe.Merge(b)
	return fe.Err()
}

// Get returns the tenant's invoice with id. ErrNotFound when the tenant
// has none, whoever else might.
func (s *Service) Get(ctx context.Context, tenantID, invoiceID string) (Invoice, error) {
	if !id.Valid(id.Invoice, invoiceID) {
		return Invoice{}, fmt.Errorf("billing: invoice %q: %w", invoiceID, ErrNotFound)
	}
	inv, err := s.store.Invoice(ctx, tenantID, invoiceID)
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: invoice %s: %w", invoiceID, err)
	}
	return inv, nil
}

// List returns a page of the tenant's invoices, newest first, and whether
// there are more (continue with f.Before set to the last id). f.Limit is
// clamped to 1..MaxListLimit (0 means DefaultListLimit). *InvalidError for
// an unknown status ("status"), an absurd email ("customer_email") or a
// Before that is no invoice id ("cursor").
func (s *Service) List(ctx context.Context, tenantID string, f ListFilter) ([]Invoice, bool, error) {
	f.CustomerEmail = strings.ToLower(strings.TrimSpace(f.CustomerEmail))
	fe := field.Errors{}
	fe.Merge(field.Check(f))
	if f.Before != "" && !id.Valid(id.Invoice, f.Before) {
		fe.Add("cursor", field.Invalid, "is not an invoice position")
	}
	if err := fe.Err(); err != nil {
		return nil, false, fmt.Errorf("billing: list invoices: %w", err)
	}
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultListLimit
	case f.Limit > MaxListLimit:
		f.Limit = MaxListLimit
	}
	page, more, err := s.store.ListInvoices(ctx, tenantID, f)
	if err != nil {
		return nil, false, fmt.Errorf("billing: list invoices: %w", err)
	}
	return page, more, nil
}

// TenantOf returns the tenant that owns the invoice with id, for callers
// that know only an invoice id, such as a payment provider's webhook.
// ErrNotFound when no tenant has it.
func (s *Service) TenantOf(ctx context.Context, invoiceID string) (string, error) {
	if !id.Valid(id.Invoice, invoiceID) {
		return "", fmt.Errorf("billing: invoice %q: %w", invoiceID, ErrNotFound)
	}
	tenantID, err := s.store.InvoiceTenant(ctx, invoiceID)
	if err != nil {
		return "", fmt.Errorf("billing: invoice %s: %w", invoiceID, err)
	}
	return tenantID, nil
}

// Finalize moves a draft to open: it takes the tenant's next number (a
// draft made before drafts were unnumbered keeps its own), is owed from
// now on (finalized_at), and is paid at once if its total is 0. The number
// is taken under the invoice's lock and in the transaction that opens it,
// so that concurrent finalizes leave no gap and a refused one takes none.
// *TransitionError (ErrConflict) unless the invoice is a draft;
// ErrNotFound; an error wrapping tenancy.ErrModuleDisabled when the module
// is off.
func (s *Service) Finalize(ctx context.Context, tenantID, invoiceID string) (Invoice, error) {
	return s.finalizeDraft(ctx, tenantID, invoiceID)
}

// Void cancels an open invoice: nothing is owed any more (amount_due 0).
// *TransitionError (ErrConflict) unless the invoice is open; ErrNotFound;
// an error wrapping tenancy.ErrModuleDisabled when the module is off.
func (s *Service) Void(ctx context.Context, tenantID, invoiceID string) (Invoice, error) {
	return s.transition(ctx, tenantID, invoiceID, "void", event.InvoiceVoided, StatusOpen, StatusVoid)
}

// MarkUncollectible writes an open invoice off as a bad debt, with
// uncollectible_reason "manual" (MarkUncollectibleFor); amount_due still
// shows what was not paid. *TransitionError (ErrConflict) unless the
// invoice is open; ErrNotFound; an error wrapping
// tenancy.ErrModuleDisabled when the module is off.
func (s *Service) MarkUncollectible(ctx context.Context, tenantID, invoiceID string) (Invoice, error) {
	return s.MarkUncollectibleFor(ctx, tenantID, invoiceID, ReasonManual)
}

// transition applies one of the tenant's own status changes out of open,
// from → to, under the invoice's row lock (Finalize, which also numbers
// the invoice, has its own). from matters beside CanTransition: paid →
// open is a legal move, but only a refund makes it.
func (s *Service) transition(ctx context.Context, tenantID, invoiceID, action, eventType string, from, to Status) (Invoice, error) {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleInvoices); err != nil {
		return Invoice{}, fmt.Errorf("billing: %s %s: %w", action, invoiceID, err)
	}
	inv, err := s.update(ctx, tenantID, invoiceID, eventType, func(inv *Invoice, now time.Time) error {
		if inv.Status != from || !CanTransition(from, to) {
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: action}
		}
		inv.Status = to
		inv.settle(now)
		return nil
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: %s %s: %w", action, invoiceID, err)
	}
	return inv, nil
}

// update runs a read-modify-write of one invoice in a transaction, holding
// the invoice's lock from the read to the write, and records the event
// eventType of the change in it.
func (s *Service) update(ctx context.Context, tenantID, invoiceID, eventType string, change func(inv *Invoice, now time.Time) error) (Invoice, error) {
	if !id.Valid(id.Invoice, invoiceID) {
		return Invoice{}, ErrNotFound
	}
	var inv Invoice
	err := s.tx(ctx, func(ctx context.Context) error {
		var err error
		inv, err = s.store.InvoiceForUpdate(ctx, tenantID, invoiceID)
		if err != nil {
			return err
		}
		before := inv.Status
		if err := change(&inv, s.clock(ctx)); err != nil {
			return err
		}
		if err := s.store.UpdateInvoice(ctx, inv); err != nil {
			return err
		}
		return s.record(ctx, eventType, before, inv)
	})
	if err != nil {
		return Invoice{}, err
	}
	return inv, nil
}

// finalize opens a draft at now, settling it (a total of 0 is paid at once).
func (inv *Invoice) finalize(now time.Time) {
	inv.Status = StatusOpen
	inv.FinalizedAt = &now
	inv.settle(now)
}
