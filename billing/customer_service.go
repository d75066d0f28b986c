package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// WithCustomers gives the service its customers' store: without it the
// customer methods answer ErrCustomerNotFound and an invoice cannot name
// a customer_id. tenantkit.New passes the Bun store.
func WithCustomers(cs CustomerStore) Option { return func(s *Service) { s.customers = cs } }

// errNoCustomers is what the customer methods answer without a
// CustomerStore.
var errNoCustomers = fmt.Errorf("billing: no customer store (WithCustomers): %w", ErrCustomerNotFound)

// CreateCustomer validates in and stores the tenant's new customer, with
// the event customer.created, in one transaction. *InvalidError.
func (s *Service) CreateCustomer(ctx context.Context, tenantID string, in CreateCustomerInput) (CustomerRecord, error) {
	if s.customers == nil {
		return CustomerRecord{}, errNoCustomers
	}
	in = in.normalize()
	if err := field.Check(in); err != nil {
		return CustomerRecord{}, fmt.Errorf("billing: create customer: %w", err)
	}
	now := s.clock(ctx)
	c := CustomerRecord{ID: id.New(id.Customer), TenantID: tenantID, Name: in.Name, Email: in.Email,
		Address: in.Address, TaxID: in.TaxID, Locale: in.Locale, Metadata: in.Metadata,
		CreatedAt: now, UpdatedAt: now}
	err := s.tx(ctx, func(ctx context.Context) error {
		if err := s.customers.CreateCustomer(ctx, c); err != nil {
			return err
		}
		return s.recordCustomer(ctx, event.CustomerCreated, c)
	})
	if err != nil {
		return CustomerRecord{}, fmt.Errorf("billing: create customer: %w", err)
	}
	c.Outstanding = []Outstanding{}
	return c, nil
}

// CustomerByID returns the tenant's customer with what it owes
// (Outstanding). ErrCustomerNotFound when the tenant has none.
func (s *Service) CustomerByID(ctx context.Context, tenantID, customerID string) (CustomerRecord, error) {
	if s.customers == nil {
		return CustomerRecord{}, errNoCustomers
	}
	if !id.Valid(id.Customer, customerID) {
		return CustomerRecord{}, fmt.Errorf("billing: customer %q: %w", customerID, ErrCustomerNotFound)
	}
	c, err := s.customers.Customer(ctx, tenantID, customerID)
	if err == nil {
		c.Outstanding, err = s.customers.Outstanding(ctx, tenantID, customerID)
	}
	if err != nil {
		return CustomerRecord{}, fmt.Errorf("billing: customer %s: %w", customerID, err)
	}
	return c, nil
}

// ListCustomers returns a page of the tenant's customers, newest first,
// and whether more follow (continue with f.Before set to the last id).
// *InvalidError for an absurd search ("search") or a Before that is no
// customer id ("cursor").
func (s *Service) ListCustomers(ctx context.Context, tenantID string, f CustomerFilter) ([]CustomerRecord, bool, error) {
	if s.customers == nil {
		return nil, false, errNoCustomers
	}
	f.Search = strings.ToLower(strings.TrimSpace(f.Search))
	fe := field.Errors{}
	fe.Merge(field.Check(f))
	if f.Before != "" && !id.Valid(id.Customer, f.Before) {
		fe.Add("cursor", field.Invalid, "is not a customer position")
	}
	if err := fe.Err(); err != nil {
		return nil, false, fmt.Errorf("billing: list customers: %w", err)
	}
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultListLimit
	case f.Limit > MaxListLimit:
		f.Limit = MaxListLimit
	}
	page, more, err := s.customers.ListCustomers(ctx, tenantID, f)
	if err != nil {
		return nil, false, fmt.Errorf("billing: list customers: %w", err)
	}
	return page, more, nil
}

// UpdateCustomer changes the tenant's customer as in says (a merge
// patch), under its lock, and the details its draft invoices show, with
// the event customer.updated. An archived customer can still be changed.
// *InvalidError; ErrCustomerNotFound.
func (s *Service) UpdateCustomer(ctx context.Context, tenantID, customerID string, in UpdateCustomerInput) (CustomerRecord, error) {
	return s.changeCustomer(ctx, tenantID, customerID, "update", event.CustomerUpdated, func(c CustomerRecord) (CustomerRecord, error) {
		return applyCustomerUpdate(c, in)
	})
}

// ArchiveCustomer archives the tenant's customer: lists leave it out
// (unless asked for archived ones) and new invoices cannot name it;
// invoices that already do are unchanged. Archiving an archived customer
// changes nothing and records nothing. ErrCustomerNotFound.
func (s *Service) ArchiveCustomer(ctx context.Context, tenantID, customerID string) (CustomerRecord, error) {
	return s.changeCustomer(ctx, tenantID, customerID, "archive", event.CustomerArchived, func(c CustomerRecord) (CustomerRecord, error) {
		if c.ArchivedAt != nil {
			return c, errUnchanged
		}
		now := s.clock(ctx)
		c.ArchivedAt = &now
		return c, nil
	})
}

// errUnchanged tells changeCustomer that there is nothing to write.
var errUnchanged = errors.New("unchanged")

// changeCustomer is a read-modify-write of one customer under its lock,
// recording eventType, with the customer's Outstanding read after it.
func (s *Service) changeCustomer(ctx context.Context, tenantID, customerID, action, eventType string,
	change func(CustomerRecord) (CustomerRecord, error)) (CustomerRecord, error) {
	if s.customers == nil {
		return CustomerRecord{}, errNoCustomers
	}
	if !id.Valid(id.Customer, customerID) {
		return CustomerRecord{}, fmt.Errorf("billing: %s customer %q: %w", action, customerID, ErrCustomerNotFound)
	}
	var c CustomerRecord
	err := s.tx(ctx, func(ctx context.Context) error {
		cur, err := s.customers.CustomerForUpdate(ctx, tenantID, customerID)
		if err != nil {
			return err
		}
		c, err = change(cur)
		if errors.Is(err, errUnchanged) {
			c = cur
		} else if err != nil {
			return err
		} else {
			c.UpdatedAt = s.clock(ctx)
			if err := s.customers.SaveCustomer(ctx, c); err != nil {
				return err
			}
			if err := s.recordCustomer(ctx, eventType, c); err != nil {
				return err
			}
		}
		c.Outstanding, err = s.customers.Outstanding(ctx, tenantID, customerID)
		return err
	})
	if err != nil {
		return CustomerRecord{}, fmt.Errorf("billing: %s customer %s: %w", action, customerID, err)
	}
	return c, nil
}

// recordCustomer writes the event typ about c.
func (s *Service) recordCustomer(ctx context.Context, typ string, c CustomerRecord) error {
	if s.events == nil {
		return nil
	}
	c.Outstanding = nil
	return s.events.Record(ctx, c.TenantID, typ, "customer", c.ID, c)
}

// invoiceCustomer returns the details of the tenant's customer customerID
// for a new invoice: an *InvalidError on customer_id when the tenant has
// no such customer or has archived it.
func (s *Service) invoiceCustomer(ctx context.Context, tenantID, customerID string) (Customer, error) {
	if s.customers == nil || !id.Valid(id.Customer, customerID) {
		return Customer{}, invalid("customer_id", "is not one of your customers")
	}
	c, err := s.customers.Customer(ctx, tenantID, customerID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Customer{}, invalid("customer_id", "is not one of your customers")
	case err != nil:
		return Customer{}, err
	case c.ArchivedAt != nil:
		return Customer{}, invalid("customer_id", "is archived; new invoices cannot name it")
	}
	return c.details(), nil
}
