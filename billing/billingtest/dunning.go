package billingtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
)

// DunningStores is what RunDunning checks: a DunningStore, with the Store
// of the same invoices to create them.
type DunningStores interface {
	billing.Store
	billing.DunningStore
}

// RunDunning checks a DunningStore implementation. newStore must return a
// new, empty store on every call, in which TenantA and TenantB exist.
func RunDunning(t *testing.T, newStore func(t *testing.T) DunningStores) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s DunningStores)
	}{
		{"RecordStepOnce", testRecordStepOnce},
		{"RecordStepConcurrent", testRecordStepConcurrent},
		{"RecordStepIsolation", testRecordStepIsolation},
		{"DueForCollection", testDueForCollection},
		{"DueForCollectionPages", testDueForCollectionPages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStore(t)) })
	}
}

// withDue returns inv due on date, in status st.
func withDue(inv billing.Invoice, date string, st billing.Status) billing.Invoice {
	inv.DueDate, inv.Status = date, st
	if st == billing.StatusDraft {
		inv.FinalizedAt = nil
	}
	return inv
}

func mustRecord(tb testing.TB, s billing.DunningStore, tenantID, invoiceID, step string, want bool) {
	tb.Helper()
	got, err := s.RecordStep(context.Background(), tenantID, invoiceID,
		billing.CollectionStep{Step: step, Outcome: billing.StepDone, At: base()})
	if err != nil {
		tb.Fatalf("RecordStep(%s, %s): %v", invoiceID, step, err)
	}
	if got != want {
		tb.Fatalf("RecordStep(%s, %s) = %v, want %v", invoiceID, step, got, want)
	}
}

func mustSteps(tb testing.TB, s billing.DunningStore, tenantID, invoiceID string) []billing.CollectionStep {
	tb.Helper()
	steps, err := s.Steps(context.Background(), tenantID, invoiceID)
	if err != nil {
		tb.Fatalf("Steps(%s): %v", invoiceID, err)
	}
	slices.SortFunc(steps, func(a, b billing.CollectionStep) int {
		switch {
		case a.Step < b.Step:
			return -1
		case a.Step > b.Step:
			return 1
		}
		return 0
	})
	return steps
}

func testRecordStepOnce(t *testing.T, s DunningStores) {
	ctx := context.Background()
	inv := mustCreate(t, s, newInvoice(TenantA, 1))
	mustRecord(t, s, TenantA, inv.ID, billing.StepOverdue, true)
	mustRecord(t, s, TenantA, inv.ID, billing.StepOverdue, false)

	later := base().Add(24 * time.Hour)
	ok, err := s.RecordStep(ctx, TenantA, inv.ID, billing.CollectionStep{Step: billing.StepReminder1, Outcome: billing.StepSkipped, At: later})
	if err != nil || !ok {
		t.Fatalf("RecordStep(reminder_1) = %v, %v; want true, nil", ok, err)
	}
	got := mustSteps(t, s, TenantA, inv.ID)
	want := []billing.CollectionStep{
		{Step: billing.StepOverdue, Outcome: billing.StepDone, At: base()},
		{Step: billing.StepReminder1, Outcome: billing.StepSkipped, At: later},
	}
	if len(got) != len(want) {
		t.Fatalf("Steps = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Step != want[i].Step || got[i].Outcome != want[i].Outcome || !got[i].At.Equal(want[i].At) {
			t.Errorf("Steps[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func testRecordStepConcurrent(t *testing.T, s DunningStores) {
	const workers = 12
	inv := mustCreate(t, s, newInvoice(TenantA, 1))
	var wg sync.WaitGroup
	recorded := make([]bool, workers)
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			recorded[i], errs[i] = s.RecordStep(context.Background(), TenantA, inv.ID,
				billing.CollectionStep{Step: billing.StepReminder7, Outcome: billing.StepDone, At: base()})
		})
	}
	wg.Wait()
	n := 0
	for i := range workers {
		if errs[i] != nil {
			t.Fatalf("RecordStep: %v", errs[i])
		}
		if recorded[i] {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d of %d concurrent RecordStep calls recorded, want 1", n, workers)
	}
}

func testRecordStepIsolation(t *testing.T, s DunningStores) {
	ctx := context.Background()
	invB := mustCreate(t, s, newInvoice(TenantB, 1))
	_, err := s.RecordStep(ctx, TenantA, invB.ID, billing.CollectionStep{Step: billing.StepOverdue, Outcome: billing.StepDone, At: base()})
	if !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("RecordStep on another tenant's invoice: got %v, want ErrNotFound", err)
	}
	mustRecord(t, s, TenantB, invB.ID, billing.StepOverdue, true)
	if got := mustSteps(t, s, TenantA, invB.ID); len(got) != 0 {
		t.Errorf("tenant A sees tenant B's steps: %+v", got)
	}
	if got := mustSteps(t, s, TenantB, invB.ID); len(got) != 1 {
		t.Errorf("tenant B sees %d steps, want 1", len(got))
	}
}

// dueIDs returns the ids DueForCollection answers.
func dueIDs(tb testing.TB, s billing.DunningStore, due []billing.DueStep, after billing.InvoiceKey, limit int) []string {
	tb.Helper()
	invs, err := s.DueForCollection(context.Background(), "", due, after, limit)
	if err != nil {
		tb.Fatalf("DueForCollection: %v", err)
	}
	return ids(invs)
}

// sortedKeys orders invoices as DueForCollection does.
func sortedKeys(invs ...billing.Invoice) []string {
	invs = slices.Clone(invs)
	slices.SortFunc(invs, func(a, b billing.Invoice) int {
		if a.TenantID != b.TenantID {
			if a.TenantID < b.TenantID {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	return ids(invs)
}

func testDueForCollection(t *testing.T, s DunningStores) {
	a1 := mustCreate(t, s, withDue(newInvoice(TenantA, 1), "2026-11-01", billing.StatusOpen))
	a2 := mustCreate(t, s, withDue(newInvoice(TenantA, 2), "2026-11-12", billing.StatusOpen))
	mustCreate(t, s, withDue(newInvoice(TenantA, 3), "", billing.StatusOpen))
	mustCreate(t, s, withDue(newInvoice(TenantA, 4), "2026-11-01", billing.StatusPaid))
	mustCreate(t, s, withDue(newInvoice(TenantA, 5), "2026-11-01", billing.StatusDraft))
	mustCreate(t, s, withDue(newInvoice(TenantA, 6), "2026-11-01", billing.StatusUncollectible))
	mustCreate(t, s, withDue(newInvoice(TenantA, 7), "2026-11-15", billing.StatusOpen)) // not yet due
	b1 := mustCreate(t, s, withDue(newInvoice(TenantB, 1), "2026-11-01", billing.StatusOpen))

	due := []billing.DueStep{
		{Step: billing.StepOverdue, DueBefore: "2026-11-15"},
		{Step: billing.StepReminder7, DueBefore: "2026-11-08"},
	}
	tests := []struct {
		name   string
		record []billing.Invoice // record step for these first ("": end their collection)
		step   string
		want   []string
	}{
		{"AllOpenPastDue", nil, "", sortedKeys(a1, a2, b1)},
		{"OneStepTakenAnotherDue", []billing.Invoice{a1}, billing.StepOverdue, sortedKeys(a1, a2, b1)},
		{"EveryDueStepTaken", []billing.Invoice{a1}, billing.StepReminder7, sortedKeys(a2, b1)},
		{"StepNotDueYetIsNoReason", []billing.Invoice{a2}, billing.StepOverdue, sortedKeys(b1)},
		{"LaterStepsDoNotCount", []billing.Invoice{b1}, billing.StepDunning, sortedKeys(b1)},
		{"CollectionEnded", []billing.Invoice{b1}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, inv := range tt.record {
				if tt.step == "" {
					if err := s.EndCollection(context.Background(), inv.TenantID, inv.ID); err != nil {
						t.Fatalf("EndCollection: %v", err)
					}
					continue
				}
				mustRecord(t, s, inv.TenantID, inv.ID, tt.step, true)
			}
			if got := dueIDs(t, s, due, billing.InvoiceKey{}, 100); !slices.Equal(got, tt.want) {
				t.Errorf("DueForCollection = %v, want %v", got, tt.want)
			}
		})
	}
	if got := dueIDs(t, s, nil, billing.InvoiceKey{}, 100); len(got) != 0 {
		t.Errorf("DueForCollection without steps = %v, want none", got)
	}
	if err := s.EndCollection(context.Background(), TenantB, a1.ID); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("EndCollection of another tenant's invoice: got %v, want ErrNotFound", err)
	}
}

func testDueForCollectionPages(t *testing.T, s DunningStores) {
	var all []billing.Invoice
	for n := int64(1); n <= 3; n++ {
		all = append(all, mustCreate(t, s, withDue(newInvoice(TenantA, n), "2026-11-01", billing.StatusOpen)),
			mustCreate(t, s, withDue(newInvoice(TenantB, n), "2026-11-01", billing.StatusOpen)))
	}
	due := []billing.DueStep{{Step: billing.StepOverdue, DueBefore: "2026-11-02"}}
	want := sortedKeys(all...)
	var got []string
	var after billing.InvoiceKey
	for range len(all) + 1 {
		invs, err := s.DueForCollection(context.Background(), "", due, after, 4)
		if err != nil {
			t.Fatalf("DueForCollection: %v", err)
		}
		got = append(got, ids(invs)...)
		if len(invs) < 4 {
			break
		}
		last := invs[len(invs)-1]
		after = billing.InvoiceKey{TenantID: last.TenantID, ID: last.ID}
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages of 4 = %v, want %v", got, want)
	}
}
