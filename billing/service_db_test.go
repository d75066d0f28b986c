package billing_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestServiceOnDatabase runs an invoice's whole life on each dialect.
func TestServiceOnDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		ctx := context.Background()
		a := e.mustTenant(t, "acme", nil)
		b := e.mustTenant(t, "globex", nil)

		in := validInput()
		in.Currency, in.Status, in.DueDate = "JPY", "draft", "2026-12-31"
		in.Metadata = map[string]string{"order": "ord_1"}
		draft := mustCreate(t, e.svc, a, in)
		got, err := e.svc.Get(ctx, a, draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertSameInvoice(t, got, draft)
		if _, err := e.svc.Get(ctx, b, draft.ID); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("tenant B reads A's invoice: got %v, want ErrNotFound", err)
		}

		open, err := e.svc.Finalize(ctx, a, draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, open, billing.StatusOpen, 0, 2164)
		if _, err := e.svc.ApplyPayment(ctx, a, open.ID, 2000, "JPY"); err != nil {
			t.Fatal(err)
		}
		paid, err := e.svc.ApplyPayment(ctx, a, open.ID, 164, "JPY")
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, paid, billing.StatusPaid, 2164, 0)
		if _, err := e.svc.Void(ctx, a, paid.ID); !errors.Is(err, billing.ErrConflict) {
			t.Errorf("void a paid invoice: got %v, want ErrConflict", err)
		}
		reopened, err := e.svc.ApplyRefund(ctx, a, paid.ID, 500, "JPY")
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, reopened, billing.StatusOpen, 1664, 500)
		voided, err := e.svc.Void(ctx, a, paid.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, voided, billing.StatusVoid, 1664, 0)
		if _, err := e.svc.ApplyPayment(ctx, a, paid.ID, 500, "JPY"); !errors.Is(err, billing.ErrConflict) {
			t.Errorf("pay a void invoice: got %v, want ErrConflict", err)
		}
		got, err = e.svc.Get(ctx, a, paid.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertSameInvoice(t, got, voided)

		second := mustCreate(t, e.svc, a, validInput())
		page, more, err := e.svc.List(ctx, a, billing.ListFilter{Limit: 1})
		if err != nil || len(page) != 1 || !more || page[0].ID != second.ID {
			t.Errorf("List limit 1 = %v, %v, %v; want [%s], true", page, more, err, second.Number)
		}
		page, _, err = e.svc.List(ctx, a, billing.ListFilter{Status: "void"})
		if err != nil || len(page) != 1 || page[0].ID != voided.ID {
			t.Errorf("List void = %v, %v", page, err)
		}
		if page, _, _ := e.svc.List(ctx, b, billing.ListFilter{}); len(page) != 0 {
			t.Errorf("tenant B lists %d invoices, want none", len(page))
		}
		if owner, err := e.svc.TenantOf(ctx, second.ID); err != nil || owner != a {
			t.Errorf("TenantOf = %q, %v; want %q", owner, err, a)
		}
		if second.Number != "INV-000002" {
			t.Errorf("second invoice is %s, want INV-000002", second.Number)
		}
		if used := e.mustUsage(t, a); used != 2 {
			t.Errorf("usage %d, want 2", used)
		}
	})
}

// failingStore fails CreateInvoice for customers named "fail", after the
// number was taken, to prove that the number is given back.
type failingStore struct{ billing.Store }

func (s failingStore) CreateInvoice(ctx context.Context, inv billing.Invoice) error {
	if inv.Customer.Name == "fail" {
		return errors.New("disk on fire")
	}
	return s.Store.CreateInvoice(ctx, inv)
}

func TestCreateRollbackKeepsNumbersGapless(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		e = e.withStore(failingStore{e.store})
		ctx := context.Background()
		a := e.mustTenant(t, "acme", ptr[int64](3))
		failing := validInput()
		failing.Customer.Name = "fail"
		var numbers []string
		for i, in := range []billing.CreateInvoiceInput{validInput(), failing, failing, validInput(), failing, validInput()} {
			inv, err := e.svc.Create(ctx, a, in)
			switch {
			case in.Customer.Name == "fail" && err == nil:
				t.Fatalf("create %d: want an error", i)
			case in.Customer.Name != "fail" && err != nil:
				t.Fatalf("create %d: %v", i, err)
			case err == nil:
				numbers = append(numbers, inv.Number)
			}
		}
		if fmt.Sprint(numbers) != "[INV-000001 INV-000002 INV-000003]" {
			t.Errorf("numbers %v, want INV-000001..3", numbers)
		}
		// The failed creates spent nothing: the limit of 3 is just reached.
		if used := e.mustUsage(t, a); used != 3 {
			t.Errorf("usage %d, want 3", used)
		}
		if _, err := e.svc.Create(ctx, a, validInput()); !errors.Is(err, tenancy.ErrLimitExceeded) {
			t.Errorf("fourth create: got %v, want ErrLimitExceeded", err)
		}
	})
}

// TestApplyJoinsCallerTransaction shows that a webhook can record its
// event in the same transaction: when the caller rolls back, the payment
// is undone too.
func TestApplyJoinsCallerTransaction(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		ctx := context.Background()
		a := e.mustTenant(t, "acme", nil)
		inv := mustCreate(t, e.svc, a, withTotal(1000))
		errRollback := errors.New("event store failed")
		err := tenantkit.NewTransactor(e.db).InTx(ctx, func(ctx context.Context) error {
			if _, err := e.svc.ApplyPayment(ctx, a, inv.ID, 1000, "USD"); err != nil {
				return err
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatalf("got %v", err)
		}
		got, err := e.svc.Get(ctx, a, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertSameInvoice(t, got, inv)
	})
}
