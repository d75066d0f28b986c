package billing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// event is a payment (amount > 0) or a refund (amount < 0) as a provider
// reports it.
type event int64

func (e event) String() string {
	if e < 0 {
		return fmt.Sprintf("refund%d", -e)
	}
	return fmt.Sprintf("pay%d", e)
}

func apply(ctx context.Context, svc bills, tenantID, invoiceID string, e event) (billing.Invoice, error) {
	if e < 0 {
		return svc.ApplyRefund(ctx, tenantID, invoiceID, int64(-e), "USD")
	}
	return svc.ApplyPayment(ctx, tenantID, invoiceID, int64(e), "USD")
}

func TestApplyPayments(t *testing.T) {
	tests := []struct {
		name      string
		events    []event
		status    billing.Status
		paid, due int64
	}{
		{"Partial", []event{400}, billing.StatusOpen, 400, 600},
		{"TwoPartials", []event{400, 600}, billing.StatusPaid, 1000, 0},
		{"Exact", []event{1000}, billing.StatusPaid, 1000, 0},
		{"Overpaid", []event{1200}, billing.StatusPaid, 1200, 0},
		{"PaidThenMore", []event{1000, 1}, billing.StatusPaid, 1001, 0},
		{"PartialRefundReopens", []event{1000, -300}, billing.StatusOpen, 700, 300},
		{"FullRefundReopens", []event{1000, -1000}, billing.StatusOpen, 0, 1000},
		{"OverpaidRefundStaysPaid", []event{1200, -200}, billing.StatusPaid, 1000, 0},
		{"RefundOfPartial", []event{400, -400}, billing.StatusOpen, 0, 1000},
		{"RefundBeforePayment", []event{-300}, billing.StatusOpen, 0, 1000},
		{"RefundThenPayment", []event{-300, 1000}, billing.StatusOpen, 700, 300},
		{"RefundThenPaymentThenRest", []event{-300, 1000, 300}, billing.StatusPaid, 1000, 0},
		{"ReopenedThenPaidAgain", []event{1000, -500, 500}, billing.StatusPaid, 1000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			ctx := context.Background()
			inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
			var err error
			for _, e := range tt.events {
				if inv, err = apply(ctx, svc, tenantA, inv.ID, e); err != nil {
					t.Fatalf("%v: %v", e, err)
				}
			}
			assertMoney(t, inv, tt.status, tt.paid, tt.due)
			stored, err := svc.Get(ctx, tenantA, inv.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertSameInvoice(t, stored, inv)
		})
	}
}

func TestApplyPaymentSetsPaidAt(t *testing.T) {
	svc, _, _ := newMemService(t)
	ctx := context.Background()
	inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
	inv, err := svc.ApplyPayment(ctx, tenantA, inv.ID, 1000, "usd") // currency in any case
	if err != nil {
		t.Fatal(err)
	}
	if inv.PaidAt == nil || !inv.PaidAt.Equal(now()) {
		t.Errorf("paid_at = %v, want %v", inv.PaidAt, now())
	}
	inv, err = svc.ApplyRefund(ctx, tenantA, inv.ID, 1, "USD")
	if err != nil {
		t.Fatal(err)
	}
	if inv.PaidAt != nil {
		t.Errorf("paid_at = %v after reopening, want nil", inv.PaidAt)
	}
}

func TestApplyPaymentRefused(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		run   func(svc bills, invoiceID string) error
		want  error
		field string
	}{
		{"CurrencyMismatch", func(svc bills, id string) error {
			_, err := svc.ApplyPayment(ctx, tenantA, id, 100, "EUR")
			return err
		}, billing.ErrCurrencyMismatch, ""},
		{"RefundCurrencyMismatch", func(svc bills, id string) error {
			_, err := svc.ApplyRefund(ctx, tenantA, id, 100, "JPY")
			return err
		}, billing.ErrCurrencyMismatch, ""},
		{"ZeroAmount", func(svc bills, id string) error {
			_, err := svc.ApplyPayment(ctx, tenantA, id, 0, "USD")
			return err
		}, billing.ErrInvalid, "amount"},
		{"NegativeAmount", func(svc bills, id string) error {
			_, err := svc.ApplyPayment(ctx, tenantA, id, -100, "USD")
			return err
		}, billing.ErrInvalid, "amount"},
		{"NegativeRefund", func(svc bills, id string) error {
			_, err := svc.ApplyRefund(ctx, tenantA, id, -100, "USD")
			return err
		}, billing.ErrInvalid, "amount"},
		{"AbsurdAmount", func(svc bills, id string) error {
			_, err := svc.ApplyPayment(ctx, tenantA, id, billing.MaxAmount+1, "USD")
			return err
		}, billing.ErrInvalid, "amount"},
		{"UnknownInvoice", func(svc bills, _ string) error {
			_, err := svc.ApplyPayment(ctx, tenantA, id.New(id.Invoice), 100, "USD")
			return err
		}, billing.ErrNotFound, ""},
		{"GarbageInvoiceID", func(svc bills, _ string) error {
			_, err := svc.ApplyRefund(ctx, tenantA, "inv_nope", 100, "USD")
			return err
		}, billing.ErrNotFound, ""},
		{"OtherTenant", func(svc bills, id string) error {
			_, err := svc.ApplyPayment(ctx, tenantB, id, 100, "USD")
			return err
		}, billing.ErrNotFound, ""},
		{"LedgerOverflow", func(svc bills, id string) error {
			for {
				if _, err := svc.ApplyPayment(ctx, tenantA, id, billing.MaxAmount, "USD"); err != nil {
					return err
				}
			}
		}, billing.ErrInvalid, "amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			before := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
			err := tt.run(svc, before.ID)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.field != "" {
				if fields := fieldErrors(t, err); fields[tt.field] == "" {
					t.Errorf("got %v, want an error on %q", fields, tt.field)
				}
			}
			if tt.name == "LedgerOverflow" {
				return
			}
			after, err := svc.Get(ctx, tenantA, before.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertSameInvoice(t, after, before)
		})
	}
}

// permutations returns every ordering of es.
func permutations(es []event) [][]event {
	if len(es) <= 1 {
		return [][]event{append([]event(nil), es...)}
	}
	var out [][]event
	for i := range es {
		rest := append(append([]event(nil), es[:i]...), es[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]event{es[i]}, p...))
		}
	}
	return out
}

// TestApplyOrderIndependent delivers the same payments and refunds in every
// order: the invoice always ends the same, since only the sums count.
func TestApplyOrderIndependent(t *testing.T) {
	tests := []struct {
		name      string
		events    []event
		status    billing.Status
		paid, due int64
	}{
		{"TwoPartialsAndRefund", []event{600, 400, -300}, billing.StatusOpen, 700, 300},
		{"PaidDespiteRefund", []event{600, 700, -300}, billing.StatusPaid, 1000, 0},
		{"FullRefund", []event{400, 600, -1000}, billing.StatusOpen, 0, 1000},
		{"TwoRefunds", []event{1000, 500, -200, -300}, billing.StatusPaid, 1000, 0},
		{"RefundsExceedPayments", []event{300, -200, -200}, billing.StatusOpen, 0, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range permutations(tt.events) {
				t.Run(strings.Trim(fmt.Sprint(order), "[]"), func(t *testing.T) {
					svc, _, _ := newMemService(t)
					ctx := context.Background()
					inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
					var err error
					for _, e := range order {
						if inv, err = apply(ctx, svc, tenantA, inv.ID, e); err != nil {
							t.Fatalf("%v: %v", e, err)
						}
					}
					assertMoney(t, inv, tt.status, tt.paid, tt.due)
				})
			}
		})
	}
}
