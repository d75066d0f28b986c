package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
)

// OutcomeDismissed: an unmatched event an operator looked at and set
// aside (Settlement.Dismiss), with the operator's reason; nothing changed.
const OutcomeDismissed Outcome = "dismissed"

// ErrConflict: the event is no longer unmatched (an operator applied or
// dismissed it already), so it cannot be settled again.
var ErrConflict = errors.New("webhook event is not unmatched")

// Inbox is the operators' side of the inbox: finding the events that need
// a person, and recording what the person decided. The Bun store
// implements it beside Store; webhooktest.RunInbox checks it.
type Inbox interface {
	// Events returns up to f.Limit (at least 1) events with outcome
	// f.Outcome, greatest id first, with ids less than f.Before when set,
	// and whether more follow. No error but a storage fault.
	Events(ctx context.Context, f EventFilter) (page []Record, hasMore bool, err error)
	// Settle writes r's Outcome, Reason, TenantID, InvoiceID and
	// ProcessedAt to the event r.ID provided its outcome is still from,
	// as one conditional update, so that of concurrent settlements one
	// succeeds. ErrConflict when the event has another outcome,
	// ErrNotFound when there is none.
	Settle(ctx context.Context, r Record, from Outcome) error
}

// EventFilter selects and pages the inbox's events. Its validate tag is
// the rule Settlement.Events checks, and the JSON name that of the query
// parameter, which names a refused filter.
type EventFilter struct {
	// Outcome keeps events with this outcome; Settlement.Events asks for
	// OutcomeUnmatched when it is empty.
	Outcome Outcome `json:"outcome" validate:"oneof=unmatched applied dismissed ignored pending"`
	// Limit is the page size: 1..MaxListLimit, DefaultListLimit when 0.
	Limit int
	// Before is the id of the last event of the previous page.
	Before string
}

// Page sizes of Settlement.Events.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// ApplyInput is what an operator gives to apply an event (Apply): the
// body of POST /api/operator/payment-events/{id}/apply. Apply checks its
// tag once the id is trimmed, before anything is read.
type ApplyInput struct {
	// InvoiceID is the invoice the operator matched the event to.
	InvoiceID string `json:"invoice_id" validate:"required,id=inv"`
}

// DismissInput is what an operator gives to dismiss an event (Dismiss):
// the body of POST /api/operator/payment-events/{id}/dismiss. Dismiss
// checks its tag once the reason is trimmed, before anything is read.
type DismissInput struct {
	// Reason is 1..500 characters once trimmed.
	Reason string `json:"reason" validate:"required,max=500,text"`
}

// Settlement is how the platform's operators settle the events that could
// not be applied: list them, apply one to the invoice they matched it to
// by hand, or dismiss it. Who acts travels in the context
// (tenancy.ActorFrom) to everything the calls reach.
type Settlement struct {
	svc   *Service
	inbox Inbox
}

// NewSettlement returns a Settlement over the events svc recorded, read
// and settled through inbox (the same store as svc's).
func NewSettlement(svc *Service, inbox Inbox) *Settlement {
	return &Settlement{svc: svc, inbox: inbox}
}

// Events returns a page of the events with f.Outcome (unmatched when
// empty) and whether more follow. *tenancy.InvalidError for an unknown
// outcome ("outcome") or a malformed cursor ("cursor").
func (s *Settlement) Events(ctx context.Context, f EventFilter) ([]Record, bool, error) {
	if f.Outcome == "" {
		f.Outcome = OutcomeUnmatched
	}
	errs := field.Errors{}
	errs.Merge(field.Check(f))
	if f.Before != "" && checkToken(f.Before, MaxEventIDLen) != "" {
		errs.Add("cursor", field.Invalid, "is not an event position")
	}
	if err := errs.Err(); err != nil {
		return nil, false, fmt.Errorf("webhook: list events: %w", err)
	}
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultListLimit
	case f.Limit > MaxListLimit:
		f.Limit = MaxListLimit
	}
	page, more, err := s.inbox.Events(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("webhook: list events: %w", err)
	}
	if page == nil {
		page = []Record{}
	}
	return page, more, nil
}

// Apply gives the unmatched event eventID its effect on the invoice
// invoiceID, which an operator matched it to by hand, and marks it
// applied: a payment or a refund is added to the invoice, the invoice's
// tenant is told, as if the event had named that invoice. It happens
// once: the event is marked with a conditional update first, in the same
// transaction, so that of two operators applying it one succeeds and the
// other gets ErrConflict, and a redelivery of the event by the provider
// finds its id recorded and moves nothing.
//
// Errors: *tenancy.InvalidError ("invoice_id") for an id ApplyInput's tag
// refuses, before anything is read; ErrNotFound for an unknown event;
// ErrConflict when it is not unmatched; *tenancy.InvalidError
// ("invoice_id") when no invoice has that id; billing.ErrCurrencyMismatch, billing.ErrConflict (an invoice
// that takes no such event) and billing.ErrInvalid (the amount) as
// billing answers them, with nothing changed.
func (s *Settlement) Apply(ctx context.Context, eventID, invoiceID string) (Record, error) {
	invoiceID = strings.TrimSpace(invoiceID)
	if err := field.Check(ApplyInput{InvoiceID: invoiceID}); err != nil {
		return Record{}, fmt.Errorf("webhook: apply event %s: %w", eventID, err)
	}
	var out Record
	err := s.svc.tx.InTx(ctx, func(ctx context.Context) error {
		rec, err := s.event(ctx, eventID)
		if err != nil {
			return err
		}
		ev, err := ParseEvent(rec.Payload)
		if err != nil {
			return err
		}
		if !hasEffect(ev.Type) {
			return fmt.Errorf("%w: it is a %s event, which has no effect", ErrConflict, ev.Type)
		}
		if rec.Outcome != OutcomeUnmatched {
			return fmt.Errorf("%w: it is %s", ErrConflict, rec.Outcome)
		}
		_, err = s.svc.invoices.InvoiceByID(ctx, invoiceID)
		if errors.Is(err, billing.ErrNotFound) {
			return field.NewInvalidError("invoice_id", field.Invalid, "no invoice has this id")
		}
		if err != nil {
			return err
		}
		// The effect first, then the mark: the invoice's lock and then
		// the event's row, in the order a delivery of the event takes
		// them, so that the two wait for each other rather than
		// deadlock. Of concurrent settlements, the mark lets one commit;
		// the others roll their effect back.
		ev.Data.InvoiceID = invoiceID
		eff, err := s.svc.apply(ctx, ev)
		if err != nil {
			return err
		}
		if eff.outcome != OutcomeApplied {
			return eff.cause
		}
		processed := s.svc.clock()
		rec.Outcome, rec.Reason, rec.TenantID, rec.InvoiceID, rec.ProcessedAt = OutcomeApplied, "", eff.tenantID, invoiceID, &processed
		if err := s.inbox.Settle(ctx, rec, OutcomeUnmatched); err != nil {
			return err
		}
		out = rec
		return s.svc.recordSettled(ctx, rec.TenantID, eventApplied, rec)
	})
	if err != nil {
		return Record{}, fmt.Errorf("webhook: apply event %s to %s: %w", eventID, invoiceID, err)
	}
	return out, nil
}

// Dismiss sets the unmatched event eventID aside with the operator's
// reason (1..500 characters once trimmed): its outcome becomes
// OutcomeDismissed, and nothing else changes. ErrNotFound for an unknown
// event, ErrConflict when it is not unmatched, *tenancy.InvalidError
// ("reason").
func (s *Settlement) Dismiss(ctx context.Context, eventID, reason string) (Record, error) {
	reason = strings.TrimSpace(reason)
	if err := field.Check(DismissInput{Reason: reason}); err != nil {
		return Record{}, fmt.Errorf("webhook: dismiss event %s: %w", eventID, err)
	}
	var out Record
	err := s.svc.tx.InTx(ctx, func(ctx context.Context) error {
		rec, err := s.event(ctx, eventID)
		if err != nil {
			return err
		}
		processed := s.svc.clock()
		rec.Outcome, rec.Reason, rec.ProcessedAt = OutcomeDismissed, reason, &processed
		if err := s.inbox.Settle(ctx, rec, OutcomeUnmatched); err != nil {
			return err
		}
		out = rec
		return s.svc.recordSettled(ctx, "", eventDismissed, rec)
	})
	if err != nil {
		return Record{}, fmt.Errorf("webhook: dismiss event %s: %w", eventID, err)
	}
	return out, nil
}

// event reads the event with id; a malformed id is not found.
func (s *Settlement) event(ctx context.Context, eventID string) (Record, error) {
	if checkToken(eventID, MaxEventIDLen) != "" {
		return Record{}, ErrNotFound
	}
	return s.svc.store.Event(ctx, eventID)
}
