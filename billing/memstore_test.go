package billing_test

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/billing/billingtest"
)

// noTx is the Transactor of the memStore tests: it runs fn directly.
// memStore has no transactions, and the tests that use it never need one
// rolled back.
type noTx struct{}

func (noTx) InTx(ctx context.Context, fn func(ctx context.Context) error) error { return fn(ctx) }

func TestMemStore(t *testing.T) {
	billingtest.Run(t, func(t *testing.T) billing.Store { return newMemStore() })
	billingtest.RunPayments(t, func(t *testing.T) (billing.Store, billing.PaymentStore) {
		s := newMemStore()
		return s, s
	})
}

// memStore is an in-memory billing.Store for fast service tests. It has no
// transactions, so it is only used where nothing needs rolling back; it
// also proves that billingtest.Run does not depend on SQL.
type memStore struct {
	mu       sync.Mutex
	invoices map[string]billing.Invoice // by id
	numbers  map[string]int64           // last number by tenant
	payments []billing.Payment          // the ledger entries of every invoice
}

var (
	_ billing.Store        = (*memStore)(nil)
	_ billing.PaymentStore = (*memStore)(nil)
)

func newMemStore() *memStore {
	return &memStore{invoices: map[string]billing.Invoice{}, numbers: map[string]int64{}}
}

// clone copies inv's slices, map and pointers so that callers share nothing.
func clone(inv billing.Invoice) billing.Invoice {
	inv.LineItems = slices.Clone(inv.LineItems)
	inv.Metadata = maps.Clone(inv.Metadata)
	if inv.Metadata == nil {
		inv.Metadata = map[string]string{}
	}
	if inv.FinalizedAt != nil {
		t := *inv.FinalizedAt
		inv.FinalizedAt = &t
	}
	if inv.PaidAt != nil {
		t := *inv.PaidAt
		inv.PaidAt = &t
	}
	return inv
}

func (m *memStore) NextNumber(_ context.Context, tenantID string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.numbers[tenantID]++
	return m.numbers[tenantID], nil
}

func (m *memStore) CreateInvoice(_ context.Context, inv billing.Invoice) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, other := range m.invoices {
		if other.ID == inv.ID || (other.TenantID == inv.TenantID && other.Number != "" && other.Number == inv.Number) {
			return billing.ErrConflict
		}
	}
	m.invoices[inv.ID] = clone(inv)
	return nil
}

func (m *memStore) Invoice(_ context.Context, tenantID, id string) (billing.Invoice, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	inv, ok := m.invoices[id]
	if !ok || inv.TenantID != tenantID {
		return billing.Invoice{}, billing.ErrNotFound
	}
	return clone(inv), nil
}

func (m *memStore) InvoiceForUpdate(ctx context.Context, tenantID, id string) (billing.Invoice, error) {
	return m.Invoice(ctx, tenantID, id)
}

func (m *memStore) UpdateInvoice(_ context.Context, inv billing.Invoice) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.invoices[inv.ID]
	if !ok || cur.TenantID != inv.TenantID {
		return billing.ErrNotFound
	}
	cur.Status, cur.AmountPaid, cur.AmountDue = inv.Status, inv.AmountPaid, inv.AmountDue
	cur.Received, cur.Refunded = inv.Received, inv.Refunded
	cur.FinalizedAt, cur.PaidAt = inv.FinalizedAt, inv.PaidAt
	cur.Overdue, cur.UncollectibleReason = inv.Overdue, inv.UncollectibleReason
	m.invoices[inv.ID] = clone(cur)
	return nil
}

func (m *memStore) ListInvoices(_ context.Context, tenantID string, f billing.ListFilter) ([]billing.Invoice, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []billing.Invoice
	for _, inv := range m.invoices {
		if inv.TenantID != tenantID ||
			(f.Status != "" && string(inv.Status) != f.Status) ||
			(f.CustomerEmail != "" && inv.Customer.Email != f.CustomerEmail) ||
			(f.Before != "" && inv.ID >= f.Before) {
			continue
		}
		out = append(out, clone(inv))
	}
	slices.SortFunc(out, func(a, b billing.Invoice) int { return cmp.Compare(b.ID, a.ID) })
	if len(out) > f.Limit {
		return out[:f.Limit], true, nil
	}
	return out, false, nil
}

func (m *memStore) InvoiceTenant(_ context.Context, id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	inv, ok := m.invoices[id]
	if !ok {
		return "", billing.ErrNotFound
	}
	return inv.TenantID, nil
}

func (m *memStore) UpdateInvoiceByID(_ context.Context, id string, change func(*billing.Invoice) error) (billing.Invoice, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.invoices[id]
	if !ok {
		return billing.Invoice{}, billing.ErrNotFound
	}
	inv := clone(cur)
	if err := change(&inv); err != nil {
		return billing.Invoice{}, err
	}
	cur.Status, cur.AmountPaid, cur.AmountDue = inv.Status, inv.AmountPaid, inv.AmountDue
	cur.Received, cur.Refunded = inv.Received, inv.Refunded
	cur.FinalizedAt, cur.PaidAt = inv.FinalizedAt, inv.PaidAt
	cur.Overdue, cur.UncollectibleReason = inv.Overdue, inv.UncollectibleReason
	m.invoices[id] = clone(cur)
	return clone(cur), nil
}

func (m *memStore) SaveInvoice(_ context.Context, inv billing.Invoice) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.invoices[inv.ID]
	if !ok || cur.TenantID != inv.TenantID {
		return billing.ErrNotFound
	}
	for _, other := range m.invoices {
		if other.ID != inv.ID && other.TenantID == inv.TenantID && inv.Number != "" && other.Number == inv.Number {
			return billing.ErrConflict
		}
	}
	inv.Currency, inv.CreatedAt = cur.Currency, cur.CreatedAt
	m.invoices[inv.ID] = clone(inv)
	return nil
}

func (m *memStore) DeleteInvoice(_ context.Context, tenantID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.invoices[id]
	if !ok || cur.TenantID != tenantID {
		return billing.ErrNotFound
	}
	delete(m.invoices, id)
	return nil
}

func (m *memStore) AddPayment(_ context.Context, p billing.Payment) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if inv, ok := m.invoices[p.InvoiceID]; !ok || inv.TenantID != p.TenantID {
		return billing.ErrNotFound
	}
	for _, other := range m.payments {
		if other.TenantID == p.TenantID && other.ID == p.ID {
			return billing.ErrConflict
		}
	}
	m.payments = append(m.payments, p)
	return nil
}

func (m *memStore) ListPayments(_ context.Context, tenantID, invoiceID string, f billing.PaymentFilter) ([]billing.Payment, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []billing.Payment
	for _, p := range m.payments {
		if p.TenantID == tenantID && p.InvoiceID == invoiceID && (f.Before == "" || p.ID < f.Before) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b billing.Payment) int { return cmp.Compare(b.ID, a.ID) })
	if len(out) > f.Limit {
		return out[:f.Limit], true, nil
	}
	return out, false, nil
}
