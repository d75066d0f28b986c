package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// InvoiceFilter selects platform invoices: GET /api/invoices (TenantID
// set by the API, never by the client) and GET /api/operator/invoices.
type InvoiceFilter struct {
	// TenantID confines the list to one tenant; empty lists every tenant's
	// (operators only).
	TenantID string `json:"tenant_id" validate:"omitempty,id=ten"`
	// Status, when set, keeps invoices in that status.
	Status InvoiceStatus `json:"status" validate:"omitempty,oneof=open paid void uncollectible"`
	// Period, when set ("2026-11"), keeps the invoices of that month.
	Period string `json:"period" validate:"omitempty,datetime=2006-01"`
	// Limit is the page size: 1..100, DefaultLimit when 0.
	Limit int `json:"limit" validate:"min=0,max=100"`
	// Before, when set, continues a list after the invoice with that id.
	Before string `json:"cursor" validate:"omitempty,id=pin"`
}

// MarkPaidInput is the body of POST /api/operator/invoices/{id}/mark-paid:
// how the money came, outside the payment provider.
type MarkPaidInput struct {
	// Reference says how it was paid ("wire 2026-12-03"), 1..200
	// characters on one line.
	Reference string `json:"reference" validate:"required,max=200,line"`
}

// Invoices lists the tenant's platform invoices, newest first, filtered
// as f says (f.TenantID is replaced by tenantID).
func (s *Service) Invoices(ctx context.Context, tenantID string, f InvoiceFilter) ([]Invoice, bool, error) {
	if tenantID == "" {
		return nil, false, errors.New("contract: invoices: no tenant given (AllInvoices lists every tenant's)")
	}
	f.TenantID = tenantID
	return s.AllInvoices(ctx, f)
}

// AllInvoices lists the platform invoices of every tenant, or of
// f.TenantID, newest first: the operator's list.
func (s *Service) AllInvoices(ctx context.Context, f InvoiceFilter) ([]Invoice, bool, error) {
	if err := field.Check(f); err != nil {
		return nil, false, fmt.Errorf("contract: invoices: %w", err)
	}
	f.Limit = clampLimit(f.Limit)
	page, more, err := s.invoices.Invoices(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("contract: invoices: %w", err)
	}
	return page, more, nil
}

// Invoice returns the tenant's platform invoice with id; ErrInvoiceNotFound
// for another tenant's.
func (s *Service) Invoice(ctx context.Context, tenantID, invoiceID string) (Invoice, error) {
	if tenantID == "" || !id.Valid(id.PlatformInvoice, invoiceID) {
		return Invoice{}, ErrInvoiceNotFound
	}
	inv, err := s.invoices.Invoice(ctx, tenantID, invoiceID)
	if err != nil {
		return Invoice{}, fmt.Errorf("contract: invoice %s: %w", invoiceID, err)
	}
	return inv, nil
}

// AnyInvoice returns the platform invoice with id, whichever tenant's:
// the operator's view (server invoice show), where the id alone names it.
// ErrInvoiceNotFound.
func (s *Service) AnyInvoice(ctx context.Context, invoiceID string) (Invoice, error) {
	if !id.Valid(id.PlatformInvoice, invoiceID) {
		return Invoice{}, ErrInvoiceNotFound
	}
	inv, err := s.invoices.Invoice(ctx, "", invoiceID)
	if err != nil {
		return Invoice{}, fmt.Errorf("contract: invoice %s: %w", invoiceID, err)
	}
	return inv, nil
}

// VoidInvoice voids an open platform invoice: nothing is owed on it any
// more. An operator's action; it records platform_invoice.voided.
func (s *Service) VoidInvoice(ctx context.Context, invoiceID string) (Invoice, error) {
	return s.settleInvoice(ctx, invoiceID, "void", func(inv *Invoice, now time.Time) {
		inv.Status, inv.VoidedAt = InvoiceVoid, &now
	}, event.PlatformInvoiceVoided)
}

// MarkInvoicePaid marks an open platform invoice paid outside the payment
// provider (a wire, a cheque), with in.Reference. An operator's action; it
// records platform_invoice.paid.
func (s *Service) MarkInvoicePaid(ctx context.Context, invoiceID string, in MarkPaidInput) (Invoice, error) {
	in.Reference = strings.TrimSpace(in.Reference)
	if err := field.Check(in); err != nil {
		return Invoice{}, fmt.Errorf("contract: mark %s paid: %w", invoiceID, err)
	}
	return s.settleInvoice(ctx, invoiceID, "mark paid", func(inv *Invoice, now time.Time) {
		inv.Status, inv.PaidAt, inv.Reference, inv.AmountPaid = InvoicePaid, &now, in.Reference, inv.Total
	}, event.PlatformInvoicePaid)
}

// Payment is money the payment provider received for a platform invoice.
type Payment struct {
	Amount    int64
	Currency  string
	PaymentID string
}

// PayInvoice books a provider's payment on the open platform invoice with
// id, whichever tenant's, on the transaction in ctx (the webhook's, which
// makes each provider event count once). The invoice is paid once the
// payments reach its total: that records platform_invoice.paid and lifts
// a past-due tenant at once. ErrInvoiceNotFound; *InvoiceStatusError for
// an invoice that is not open; *tenancy.InvalidError for a currency other
// than the invoice's or an amount that is not positive.
func (s *Service) PayInvoice(ctx context.Context, invoiceID string, p Payment) (Invoice, error) {
	if p.Amount <= 0 || p.Amount > maxAmount {
		return Invoice{}, fmt.Errorf("contract: pay %s: %w", invoiceID, invalid("amount", "must be between 1 and %d", int64(maxAmount)))
	}
	var out Invoice
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		inv, err := s.lockInvoice(ctx, invoiceID)
		if err != nil {
			return err
		}
		out = inv
		if inv.Status != InvoiceOpen {
			return &InvoiceStatusError{InvoiceID: inv.ID, Status: inv.Status, Action: "take a payment"}
		}
		if !strings.EqualFold(p.Currency, inv.Currency) {
			return invalid("currency", "the invoice is in %s", inv.Currency)
		}
		now := s.clock(ctx)
		inv.AmountPaid += p.Amount
		inv.Reference = p.PaymentID
		if inv.AmountPaid >= inv.Total {
			inv.Status, inv.PaidAt = InvoicePaid, &now
		}
		inv.settle()
		if err := s.invoices.UpdateInvoice(ctx, inv, InvoiceOpen); err != nil {
			return err
		}
		out = inv
		if inv.Status != InvoicePaid {
			return nil
		}
		return s.recordInvoice(ctx, event.PlatformInvoicePaid, inv)
	})
	if err != nil {
		return out, fmt.Errorf("contract: pay %s: %w", invoiceID, err)
	}
	return out, nil
}

// settleInvoice takes an open invoice to its end (void, paid) in one
// transaction holding its lock, and records typ.
func (s *Service) settleInvoice(ctx context.Context, invoiceID, action string, to func(*Invoice, time.Time), typ string) (Invoice, error) {
	var out Invoice
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		inv, err := s.lockInvoice(ctx, invoiceID)
		if err != nil {
			return err
		}
		if inv.Status != InvoiceOpen {
			return &InvoiceStatusError{InvoiceID: inv.ID, Status: inv.Status, Action: action}
		}
		to(&inv, s.clock(ctx))
		inv.settle()
		if err := s.invoices.UpdateInvoice(ctx, inv, InvoiceOpen); err != nil {
			return err
		}
		out = inv
		return s.recordInvoice(ctx, typ, inv)
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("contract: %s %s: %w", action, invoiceID, err)
	}
	return out, nil
}

// lockInvoice finds and locks the invoice with id, whichever tenant's.
func (s *Service) lockInvoice(ctx context.Context, invoiceID string) (Invoice, error) {
	if !id.Valid(id.PlatformInvoice, invoiceID) {
		return Invoice{}, ErrInvoiceNotFound
	}
	return s.invoices.InvoiceForUpdate(ctx, invoiceID)
}

// PastDue reports whether the tenant has a platform invoice still open
// grace after its due date, at the tenant's clock: with past-due
// enforcement on, its writes then answer 402 payment_required until it
// pays.
func (s *Service) PastDue(ctx context.Context, tenantID string, grace time.Duration) (bool, error) {
	past, err := s.invoices.PastDue(ctx, tenantID, s.clock(ctx).Add(-grace))
	if err != nil {
		return false, fmt.Errorf("contract: past due %s: %w", tenantID, err)
	}
	return past, nil
}
