package billing_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestCanTransition(t *testing.T) {
	allowed := map[[2]billing.Status]bool{
		{billing.StatusDraft, billing.StatusOpen}:         true,
		{billing.StatusOpen, billing.StatusPaid}:          true,
		{billing.StatusOpen, billing.StatusVoid}:          true,
		{billing.StatusOpen, billing.StatusUncollectible}: true,
		{billing.StatusPaid, billing.StatusOpen}:          true,
	}
	for _, from := range append(billing.Statuses(), "bogus") {
		for _, to := range append(billing.Statuses(), "bogus") {
			t.Run(fmt.Sprintf("%s_to_%s", from, to), func(t *testing.T) {
				want := allowed[[2]billing.Status{from, to}]
				if got := billing.CanTransition(from, to); got != want {
					t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
				}
			})
		}
	}
}

// TestOperationsFromEveryStatus runs every operation on an invoice of
// total 1000 in every status: each either reaches the status in the table
// or is refused with a *TransitionError and changes nothing.
func TestOperationsFromEveryStatus(t *testing.T) {
	type op struct {
		name string
		run  func(svc bills, id string) (billing.Invoice, error)
	}
	ctx := context.Background()
	ops := []op{
		{"finalize", func(svc bills, id string) (billing.Invoice, error) { return svc.Finalize(ctx, tenantA, id) }},
		{"void", func(svc bills, id string) (billing.Invoice, error) { return svc.Void(ctx, tenantA, id) }},
		{"mark uncollectible", func(svc bills, id string) (billing.Invoice, error) {
			return svc.MarkUncollectible(ctx, tenantA, id)
		}},
		{"apply payment", func(svc bills, id string) (billing.Invoice, error) {
			return svc.ApplyPayment(ctx, tenantA, id, 1000, "USD")
		}},
		{"apply refund", func(svc bills, id string) (billing.Invoice, error) {
			return svc.ApplyRefund(ctx, tenantA, id, 100, "USD")
		}},
	}
	const no = billing.Status("") // refused
	// want[from][op] is the status reached, or no.
	want := map[billing.Status][5]billing.Status{
		billing.StatusDraft:         {billing.StatusOpen, no, no, no, no},
		billing.StatusOpen:          {no, billing.StatusVoid, billing.StatusUncollectible, billing.StatusPaid, billing.StatusOpen},
		billing.StatusPaid:          {no, no, no, billing.StatusPaid, billing.StatusOpen},
		billing.StatusVoid:          {no, no, no, no, billing.StatusVoid},
		billing.StatusUncollectible: {no, no, no, no, billing.StatusUncollectible},
	}
	for _, from := range billing.Statuses() {
		for i, o := range ops {
			t.Run(fmt.Sprintf("%s/%s", from, o.name), func(t *testing.T) {
				svc, _, _ := newMemService(t)
				before := mustInvoiceIn(t, svc, tenantA, from)
				got, err := o.run(svc, before.ID)
				if to := want[from][i]; to != no {
					if err != nil {
						t.Fatalf("%s a %s invoice: %v", o.name, from, err)
					}
					if got.Status != to {
						t.Errorf("%s a %s invoice: got %s, want %s", o.name, from, got.Status, to)
					}
					return
				}
				var te *billing.TransitionError
				if !errors.Is(err, billing.ErrConflict) || !errors.As(err, &te) {
					t.Fatalf("%s a %s invoice: got %v, want a *TransitionError", o.name, from, err)
				}
				if te.InvoiceID != before.ID || te.Status != from || te.Action != o.name {
					t.Errorf("got %+v", te)
				}
				if got, want := te.Detail(), fmt.Sprintf("invoice is %s, cannot %s", from, o.name); got != want {
					t.Errorf("Detail() = %q, want %q (no id: it is what a client reads)", got, want)
				}
				after, err := svc.Get(ctx, tenantA, before.ID)
				if err != nil {
					t.Fatal(err)
				}
				assertSameInvoice(t, after, before)
			})
		}
	}
}

func TestTransitionEffects(t *testing.T) {
	ctx := context.Background()
	t.Run("FinalizeDraft", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		draft := mustInvoiceIn(t, svc, tenantA, billing.StatusDraft)
		inv, err := svc.Finalize(ctx, tenantA, draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		if inv.FinalizedAt == nil || !inv.FinalizedAt.Equal(now()) || draft.Number != "" || inv.Number != "INV-000001" {
			t.Errorf("got finalized_at %v number %q (draft %q), want INV-000001 (draft none)", inv.FinalizedAt, inv.Number, draft.Number)
		}
		assertMoney(t, inv, billing.StatusOpen, 0, 1000)
	})
	t.Run("FinalizeFreeDraftPays", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		in := withTotal(0)
		in.Status = "draft"
		inv, err := svc.Finalize(ctx, tenantA, mustCreate(t, svc, tenantA, in).ID)
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, inv, billing.StatusPaid, 0, 0)
	})
	t.Run("VoidClearsDue", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		open := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		if _, err := svc.ApplyPayment(ctx, tenantA, open.ID, 300, "USD"); err != nil {
			t.Fatal(err)
		}
		inv, err := svc.Void(ctx, tenantA, open.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, inv, billing.StatusVoid, 300, 0)
	})
	t.Run("UncollectibleKeepsDue", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		open := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		if _, err := svc.ApplyPayment(ctx, tenantA, open.ID, 300, "USD"); err != nil {
			t.Fatal(err)
		}
		inv, err := svc.MarkUncollectible(ctx, tenantA, open.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, inv, billing.StatusUncollectible, 300, 700)
	})
	t.Run("ModuleDisabled", func(t *testing.T) {
		svc, _, ent := newMemService(t)
		open := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		ent.moduleErr = fmt.Errorf("off: %w", tenancy.ErrModuleDisabled)
		if _, err := svc.Void(ctx, tenantA, open.ID); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("Void with the module off: got %v", err)
		}
		// Money reported by the provider is recorded whatever the module.
		if _, err := svc.ApplyPayment(ctx, tenantA, open.ID, 1, "USD"); err != nil {
			t.Errorf("ApplyPayment with the module off: %v", err)
		}
	})
	t.Run("OtherTenant", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		open := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		if _, err := svc.Void(ctx, tenantB, open.ID); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("void another tenant's invoice: got %v, want ErrNotFound", err)
		}
	})
}
