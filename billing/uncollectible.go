package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
)

// UncollectibleReason says who wrote an invoice off as uncollectible.
type UncollectibleReason string

// The reasons an invoice is uncollectible.
const (
	// ReasonManual: the tenant marked it uncollectible (MarkUncollectible).
	ReasonManual UncollectibleReason = "manual"
	// ReasonDunning: the dunning schedule marked it uncollectible, still
	// unpaid at its last step (see Dunning).
	ReasonDunning UncollectibleReason = "dunning"
)

// Valid reports whether r is ReasonManual or ReasonDunning.
func (r UncollectibleReason) Valid() bool { return r == ReasonManual || r == ReasonDunning }

// MarkUncollectibleFor is MarkUncollectible recording why: the invoice's
// UncollectibleReason becomes reason. MarkUncollectible is
// MarkUncollectibleFor with ReasonManual. *InvalidError (field "reason")
// for another reason; *TransitionError (ErrConflict) unless the invoice is
// open; ErrNotFound; an error wrapping tenancy.ErrModuleDisabled when the
// invoices module is off.
func (s *Service) MarkUncollectibleFor(ctx context.Context, tenantID, invoiceID string, reason UncollectibleReason) (Invoice, error) {
	const action = "mark uncollectible"
	if !reason.Valid() {
		return Invoice{}, fmt.Errorf("billing: %s %s: %w", action, invoiceID,
			invalid("reason", "must be %q or %q", ReasonManual, ReasonDunning))
	}
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleInvoices); err != nil {
		return Invoice{}, fmt.Errorf("billing: %s %s: %w", action, invoiceID, err)
	}
	inv, err := s.update(ctx, tenantID, invoiceID, event.InvoiceUncollectible, func(inv *Invoice, now time.Time) error {
		if inv.Status != StatusOpen || !CanTransition(inv.Status, StatusUncollectible) {
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: action}
		}
		inv.Status, inv.UncollectibleReason = StatusUncollectible, reason
		inv.settle(now)
		return nil
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: %s %s: %w", action, invoiceID, err)
	}
	return inv, nil
}
