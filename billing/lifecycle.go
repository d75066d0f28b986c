package billing

import (
	"context"
	"fmt"
	"maps"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Patch is one member of a partial update such as UpdateInvoiceInput:
// left out (unchanged), sent as null (cleared), or sent with a value, as
// in a JSON merge patch (field.Patch, shared by every domain). It is meant
// for text and maps; a member that is an object with fields of its own is
// a pointer to a struct instead, so that the decoder still refuses its
// unknown fields.
type Patch[T any] = field.Patch[T]

// PatchTo returns the Patch that sets a member to v.
func PatchTo[T any](v T) Patch[T] { return field.PatchTo(v) }

// PatchNull returns the Patch that clears a member.
func PatchNull[T any]() Patch[T] { return field.PatchNull[T]() }

// UpdateInvoiceInput is a change of a draft: the body of
// PATCH /api/v1/collections/invoices/{id}, with the semantics of a JSON
// merge patch. A member left out is unchanged; one that is sent replaces
// what the draft has, under the rules of CreateInvoiceInput (its validate
// tags, which Update checks on the members sent), and the amounts are
// computed again. The currency of an invoice never changes.
type UpdateInvoiceInput struct {
	// Customer changes the name, the email or both; nil leaves both.
	Customer *CustomerUpdate `json:"customer,omitempty"`
	// LineItems replaces every line when not nil (1..MaxLineItems lines;
	// an empty list is refused); nil, or JSON null, leaves them.
	LineItems []LineItemInput `json:"line_items,omitempty"`
	// DueDate sets the due date ("YYYY-MM-DD"); null or "" clears it.
	DueDate Patch[string] `json:"due_date,omitzero"`
	// Memo sets the memo; null or "" clears it.
	Memo Patch[string] `json:"memo,omitzero"`
	// Metadata is merged key by key: a key with a value sets it, a key
	// with null removes it, and keys not named are kept. null removes
	// every key. The result is held to the bounds of CreateInvoiceInput.
	Metadata Patch[map[string]*string] `json:"metadata,omitzero"`
}

// CustomerUpdate is the customer of UpdateInvoiceInput. A field left out
// (or null: neither can be cleared) is unchanged; one sent follows the
// rules of CustomerInput.
type CustomerUpdate struct {
	Name  *string `json:"name,omitempty"`
	Email *string `json:"email,omitempty"`
}

// Update changes the tenant's draft invoiceID as in says and computes its
// amounts again, under the invoice's lock. A draft has taken no payment,
// so amount_due is the new total.
//
// Errors: *InvalidError naming each field as CreateInvoiceInput does;
// *TransitionError (ErrConflict) unless the invoice is a draft;
// ErrNotFound; an error wrapping tenancy.ErrModuleDisabled when the
// module is off.
func (s *Service) Update(ctx context.Context, tenantID, invoiceID string, in UpdateInvoiceInput) (Invoice, error) {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleInvoices); err != nil {
		return Invoice{}, fmt.Errorf("billing: update %s: %w", invoiceID, err)
	}
	if !id.Valid(id.Invoice, invoiceID) {
		return Invoice{}, fmt.Errorf("billing: update %q: %w", invoiceID, ErrNotFound)
	}
	var inv Invoice
	err := s.tx(ctx, func(ctx context.Context) error {
		cur, err := s.store.InvoiceForUpdate(ctx, tenantID, invoiceID)
		if err != nil {
			return err
		}
		if cur.Status != StatusDraft {
			return &TransitionError{InvoiceID: cur.ID, Status: cur.Status, Action: "edit"}
		}
		if inv, err = applyUpdate(cur, in); err != nil {
			return err
		}
		inv.settle(s.clock(ctx))
		if err := s.store.SaveInvoice(ctx, inv); err != nil {
			return err
		}
		return s.record(ctx, event.InvoiceUpdated, cur.Status, inv)
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: update %s: %w", invoiceID, err)
	}
	return inv, nil
}

// applyUpdate returns cur changed as in says, or an *InvalidError listing
// everything wrong with the members sent. They are checked, normalised
// and computed as a create's: the draft as a CreateInvoiceInput with the
// members sent, whose errors count on those members only (the rest was
// checked when it was written, by the rules of its day).
func applyUpdate(cur Invoice, in UpdateInvoiceInput) (Invoice, error) {
	if cur.CustomerID != nil && in.Customer != nil {
		return Invoice{}, invalid("customer", "is the customer on record %s: change the customer instead", *cur.CustomerID)
	}
	next := CreateInvoiceInput{Customer: CustomerInput{Name: cur.Customer.Name, Email: cur.Customer.Email},
		DueDate: cur.DueDate, Memo: cur.Memo, Metadata: cur.Metadata}
	var sent []string
	if c := in.Customer; c != nil && c.Name != nil {
		next.Customer.Name, sent = *c.Name, append(sent, "customer.name")
	}
	if c := in.Customer; c != nil && c.Email != nil {
		next.Customer.Email, sent = *c.Email, append(sent, "customer.email")
	}
	if in.LineItems != nil {
		next.LineItems, sent = in.LineItems, append(sent, "line_items")
	}
	if in.DueDate.Set {
		next.DueDate, sent = in.DueDate.Value, append(sent, "due_date")
	}
	if in.Memo.Set {
		next.Memo, sent = in.Memo.Value, append(sent, "memo")
	}
	if in.Metadata.Set {
		next.Metadata, sent = mergeMetadata(cur.Metadata, in.Metadata), append(sent, "metadata")
	}
	next = next.normalize()
	if err := onlyOn(sent, field.Check(next)); err != nil {
		return Invoice{}, err
	}
	inv := cur
	inv.Customer.Name, inv.Customer.Email = next.Customer.Name, next.Customer.Email
	inv.DueDate, inv.Memo, inv.Metadata = next.DueDate, next.Memo, next.Metadata
	if in.LineItems != nil {
		var err error
		if inv.LineItems, inv.Subtotal, inv.Tax, inv.Total, err = computeTotals(next.LineItems); err != nil {
			return Invoice{}, err
		}
	}
	return inv, nil
}

// mergeMetadata returns m merged with p as UpdateInvoiceInput.Metadata
// says, leaving m as it is.
func mergeMetadata(m map[string]string, p Patch[map[string]*string]) map[string]string {
	out := map[string]string{}
	if p.Null {
		return out
	}
	maps.Copy(out, m)
	for k, v := range p.Value {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

// Delete removes the tenant's draft invoiceID. It does not give back the
// unit of the monthly collections.invoices limit its creation spent: the
// limit counts the invoices a tenant creates in a month, and a unit given
// back in another month than the one it was spent in would credit the
// wrong period.
//
// Errors: *TransitionError (ErrConflict) unless the invoice is a draft; a
// *NumberedDraftError (ErrConflict) for a draft made before drafts were
// unnumbered, whose number would leave a gap; ErrNotFound; an error
// wrapping tenancy.ErrModuleDisabled when the module is off.
func (s *Service) Delete(ctx context.Context, tenantID, invoiceID string) error {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleInvoices); err != nil {
		return fmt.Errorf("billing: delete %s: %w", invoiceID, err)
	}
	if !id.Valid(id.Invoice, invoiceID) {
		return fmt.Errorf("billing: delete %q: %w", invoiceID, ErrNotFound)
	}
	err := s.tx(ctx, func(ctx context.Context) error {
		cur, err := s.store.InvoiceForUpdate(ctx, tenantID, invoiceID)
		if err != nil {
			return err
		}
		switch {
		case cur.Status != StatusDraft:
			return &TransitionError{InvoiceID: cur.ID, Status: cur.Status, Action: "delete"}
		case cur.Number != "":
			return &NumberedDraftError{InvoiceID: cur.ID, Number: cur.Number}
		}
		if err := s.store.DeleteInvoice(ctx, tenantID, invoiceID); err != nil {
			return err
		}
		return s.record(ctx, event.InvoiceDeleted, cur.Status, cur)
	})
	if err != nil {
		return fmt.Errorf("billing: delete %s: %w", invoiceID, err)
	}
	return nil
}

// NumberedDraftError refuses to delete a draft that already has a number
// (drafts created before drafts were unnumbered): deleting it would leave
// a gap in the tenant's numbers. Finalize and void it instead. It matches
// ErrConflict.
type NumberedDraftError struct {
	InvoiceID string
	Number    string
}

// Error implements error.
func (e *NumberedDraftError) Error() string {
	return fmt.Sprintf("draft %s has the number %s, cannot delete", e.InvoiceID, e.Number)
}

// Detail is the sentence a client is shown.
func (e *NumberedDraftError) Detail() string {
	return fmt.Sprintf("draft %s already has its number, and deleting it would leave a gap; finalize and void it instead", e.Number)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *NumberedDraftError) Is(target error) bool { return target == ErrConflict }

// finalizeDraft is Finalize: under the invoice's lock, check that it is a
// draft, number it unless it has a number, open it and write it, all in one
// transaction.
func (s *Service) finalizeDraft(ctx context.Context, tenantID, invoiceID string) (Invoice, error) {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleInvoices); err != nil {
		return Invoice{}, fmt.Errorf("billing: finalize %s: %w", invoiceID, err)
	}
	if !id.Valid(id.Invoice, invoiceID) {
		return Invoice{}, fmt.Errorf("billing: finalize %q: %w", invoiceID, ErrNotFound)
	}
	var inv Invoice
	err := s.tx(ctx, func(ctx context.Context) error {
		var err error
		if inv, err = s.store.InvoiceForUpdate(ctx, tenantID, invoiceID); err != nil {
			return err
		}
		if inv.Status != StatusDraft {
			return &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "finalize"}
		}
		if inv.CustomerID != nil && s.customers != nil {
			// The customer's details as they are now, kept by the invoice
			// from here on.
			c, err := s.customers.Customer(ctx, tenantID, *inv.CustomerID)
			if err != nil {
				return err
			}
			inv.Customer = c.details()
		}
		if inv.Number == "" {
			n, err := s.store.NextNumber(ctx, tenantID)
			if err != nil {
				return err
			}
			inv.Number = FormatNumber(n)
		}
		now := s.clock(ctx)
		if err := s.defaultDueDate(ctx, &inv, now); err != nil {
			return err
		}
		inv.finalize(now)
		if err := s.store.SaveInvoice(ctx, inv); err != nil {
			return err
		}
		return s.record(ctx, event.InvoiceFinalized, StatusDraft, inv)
	})
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: finalize %s: %w", invoiceID, err)
	}
	return inv, nil
}
