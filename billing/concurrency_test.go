package billing_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/tenancy"
)

// createConcurrently starts n creates in tenantID at once and returns the
// numbers of those that succeeded and the errors of the others.
func createConcurrently(t *testing.T, e dbEnv, tenantID string, n int) (numbers []string, errs []error) {
	t.Helper()
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for range n {
		wg.Go(func() {
			<-start
			inv, err := e.svc.Create(context.Background(), tenantID, validInput())
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			numbers = append(numbers, inv.Number)
		})
	}
	close(start)
	wg.Wait()
	slices.Sort(numbers)
	return numbers, errs
}

// consecutive returns INV-000001 … INV-00000n.
func consecutive(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = billing.FormatNumber(int64(i + 1))
	}
	return out
}

func TestCreateConcurrentNumbers(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		a := e.mustTenant(t, "acme", nil)
		b := e.mustTenant(t, "globex", nil)
		mustCreate(t, e.svc, b, validInput()) // another tenant's counter is its own

		numbers, errs := createConcurrently(t, e, a, 50)
		if len(errs) > 0 {
			t.Fatalf("%d creates failed, first: %v", len(errs), errs[0])
		}
		if !slices.Equal(numbers, consecutive(50)) {
			t.Errorf("numbers %v, want INV-000001..INV-000050 once each", numbers)
		}
		page, _, err := e.svc.List(context.Background(), a, billing.ListFilter{Limit: 100})
		if err != nil || len(page) != 50 {
			t.Errorf("List: %d invoices, %v; want 50", len(page), err)
		}
	})
}

func TestCreateConcurrentLimit(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		a := e.mustTenant(t, "acme", ptr[int64](10))
		numbers, errs := createConcurrently(t, e, a, 30)
		if !slices.Equal(numbers, consecutive(10)) {
			t.Errorf("numbers %v, want INV-000001..INV-000010", numbers)
		}
		if len(errs) != 20 {
			t.Errorf("%d creates failed, want 20", len(errs))
		}
		for _, err := range errs {
			if !errors.Is(err, tenancy.ErrLimitExceeded) {
				t.Errorf("got %v, want ErrLimitExceeded", err)
			}
		}
		if used := e.mustUsage(t, a); used != 10 {
			t.Errorf("usage %d, want 10", used)
		}
	})
}

// TestApplyConcurrent sends many payments and refunds for one invoice at
// once: the row lock serialises them, so none is lost.
func TestApplyConcurrent(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		a := e.mustTenant(t, "acme", nil)
		inv := mustCreate(t, e.svc, a, withTotal(2000))
		events := make([]event, 0, 25)
		for range 20 {
			events = append(events, 100)
		}
		for range 5 {
			events = append(events, -100)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, ev := range events {
			wg.Go(func() {
				<-start
				if _, err := apply(context.Background(), e.svc, a, inv.ID, ev); err != nil {
					t.Errorf("%v: %v", ev, err)
				}
			})
		}
		close(start)
		wg.Wait()
		got, err := e.svc.Get(context.Background(), a, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		assertMoney(t, got, billing.StatusOpen, 1500, 500)
		if got.Received != 2000 || got.Refunded != 500 {
			t.Errorf("received %d refunded %d, want 2000 and 500", got.Received, got.Refunded)
		}
	})
}
