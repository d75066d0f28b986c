package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

const tenantA = "ten_00000000000000000000000001"

// Both implement the interface billing consumes.
var (
	_ billing.Entitlements = (*tenancy.Entitlements)(nil)
	_ billing.Entitlements = (*fakeEntitlements)(nil)
)

// fakeEntitlements stands in for tenancy in unit tests.
type fakeEntitlements struct {
	mu        sync.Mutex
	moduleErr error // returned by RequireModule
	limit     int64 // < 0: unlimited
	used      int64
}

func (f *fakeEntitlements) RequireModule(_ context.Context, _, module string) error {
	if module != catalog.ModuleInvoices {
		return fmt.Errorf("fake: unexpected module %q", module)
	}
	return f.moduleErr
}

func (f *fakeEntitlements) Allowance(ctx context.Context, tenantID, module, feature string) (tenancy.Allowance, error) {
	if err := f.RequireModule(ctx, tenantID, module); err != nil {
		return tenancy.Allowance{}, err
	}
	return tenancy.Allowance{TenantID: tenantID, Feature: feature, Limit: f.limit}, nil
}

func (f *fakeEntitlements) Use(_ context.Context, a tenancy.Allowance, n int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a.Feature != catalog.FeatureInvoices {
		return fmt.Errorf("fake: unexpected feature %q", a.Feature)
	}
	if f.limit >= 0 && f.used+n > f.limit {
		return fmt.Errorf("fake: consume: %w", tenancy.ErrLimitExceeded)
	}
	f.used += n
	return nil
}

// now is the fixed time of unit tests.
func now() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }

// bills is billing as tenantkit wires it: the invoices' Service, whose
// methods it has, and their Ledger. Its ApplyPayment and ApplyRefund are
// the Ledger's for a bare amount, which is what most tests apply.
type bills struct {
	*billing.Service
	ledger *billing.Ledger
}

// newBills returns svc with its Ledger on payments.
func newBills(svc *billing.Service, payments billing.PaymentStore) bills {
	return bills{Service: svc, ledger: billing.NewLedger(svc, payments)}
}

// ApplyPayment is Ledger.ApplyPayment of amount in currency.
func (b bills) ApplyPayment(ctx context.Context, tenantID, invoiceID string, amount int64, currency string) (billing.Invoice, error) {
	return b.ledger.ApplyPayment(ctx, tenantID, invoiceID, billing.ProviderPayment{Amount: amount, Currency: currency})
}

// ApplyRefund is Ledger.ApplyRefund of amount in currency.
func (b bills) ApplyRefund(ctx context.Context, tenantID, invoiceID string, amount int64, currency string) (billing.Invoice, error) {
	return b.ledger.ApplyRefund(ctx, tenantID, invoiceID, billing.ProviderPayment{Amount: amount, Currency: currency})
}

// newMemService returns billing on a memStore with unlimited fake
// entitlements and a fixed clock.
func newMemService(tb testing.TB) (bills, *memStore, *fakeEntitlements) {
	tb.Helper()
	store, ent := newMemStore(), &fakeEntitlements{limit: -1}
	return newBills(billing.NewService(store, ent, noTx{}, billing.WithClock(now)), store), store, ent
}

// validInput is a correct CreateInvoiceInput that tests change one field of.
func validInput() billing.CreateInvoiceInput {
	return billing.CreateInvoiceInput{
		Customer: billing.CustomerInput{Name: "Ada Lovelace", Email: "ada@example.com"},
		Currency: "USD",
		LineItems: []billing.LineItemInput{
			{Description: "Consulting", Quantity: 1, UnitAmount: 1999, TaxRateBps: 825},
		},
	}
}

// withTotal returns validInput with one untaxed line of amount.
func withTotal(amount int64) billing.CreateInvoiceInput {
	in := validInput()
	in.LineItems = []billing.LineItemInput{{Description: "Service", Quantity: 1, UnitAmount: amount}}
	return in
}

func mustCreate(tb testing.TB, svc bills, tenantID string, in billing.CreateInvoiceInput) billing.Invoice {
	tb.Helper()
	inv, err := svc.Create(context.Background(), tenantID, in)
	if err != nil {
		tb.Fatalf("Create: %v", err)
	}
	return inv
}

// mustInvoiceIn returns a new invoice of total 1000 brought to status through
// the service's own operations.
func mustInvoiceIn(tb testing.TB, svc bills, tenantID string, status billing.Status) billing.Invoice {
	tb.Helper()
	ctx := context.Background()
	in := withTotal(1000)
	if status == billing.StatusDraft {
		in.Status = "draft"
	}
	inv := mustCreate(tb, svc, tenantID, in)
	var err error
	switch status {
	case billing.StatusPaid:
		inv, err = svc.ApplyPayment(ctx, tenantID, inv.ID, 1000, "USD")
	case billing.StatusVoid:
		inv, err = svc.Void(ctx, tenantID, inv.ID)
	case billing.StatusUncollectible:
		inv, err = svc.MarkUncollectible(ctx, tenantID, inv.ID)
	}
	if err != nil {
		tb.Fatalf("bring invoice to %s: %v", status, err)
	}
	if inv.Status != status {
		tb.Fatalf("invoice is %s, want %s", inv.Status, status)
	}
	return inv
}

// fieldErrors returns the field errors of err, failing unless err is an
// *InvalidError that matches ErrInvalid.
func fieldErrors(tb testing.TB, err error) map[string]string {
	tb.Helper()
	var ie *billing.InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, billing.ErrInvalid) {
		tb.Fatalf("got error %v, want an *InvalidError", err)
	}
	return ie.FieldErrors()
}

// assertSameInvoice fails unless got and want are the same invoice: equal
// JSON (times compared as instants) and equal fields JSON leaves out.
func assertSameInvoice(tb testing.TB, got, want billing.Invoice) {
	tb.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || got.TenantID != want.TenantID || got.Received != want.Received || got.Refunded != want.Refunded {
		tb.Errorf("invoice differs:\n got %s (%s %d/%d)\nwant %s (%s %d/%d)",
			g, got.TenantID, got.Received, got.Refunded, w, want.TenantID, want.Received, want.Refunded)
	}
}

// assertMoney checks an invoice's status and money fields.
func assertMoney(tb testing.TB, inv billing.Invoice, status billing.Status, paid, due int64) {
	tb.Helper()
	if inv.Status != status || inv.AmountPaid != paid || inv.AmountDue != due {
		tb.Errorf("invoice %s: got status %s paid %d due %d, want %s paid %d due %d",
			inv.Number, inv.Status, inv.AmountPaid, inv.AmountDue, status, paid, due)
	}
	if (inv.Status == billing.StatusPaid) != (inv.PaidAt != nil) {
		tb.Errorf("invoice %s is %s with paid_at %v", inv.Number, inv.Status, inv.PaidAt)
	}
}
