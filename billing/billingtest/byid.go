package billingtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// testUpdateByID checks UpdateInvoiceByID: it finds the invoice whichever
// tenant owns it, writes only what UpdateInvoice writes, writes nothing
// when change fails, and loses no change under concurrent callers.
func testUpdateByID(t *testing.T, s billing.Store) {
	ctx := context.Background()
	inv := mustCreate(t, s, newInvoice(TenantB, 1))

	t.Run("OK", func(t *testing.T) {
		got, err := s.UpdateInvoiceByID(ctx, inv.ID, func(cur *billing.Invoice) error {
			if cur.ID != inv.ID || cur.TenantID != TenantB {
				t.Errorf("change got invoice %s of %s, want %s of %s", cur.ID, cur.TenantID, inv.ID, TenantB)
			}
			paid := cur.CreatedAt.Add(time.Hour)
			cur.Status, cur.PaidAt = billing.StatusPaid, &paid
			cur.Received, cur.AmountPaid, cur.AmountDue = 5000, 4328, 0
			cur.Overdue, cur.UncollectibleReason = true, billing.ReasonManual
			cur.Memo = "not written"
			cur.TenantID = TenantA // not written either: the invoice stays B's
			return nil
		})
		if err != nil {
			t.Fatalf("UpdateInvoiceByID: %v", err)
		}
		want := inv
		paid := inv.CreatedAt.Add(time.Hour)
		want.Status, want.PaidAt = billing.StatusPaid, &paid
		want.Received, want.AmountPaid, want.AmountDue = 5000, 4328, 0
		want.Overdue, want.UncollectibleReason = true, billing.ReasonManual
		assertSame(t, mustGet(t, s, TenantB, inv.ID), want)
		assertSame(t, got, want)
	})
	t.Run("ChangeErrorWritesNothing", func(t *testing.T) {
		before := mustGet(t, s, TenantB, inv.ID)
		errStop := errors.New("stop")
		_, err := s.UpdateInvoiceByID(ctx, inv.ID, func(cur *billing.Invoice) error {
			cur.Status, cur.Received = billing.StatusVoid, 1
			return errStop
		})
		if err != errStop {
			t.Fatalf("UpdateInvoiceByID: got error %v, want change's error unwrapped", err)
		}
		assertSame(t, mustGet(t, s, TenantB, inv.ID), before)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := s.UpdateInvoiceByID(ctx, id.New(id.Invoice), func(*billing.Invoice) error {
			t.Error("change called for a missing invoice")
			return nil
		})
		assertErr(t, "UpdateInvoiceByID(missing)", err, billing.ErrNotFound)
	})
	t.Run("ConcurrentChangesAllApply", func(t *testing.T) {
		const workers = 16
		target := mustCreate(t, s, newInvoice(TenantA, 2))
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for i := range workers {
			wg.Go(func() {
				_, errs[i] = s.UpdateInvoiceByID(ctx, target.ID, func(cur *billing.Invoice) error {
					cur.Received++
					return nil
				})
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("UpdateInvoiceByID: %v", err)
			}
		}
		if got := mustGet(t, s, TenantA, target.ID); got.Received != workers {
			t.Fatalf("received after %d concurrent increments: got %d", workers, got.Received)
		}
	})
}
