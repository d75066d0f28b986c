package support

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Service holds the rules of support: who may open tickets and how many,
// what a valid ticket is, how tickets move between statuses, their comment
// threads, service level targets and satisfaction ratings. Every method
// but CheckSLA takes the tenant explicitly and never sees another tenant's
// tickets.
type Service struct {
	store Store
	ent   Entitlements
	notes Notifier
	tx    Transactor
	now   func() time.Time
	// events records the audit trail (WithEvents); nil records nothing.
	events Events
}

// Option configures a Service.
type Option func(*Service)

// WithClock makes the service read time from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// NewService returns a Service keeping tickets in store, consulting ent
// (in practice *tenancy.Entitlements; required) for modules and
// allowances, and telling tenants of missed service level targets through
// notes (*tenancy.Notifications). tx runs the steps of each change in one
// transaction. It panics when tx or notes is nil: without a transaction a
// create could spend the tenant's allowance or take a number and then fail
// to insert the ticket, and without a notifier a missed target would go
// untold.
func NewService(store Store, ent Entitlements, notes Notifier, tx Transactor, opts ...Option) *Service {
	if tx == nil {
		panic("support: NewService needs a Transactor: without one, spending the allowance, " +
			"numbering and inserting a ticket would no longer commit or roll back as one")
	}
	if notes == nil {
		panic("support: NewService needs a Notifier: without one, a missed service level target would be recorded but never told")
	}
	s := &Service{store: store, ent: ent, notes: notes, tx: tx, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// clock returns the current time as stored: UTC, to the microsecond that
// Postgres keeps, so a ticket reads back exactly as Create returned it.
func (s *Service) clock(ctx context.Context) time.Time {
	return tenancy.Now(ctx, s.now).UTC().Truncate(time.Microsecond)
}

// Create opens a ticket for requester (the caller) in status open, with the
// tenant's next number, and with service level targets by its priority
// when the tenant has module support.sla on (see Targets). It needs module support.tickets on (an error
// wrapping tenancy.ErrModuleDisabled) and consumes one unit of the monthly
// support.tickets allowance (tenancy.ErrLimitExceeded when used up, even
// under concurrent creates). Invalid input is an *InvalidError listing
// every field at once, by JSON path. Consuming, numbering and inserting
// commit together or not at all.
func (s *Service) Create(ctx context.Context, tenantID string, requester Requester, in CreateTicketInput) (Ticket, error) {
	allowance, err := s.ent.Allowance(ctx, tenantID, catalog.ModuleTickets, catalog.FeatureTickets)
	if err != nil {
		return Ticket{}, fmt.Errorf("support: create ticket: %w", err)
	}
	t, err := newTicket(requester, in)
	if err != nil {
		return Ticket{}, fmt.Errorf("support: create ticket: %w", err)
	}
	withSLA, err := s.moduleOn(ctx, tenantID, catalog.ModuleSLA)
	if err != nil {
		return Ticket{}, fmt.Errorf("support: create ticket: %w", err)
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.ent.Use(ctx, allowance, 1); err != nil {
			return err
		}
		n, err := s.store.NextNumber(ctx, tenantID)
		if err != nil {
			return fmt.Errorf("next number: %w", err)
		}
		// The id and times are taken after the number, which concurrent
		// creates wait for, so that newest-first by id is also by number.
		now := s.clock(ctx)
		t.ID, t.Number, t.Status = id.New(id.Ticket), n, StatusOpen
		t.CreatedAt, t.UpdatedAt = now, now
		if withSLA {
			setTargets(&t)
			t.SLABreached = new(bool)
		}
		if err := s.store.CreateTicket(ctx, tenantID, t); err != nil {
			return err
		}
		return s.record(ctx, tenantID, event.TicketCreated, t.ID, t)
	})
	if err != nil {
		return Ticket{}, fmt.Errorf("support: create ticket: %w", err)
	}
	return t, nil
}

// Get returns the tenant's ticket with id. ErrNotFound when the tenant has
// none (another tenant's ticket included); module support.tickets must be
// on, as for Create.
func (s *Service) Get(ctx context.Context, tenantID, ticketID string) (Ticket, error) {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleTickets); err != nil {
		return Ticket{}, fmt.Errorf("support: ticket %s: %w", ticketID, err)
	}
	if !id.Valid(id.Ticket, ticketID) {
		return Ticket{}, fmt.Errorf("support: ticket %q: %w", ticketID, ErrNotFound)
	}
	t, err := s.store.Ticket(ctx, tenantID, ticketID)
	if err != nil {
		return Ticket{}, fmt.Errorf("support: ticket %s: %w", ticketID, err)
	}
	return t, nil
}

// moduleOn reports whether module is on for the tenant: false for a
// disabled module, an error for anything else that went wrong.
func (s *Service) moduleOn(ctx context.Context, tenantID, module string) (bool, error) {
	err := s.ent.RequireModule(ctx, tenantID, module)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, tenancy.ErrModuleDisabled):
		return false, nil
	default:
		return false, err
	}
}
